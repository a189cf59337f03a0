"""``{% avatar code frame %}``: a player's built-in avatar in its level frame.

The avatars are hand-drawn SVGs in ``static/avatars/`` (``accounts.models.AVATARS``);
the frame's colour and shape follow the level band (``accounts.levels.frame_for``,
CSS ``.avatar.band-N`` in static/css/site.css). Pages pass what they already
loaded (``profile.avatar_code``, ``profile.frame``), so a tag costs no query.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from accounts.models import avatar_url

register = template.Library()


@register.simple_tag
def avatar(code: str, frame: int = 0, size: str = "") -> SafeString:
    """The avatar ``code`` in the frame of band ``frame`` (0..4); ``size``:
    ``""`` (small, a row's), ``"large"`` (a profile's)."""
    return format_html('<span class="avatar band-{}{}" data-avatar="{}">'
                       '<img src="{}" alt="" width="32" height="32"></span>',
                       int(frame), f" {size}" if size else "", code, avatar_url(code))
