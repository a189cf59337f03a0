/* The page's words. The server renders them (games/ui.py lobby_strings /
 * table_strings, through gettext) into a json_script blob; the entry script
 * loads that blob once with useStrings() before drawing anything, and every
 * module reads T. Placeholders are Python's %(name)s form, filled by fmt(). */

export const T = {};

/* Load the strings of the json_script element `id` into T. */
export function useStrings(id) {
  Object.assign(T, JSON.parse(document.getElementById(id).textContent));
}

/* "%(n)s watching" + {n: 3} → "3 watching" (a missing value: empty). A count's
   words ({one, other}, games/ui.py plural_forms) are picked by values.n. */
export function fmt(template, values) {
  if (template && typeof template === "object" && "other" in template) {
    template = Number(values.n) === 1 ? template.one : template.other;
  }
  return String(template).replace(/%\((\w+)\)s/g, (_, k) =>
    values[k] === undefined ? "" : String(values[k]));
}

/* Of a text the server gives in every language ({"zh-hans": …, "en": …}: a
   notification, a view's stood_reason), this page's; "" if it has none. */
export function inMyLanguage(texts) {
  return (texts && texts[T.lang === "en" ? "en" : "zh-hans"]) || "";
}

/* A table's name in this page's language: the names the site gives, stored
   once in both ("桌 12 · Table 12", "练习桌 3 · Practice 3"; games/names.py
   display_name), give this page's half; any other name is shown as stored. */
const GIVEN_NAME = /^(练习桌|桌) ([0-9]+) · (Practice|Table) ([0-9]+)$/;

export function tableName(name) {
  const m = GIVEN_NAME.exec(name || "");
  if (!m || m[2] !== m[4] || (m[1] === "桌") !== (m[3] === "Table")) return name || "";
  return T.lang === "en" ? m[3] + " " + m[4] : m[1] + " " + m[2];
}

export function signed(n) { return n > 0 ? "+" + n : String(n); }
