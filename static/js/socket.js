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
 * onState(state, retryAt) gets "connecting", "open", "busy" (the server is
 * saturated: 4503; a retry is scheduled), "closed" (a retry is
 * scheduled at performance.now() time `retryAt`) or "gone": the server closed
 * with a final code (4404, the table does not exist or is closed:
 * docs/protocol.md), after which nothing reconnects; "signed_out" likewise
 * after 4403 (the server signed the account out). Any other close retries
 * after 1 s, 2 s, 4 s … up to 15 s, plus up to 0.5 s jitter.
 * Never silent: a ping goes out every pingMs; when no frame at all
 * has come back pongMs after a ping, the socket is taken for dead (a cut
 * network may never deliver a close) and a retry is scheduled at once; so
 * it is at once when the browser says it went offline ("online": reconnect).
 * onStuck runs when a pending move got no answer within pendingMs.
 */

const FINAL_CLOSE_CODES = [4404];
// the server signed this account out (a suspension: docs/protocol.md): no retry
const SIGNED_OUT_CODE = 4403;
// the server process is restarting (a drain, docs/protocol.md): reconnect after a
// random 0.5–5 s, so a whole process's pages do not come back at one instant
const RESTART_CODE = 1012;
// the server is saturated (docs/protocol.md 4503): "server busy", then try again
// after a jittered, growing wait
const BUSY_CODE = 4503;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 15000;  // a busy server's growing wait
// a lost connection is retried at most this far apart: a player whose site
// came back must be back within the clock's grace (GAMES_RESUME_GRACE_SECONDS,
// 6 s), and a refused connect costs a restarting server nothing
const MAX_RETRY_MS = 4500;

function nothing() {}

export function openSocket(path, {
  onMessage, onState = nothing, onPending = nothing, onStuck = nothing,
  pingMs = 5000, pongMs = 3000, pendingMs = 5000,  // the table pings every 5 s (docs/protocol.md)
} = {}) {
  let ws = null;
  let backoff = FIRST_BACKOFF_MS;
  let retryTimer = null, pingTimer = null, pendingTimer = null, pongTimer = null;
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
      pingTimer = setInterval(ping, pingMs);
    };
    ws.onmessage = (ev) => {
      clearTimeout(pongTimer); // any frame proves the line is alive
      pongTimer = null;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(pingTimer);
      clearTimeout(pongTimer);
      setPending(false);
      if (FINAL_CLOSE_CODES.includes(ev.code)) {
        gone = true;
        onState("gone");
        return;
      }
      if (ev.code === SIGNED_OUT_CODE) {
        gone = true;
        onState("signed_out");
        return;
      }
      if (ev.code === BUSY_CODE) {
        const wait = 2000 + Math.floor(Math.random() * (backoff + 3000));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        retry(wait, "busy");
        return;
      }
      if (ev.code === RESTART_CODE) {
        backoff = FIRST_BACKOFF_MS;
        retry(500 + Math.floor(Math.random() * 4500));
        return;
      }
      retry();
    };
    ws.onerror = nothing; // onclose follows
  }

  function retry(after, state = "closed") {
    const wait = after !== undefined ? after
      : Math.min(backoff, MAX_RETRY_MS) + Math.floor(Math.random() * 500);
    if (after === undefined) backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, wait);
    onState(state, performance.now() + wait);
  }

  function ping() {
    if (!send({type: "ping"}) || pongTimer !== null) return;
    pongTimer = setTimeout(dead, pongMs);
  }

  /* No answer to a ping: drop this socket without waiting for a close that a
     cut line never delivers, and reconnect. */
  function dead() {
    pongTimer = null;
    clearInterval(pingTimer);
    const old = ws;
    ws = null;
    if (old) {
      old.onclose = old.onmessage = old.onopen = null;
      try { old.close(); } catch (e) { /* already closing */ }
    }
    setPending(false);
    retry();
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
    clearTimeout(retryTimer);
    backoff = FIRST_BACKOFF_MS;
    connect();
  }

  // the browser knows the network went away: say so at once, not after a
  // missed pong (up to pingMs + pongMs later), and come back as soon as it returns
  window.addEventListener("offline", () => { if (ws && !gone) dead(); });
  window.addEventListener("online", wake);

  connect();
  return {send, act, settle: () => setPending(false), wake, isOpen};
}
