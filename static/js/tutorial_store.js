/* The lessons this browser finished logged out (localStorage), shared by the
 * tutorial page (tutorial.js) and the lobby's offer (tutorial_offer.js). */

const STORE = "yuanzi.tutorial.done";

/* The lesson codes held, [] when none or unreadable (private mode). */
export function storedDone() {
  try { return JSON.parse(localStorage.getItem(STORE) || "[]"); } catch (e) { return []; }
}

export function markStored(code) {
  const done = storedDone();
  if (!done.includes(code)) done.push(code);
  try { localStorage.setItem(STORE, JSON.stringify(done)); } catch (e) { /* private mode */ }
}

/* Once the account holds them, the browser's record goes. */
export function forgetStored() {
  try { localStorage.removeItem(STORE); } catch (e) { /* private mode */ }
}
