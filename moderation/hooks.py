"""Moderation's policies at tables, plugged into the game by
``moderation.plugin`` (DESIGN.md "The plugin seam"):

- snapshot contribution ``moderators``: the moderators seated at or watching a
  table (the badge at tables);
- chat-line contribution: ``moderator: true`` on a moderator's lines (the badge
  in chat) and the blocked words masked (chat is stored raw);
- chat policy: a muted user's chat is refused with ``muted`` (saying until when),
  other lines are masked;
- seat policy: a suspended account cannot sit or play (``suspended``), a player
  kicked from a table cannot sit there again until their ban ends
  (``table_banned``);
- name policy: a table name with a blocked word is refused (``blocked_word``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from games import access, events, presence
from games.models import Table
from moderation import wordfilter
from moderation.models import Sanction
from yuanzi_site.refusals import Refused


def active(user_id: int, kind: str, table_id: int | None = None) -> Sanction | None:
    """The sanction of ``kind`` in force on ``user_id`` that ends last, or ``None``."""
    qs = Sanction.objects.active().filter(user_id=user_id, kind=kind)
    if table_id is not None:
        qs = qs.filter(table_id=table_id)
    forever = qs.filter(until__isnull=True).first()
    return forever or qs.order_by("-until").first()


def until_text(sanction: Sanction) -> str:
    """When a sanction ends, for a message (local time), or "for good"."""
    if sanction.until is None:
        return _("for good")
    return formats.date_format(timezone.localtime(sanction.until), "DATETIME_FORMAT")


def moderators_at(tables: list[Table]) -> dict[int, dict[str, Any]]:
    """Snapshot contribution: ``{"moderators": [{"id", "username"}]}`` of the
    moderators seated at or watching each table (no query while the shared
    cache holds the moderators, ``access.moderator_names``; the seats are the
    ones loaded with the tables, ``t.seats.all()``)."""
    ids = [t.pk for t in tables]
    present = {(t, uid) for t, entries in presence.live_many(ids).items()
               for _, uid in entries if uid is not None}
    present |= {(t.pk, s.user_id) for t in tables for s in t.seats.all() if s.user_id}
    mods = access.moderator_names()
    out: dict[int, dict[str, Any]] = {t: {"moderators": []} for t in ids}
    for table_id, uid in sorted(present):
        if uid in mods:
            out[table_id]["moderators"].append({"id": uid, "username": mods[uid]})
    return out


def chat_lines(table_id: int, lines: list[dict[str, Any]]) -> None:
    """Chat-line contribution: the moderator badge, and the blocked words masked."""
    mods = access.moderator_ids({line.get("user_id") for line in lines})
    words = wordfilter.blocked_words()
    for line in lines:
        line["moderator"] = line.get("user_id") in mods
        line["text"] = wordfilter.masked(line["text"], words)


def chat_policy(table_id: int, user: User, text: str) -> str:
    """Refuse a muted user's chat (``muted``); mask the rest."""
    mute = active(user.pk, Sanction.MUTE)
    if mute is not None:
        raise Refused("muted", _("You are muted in chat until %(until)s.")
                      % {"until": until_text(mute)})
    return wordfilter.masked(text)


def seat_policy(table: Table, user: User | None, moment: str) -> None:
    """Suspended accounts do not sit or play; a table ban keeps a kicked player
    from sitting at that table again."""
    if user is None:
        return
    suspension = active(user.pk, Sanction.SUSPENSION)
    if suspension is not None:
        raise Refused("suspended", _("Your account is suspended until %(until)s.")
                      % {"until": until_text(suspension)})
    if moment == "sit":
        ban = active(user.pk, Sanction.TABLE_BAN, table.pk)
        if ban is not None:
            raise Refused("table_banned", ban_text(ban))


def ban_text(ban: Sanction) -> str:
    """Why a kicked player may not sit at that table, and until when (RULES.md
    §12 moderation: a kick bans that table for ``MODERATION_KICK_BAN_MINUTES``)."""
    return _("A moderator removed you from this table: you may sit here again after "
             "%(until)s.") % {"until": until_text(ban)}


def kicked_view_keys(game_id: int, state: dict[str, Any], seat: int | None,
                     user_id: int | None) -> dict[str, Any]:
    """The kicked player's own view of the game their kick ended (RULES.md
    §12): ``stood_reason``, the words of :func:`ban_text` in every language
    (``{language code: text}``: a view is built once for whoever's page), so
    the page says why they stand and until when after a reload too (the live
    notice is gone by then). One query, only for that view while the ban lasts."""
    result = state.get("result") or {}
    if (state.get("status") != "over" or user_id is None or seat is None
            or result.get("reason") != "moderator_kick" or result.get("abandoned_by") != seat):
        return {}
    ban = (Sanction.objects.active()
           .filter(user_id=user_id, kind=Sanction.TABLE_BAN, table__games__id=game_id)
           .order_by("-until").first())
    if ban is None:
        return {}
    return {"stood_reason": events.spoken(lambda: ban_text(ban))["texts"]}


def name_policy(text: str) -> None:
    """A table name may not contain a blocked word."""
    if not wordfilter.is_clean(text):
        raise Refused("blocked_word", _("That name contains a word that is not allowed."))
