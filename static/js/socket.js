/* One websocket to the site, kept open: connecting, reconnecting with backoff,
 * heartbeat pings, and the one move awaiting its answer ("pending").
 *
 *   const sock = openSocket("/ws/table/7/", {onMessage, onState, onPending, onStuck});
 *   sock.send(msg)   → true if it went out (false: not open; nothing queued)
 *   sock.act(msg)    send a move and mark it pending until settle() or close
 *   sock.settle()    the move was answered (a view or an error arrived)
 *   sock.wake()      the tab is back: reconnect at once if closed (backoff reset)
 *   sock.isOpen()
 *
 * onState gets "connecting", "open", "closed" (a retry is scheduled) or
 * "gone": the server closed with a final code (4404, the table does not exist
 * or is closed: docs/protocol.md), after which nothing reconnects. Any other
 * close retries after 1 s, 2 s, 4 s … up to 15 s, plus up to 0.5 s jitter.
 * onStuck runs when a pending move got no answer within pendingMs.
 */

const FINAL_CLOSE_CODES = [4404];
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 15000;

function nothing() {}

export function openSocket(path, {
  onMessage, onState = nothing, onPending = nothing, onStuck = nothing,
  pingMs = 5000, pendingMs = 5000,  // the table pings every 5 s (docs/protocol.md)
} = {}) {
  let ws = null;
  let backoff = FIRST_BACKOFF_MS;
  let retryTimer = null, pingTimer = null, pendingTimer = null;
  let gone = false;

  function url() {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }

  function connect() {
    clearTimeout(retryTimer);
    if (gone) return;
    onState("connecting");
    try {
      ws = new WebSocket(url());
    } catch (e) {
      retry();
      return;
    }
    ws.onopen = () => {
      backoff = FIRST_BACKOFF_MS;
      onState("open");
      clearInterval(pingTimer);
      pingTimer = setInterval(() => send({type: "ping"}), pingMs);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(pingTimer);
      setPending(false);
      if (FINAL_CLOSE_CODES.includes(ev.code)) {
        gone = true;
        onState("gone");
        return;
      }
      retry();
    };
    ws.onerror = nothing; // onclose follows
  }

  function retry() {
    onState("closed");
    const wait = backoff + Math.floor(Math.random() * 500);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    retryTimer = setTimeout(connect, wait);
  }

  function isOpen() { return !!ws && ws.readyState === WebSocket.OPEN; }

  function send(msg) {
    if (!isOpen()) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }

  function setPending(on) {
    const was = pendingTimer !== null;
    clearTimeout(pendingTimer);
    pendingTimer = null;
    if (on) {
      // never a dead end: no answer in time, and the page asks for the view again
      pendingTimer = setTimeout(() => { pendingTimer = null; onPending(false); onStuck(); }, pendingMs);
    }
    if (on || was) onPending(on);
  }

  function act(msg) {
    if (!send(msg)) return false;
    setPending(true);
    return true;
  }

  function wake() {
    if (gone || (ws && ws.readyState !== WebSocket.CLOSED)) return;
    backoff = FIRST_BACKOFF_MS;
    connect();
  }

  connect();
  return {send, act, settle: () => setPending(false), wake, isOpen};
}
