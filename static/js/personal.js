/* The per-user channel of a page with no socket of its own (the shop, a
 * profile, the rules …; base.html includes this for a logged-in person): one
 * small socket to /ws/me/ carrying their `me` and `notice` frames (me.js). It
 * pings like the lobby's, which keeps the person online (docs/protocol.md). */

import {personalFrame} from "./me.js";
import {openSocket} from "./socket.js";

openSocket("/ws/me/", {
  onMessage: (msg) => personalFrame(msg),
  onState: (state) => {
    document.body.dataset.personal = state;
    // signed out by the server (a suspension): show the signed-out site
    if (state === "signed_out") setTimeout(() => location.reload(), 5000);
  },
  pingMs: 25000,
});
