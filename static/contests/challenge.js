// The daily challenge page (/challenge/): the start / continue button asks
// POST /api/challenge/today/start and opens the board it answers with.
const form = document.getElementById("ch-start-form");
if (form) {
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const button = form.querySelector("button[type=submit]");
    // one request at a time: a double click sent a second start, refused (400)
    button.disabled = true;
    const token = form.querySelector("input[name=csrfmiddlewaretoken]").value;
    let data = {};
    try {
      const res = await fetch(form.action, {
        method: "POST", headers: {"X-CSRFToken": token, "Accept": "application/json"},
      });
      data = await res.json();
    } finally {
      button.disabled = !!data.ok;  // kept while the board opens
    }
    if (data.ok) {
      window.location.assign(data.path);
    } else {
      const p = document.getElementById("ch-progress");
      if (!p) return;
      p.textContent = data.message;
      // a refusal naming the table where my game runs (seated_elsewhere): a way back
      const other = (data.params || {}).table_id;
      if (Number.isInteger(other)) {
        const back = document.createElement("a");
        back.href = "/tables/" + other + "/";
        back.textContent = form.dataset.back;
        back.className = "ch-back";
        p.append(" ", back);
      }
    }
  });
}

// back (or forward) to a page kept in the browser's cache: it shows the day as
// it was (开始 though a board has begun since), so load it afresh
window.addEventListener("pageshow", (e) => { if (e.persisted) location.reload(); });
