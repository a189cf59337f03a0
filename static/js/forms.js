/* The site's own words for a required field left empty, instead
 * of the browser's bubble: every form is novalidate, and on submit the first
 * empty required field gets a message under it (body[data-required-text],
 * translated by the server) and the focus. The server checks again.
 * A field marked data-count shows "n/max" once it nears its maxlength, so a
 * name cut there (a paste) is not cut silently. */

const text = document.body.dataset.requiredText || "";

function clearMark(field) {
  const next = field.nextElementSibling;
  if (next && next.classList.contains("field-required")) next.remove();
  field.removeAttribute("aria-invalid");
}

document.querySelectorAll("form").forEach((form) => {
  if (!form.querySelector("[required]")) return;
  form.noValidate = true;
  form.addEventListener("submit", (e) => {
    let first = null;
    form.querySelectorAll("[required]").forEach((field) => {
      clearMark(field);
      const empty = field.type === "checkbox" ? !field.checked : !String(field.value).trim();
      if (!empty) return;
      const msg = document.createElement("span");
      msg.className = "field-required";
      msg.setAttribute("role", "alert");
      msg.textContent = text;
      field.setAttribute("aria-invalid", "true");
      field.insertAdjacentElement("afterend", msg);
      if (!first) first = field;
    });
    if (first) { e.preventDefault(); first.focus(); }
  });
  form.addEventListener("input", (e) => { if (e.target.matches("[required]")) clearMark(e.target); });
});

document.querySelectorAll("input[data-count][maxlength]").forEach((field) => {
  const count = document.createElement("span");
  count.className = "field-count";
  count.setAttribute("aria-live", "polite");
  field.insertAdjacentElement("afterend", count);
  const show = () => {
    const n = field.value.length;  // as maxlength counts
    // said only near the end (the last quarter), where it matters
    count.textContent = n >= field.maxLength * 0.75 ? n + "/" + field.maxLength : "";
    count.classList.toggle("full", n >= field.maxLength);
  };
  field.addEventListener("input", show);
  show();
});
