/* A player's avatar in its level frame, as the server's {% avatar %} tag draws
 * it (games/templatetags/avatars.py): a code of accounts.models.AVATARS and
 * its frame band 0–4 (accounts.levels.frame_for). The URLs come from the server
 * (T.avatars), which names the hashed static files. */

import {el} from "./dom.js";
import {T} from "./i18n.js";

/* The framed avatar, or null when the page has no avatar URLs or the code is unknown. */
export function avatarEl(code, frame) {
  const url = T.avatars ? T.avatars[code] : null;
  if (!url) return null;
  const box = el("span", "avatar band-" + (Number(frame) || 0));
  box.dataset.avatar = code;
  const img = el("img");
  img.src = url;
  img.alt = "";
  img.width = 32;
  img.height = 32;
  box.appendChild(img);
  return box;
}
