/* The connection banner (#conn-banner): never silent about a lost line.
 * While the socket is down it says 连接中断 / 重连中 (服务器繁忙 when the server
 * is saturated, close code 4503) with the
 * seconds until the next try; when the line is back the page resyncs and
 * says so. The turn clock keeps counting meanwhile (clock.js counts from the
 * last view, as the server's clock does).
 *
 *   const conn = connectionBanner({onBack});   conn.update(state, retryAt)
 */

import {$} from "./dom.js";
import {T, fmt} from "./i18n.js";

export function connectionBanner({onBack}) {
  const banner = $("conn-banner");
  let retryAt = null, lost = false, timer = null, busy = false;

  function draw() {
    if (!lost) return;
    const secs = retryAt === null ? 0 : Math.max(0, Math.ceil((retryAt - performance.now()) / 1000));
    const words = busy ? T.conn_busy_retry_in : T.conn_retry_in;
    $("conn-banner-text").textContent = secs > 0 ? fmt(words, {s: secs}) : T.conn_retrying;
  }

  function update(conn, at) {
    if (conn === "closed" || conn === "busy") {
      lost = true;
      busy = conn === "busy";  // the server is saturated (4503): 服务器繁忙
      retryAt = at === undefined ? null : at;
      banner.hidden = false;
      banner.dataset.state = "lost";
      draw();
      if (!timer) timer = setInterval(draw, 250);
    } else if (conn === "connecting") {
      if (lost) { retryAt = null; draw(); }
    } else {
      clearInterval(timer);
      timer = null;
      banner.hidden = true;
      banner.dataset.state = conn;
      if (lost && conn === "open") onBack();
      lost = false;
    }
  }

  return {update, lost: () => lost};
}
