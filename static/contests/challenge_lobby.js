// The lobby's way in to the daily challenge (contests.plugin's "lobby" panel):
// plugin panels come at the end of the page, so move it up to the top of the
// lobby's content, where a player looks first.
const entry = document.getElementById("challenge-entry");
const main = document.querySelector("main.site-main");
if (entry && main) main.prepend(entry);
