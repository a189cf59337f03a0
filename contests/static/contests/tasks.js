/* 每日任务 in the lobby (contests/_lobby_tasks.html): moves the panel under the
 * lobby's head, keeps each task's progress live from the per-user channel's
 * `task` frames (me.js re-dispatches them as "yuanzi:frame" events) and claims
 * a done task's coins with POST /api/tasks/<id>/claim (docs/api.md). Hooks for
 * tests: #daily-tasks .task[data-task].done / .claimed, .task-count. Under the
 * rated games that unlock rewards (data-eligible="0") the Claim button stays
 * disabled, its reason beside it; a task done live makes it ask GET /api/tasks
 * whether the account has since reached them. */

const panel = document.getElementById("daily-tasks");

function row(id) {
  return panel.querySelector('.task[data-task="' + CSS.escape(id) + '"]');
}

function show(li, task) {
  li.querySelector(".task-count").textContent = task.progress;
  li.classList.toggle("done", task.done);
  li.classList.toggle("claimed", task.claimed);
  li.querySelector(".task-claim").hidden = !task.done || task.claimed;
  li.querySelector(".task-claimed").hidden = !task.claimed;
}

function unlock() {
  panel.dataset.eligible = "1";
  for (const b of panel.querySelectorAll(".claim-btn")) {
    b.disabled = false;
    b.removeAttribute("aria-describedby");
  }
  for (const e of panel.querySelectorAll(".task-locked-why, .tasks-locked")) e.hidden = true;
}

async function recheckEligible() {
  try {
    const res = await fetch("/api/tasks", {credentials: "same-origin",
                                           headers: {"Accept": "application/json"}});
    if (res.ok && (await res.json()).eligible) unlock();
  } catch (e) { /* offline: the button stays disabled; a reload asks again */ }
}

async function claim(form) {
  const li = form.closest(".task");
  const err = li.querySelector(".task-error");
  const button = form.querySelector("button");
  button.disabled = true;
  err.hidden = true;
  try {
    const res = await fetch(form.action, {
      method: "POST", credentials: "same-origin",
      headers: {"Accept": "application/json",
                "X-CSRFToken": form.querySelector("[name=csrfmiddlewaretoken]").value},
    });
    const body = await res.json();
    if (body.ok) {
      show(li, body.task);
      return;
    }
    if (body.reason === "reward_locked") { // still locked: leave it disabled
      err.textContent = body.message || body.reason;
      err.hidden = false;
      return;
    }
    err.textContent = body.message || body.reason;
    err.hidden = false;
  } catch (e) {
    err.textContent = String(e);
    err.hidden = false;
  }
  button.disabled = false;
}

if (panel) {
  const head = document.querySelector(".lobby-head");
  if (head) head.after(panel);
  panel.addEventListener("submit", (ev) => {
    ev.preventDefault();
    claim(ev.target);
  });
  document.addEventListener("yuanzi:frame", (ev) => {
    const msg = ev.detail;
    if (msg.type !== "task" || !msg.task) return;
    const li = row(msg.task.id);
    if (li) show(li, msg.task);
    if (msg.task.done && !msg.task.claimed && panel.dataset.eligible === "0") recheckEligible();
  });
}
