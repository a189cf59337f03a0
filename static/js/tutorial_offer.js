/* The lobby's tutorial offer, signed in: the lessons this browser finished
 * logged out (localStorage, as tutorial.js keeps them) go to the account at
 * once (POST /api/tutorial/sync), so the count is right on the first page
 * after signing up, not only once a tutorial page opens. The server validates
 * and answers with every lesson the account holds; the browser then forgets
 * its own record. On a failure the record stays, for the next page. */

import {forgetStored, storedDone} from "./tutorial_store.js";

const offer = document.getElementById("tutorial-offer");

function csrf() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

async function sync() {
  const codes = offer.dataset.codes.split(" ");
  const done = storedDone();
  const lessons = codes.map((c, i) => (done.includes(c) ? i + 1 : 0)).filter(Boolean);
  if (!lessons.length) return;
  const response = await fetch("/api/tutorial/sync", {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
    body: JSON.stringify({lessons}),
  });
  if (!response.ok) return;
  const data = await response.json();
  forgetStored();
  const count = Number(offer.dataset.count);
  if (data.done.length >= count) {
    offer.hidden = true;  // every lesson done: nothing left to offer
    return;
  }
  const badge = offer.querySelector(".badge");
  badge.textContent = `${data.done.length}/${count}`;
  badge.hidden = false;
}

if (offer && offer.dataset.codes) {
  sync().catch(() => { /* offline: the browser keeps its record */ });
}
