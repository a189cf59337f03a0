// A moment as the server's refusals write it ("12-09 03:20", Beijing time,
// shop/items.py): the 招牌 protection's end reads the same everywhere.
const PARTS = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Asia/Shanghai", month: "2-digit", day: "2-digit",
  hour: "2-digit", minute: "2-digit", hourCycle: "h23",
});

export function shortTime(iso) {
  const p = Object.fromEntries(PARTS.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return `${p.month}-${p.day} ${p.hour}:${p.minute}`;
}
