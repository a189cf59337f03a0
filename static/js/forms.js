/* The site's own words for a required field left empty, instead
 * of the browser's bubble: every form is novalidate, and on submit the first
 * empty required field gets a message under it (body[data-required-text],
 * translated by the server) and the focus. The server checks again. */

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
