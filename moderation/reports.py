"""Players' reports: from a table, a player reports a player or a
chat line of that table; moderators resolve or dismiss them in the console and
the reporter is told the outcome in general terms (``report_outcome``, kept
in their notification centre too: ``report_resolved`` / ``report_dismissed``).

Socket message (docs/protocol.md)::

    {"type": "report", "category": "chat_abuse", "user_id": 7, "line_id": 31,
     "note": "…"}

``category``: ``cheating``, ``chat_abuse``, ``stalling``, ``other``; ``line_id``
(a chat line of this table; its author is the reported player) or ``user_id``
(a player seated at this table or playing its current game); ``note`` ≤ 500
characters, optional. Reply: ``{"type": "reported", "id": <report id>}``. At
most ``MODERATION_REPORTS_PER_HOUR`` (5) an hour per reporter; the same player
at the same table once per :data:`REPEAT_WINDOW` while that report is open (a
double click on 发送 files one report).

Errors: :class:`yuanzi_site.refusals.Refused` — ``bad_report``, ``report_self``,
``already_reported``, ``report_limit``, ``no_table``; ``report_handled``, ``no_reason``,
``reason_too_long`` for a moderator's handling.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import inbox
from games import events, queries, wire
from games.models import ChatMessage, Game, GameSeat, Seat, Table
from games.plugins import SocketContext
from moderation.actions import _audit, clean_reason
from moderation.models import AuditEntry, Report
from yuanzi_site.refusals import Refused

#: a second report of the same player at the same table within this time is
#: refused while the first is open (a double click, or the same complaint twice)
REPEAT_WINDOW = timedelta(minutes=1)


def create_report(reporter: User, table_id: int, *, category: Any, user_id: Any = None,
                  line_id: Any = None, note: Any = "") -> Report:
    """File a report (see the module docstring for the fields; RULES.md §12
    "Moderators").

    :returns: the new ``Report``, open.
    :raises Refused: ``no_table``, ``bad_report``, ``report_self``;
        ``already_reported`` when the reporter's open report of the same player
        at this table is under :data:`REPEAT_WINDOW` old; ``report_limit``.
        Nothing is filed then.
    """
    table = Table.objects.filter(pk=table_id, closed=False).first()
    if table is None:
        raise Refused("no_table", _("This table does not exist or is closed."))
    if category not in dict(Report.CATEGORIES):
        raise Refused("bad_report", _("Choose what the report is about."))
    note = note if isinstance(note, str) else None
    if note is None or len(note.strip()) > Report.NOTE_MAX_LENGTH:
        raise Refused("bad_report", _("A note has at most 500 characters."))
    line = None
    target_id: int | None
    if line_id is not None:
        number = wire.whole(line_id)  # docs/protocol.md "Input rules" (no 10**30 to the DB)
        line = (ChatMessage.objects.filter(pk=number, table=table).first()
                if number is not None else None)
        if line is None:
            raise Refused("bad_report", _("There is no such chat line at this table."))
        target_id = line.user_id
    else:
        target_id = wire.whole(user_id)
        if target_id == reporter.pk:
            raise Refused("report_self", _("You cannot report yourself."))
        # no id: refused below without asking the database
        at_table = target_id is not None and (
            Seat.objects.filter(table=table, user_id=target_id).exists() or (
                table.current_game_id is not None and GameSeat.objects.filter(
                    game_id=table.current_game_id, user_id=target_id).exists()))
        if target_id is None or not at_table:
            raise Refused("bad_report", _("That player is not at this table."))
    if target_id == reporter.pk:
        raise Refused("report_self", _("You cannot report yourself."))
    with transaction.atomic():
        # the reporter's row serialises their reports (the hourly limit)
        # (and their repeats: two sends at once cannot both pass the check below)
        get_user_model().objects.select_for_update().filter(pk=reporter.pk).first()
        now = timezone.now()
        if Report.objects.filter(reporter=reporter, target_id=target_id, table=table,
                                 status=Report.OPEN,
                                 created_at__gte=now - REPEAT_WINDOW).exists():
            raise Refused("already_reported", _("You have just reported this player: a "
                                                "moderator will look at it."))
        hour_ago = now - timedelta(hours=1)
        if Report.objects.filter(reporter=reporter, created_at__gte=hour_ago).count() >= \
                settings.MODERATION_REPORTS_PER_HOUR:
            raise Refused("report_limit", _("You have made the most reports allowed in an "
                                            "hour; a moderator will look at them."))
        return Report.objects.create(
            reporter=reporter, target_id=target_id, table=table, chat_line=line,
            game_id=table.current_game_id, category=category, note=note.strip())


def handle_report_message(ctx: SocketContext, msg: dict[str, Any]) -> dict[str, Any]:
    """The ``report`` socket message: files a report, replies ``reported``."""
    report = create_report(ctx.user, ctx.table_id, category=msg.get("category"),
                           user_id=msg.get("user_id"), line_id=msg.get("line_id"),
                           note=msg.get("note", ""))
    return {"type": "reported", "id": report.pk}


def handle(moderator: User, report_id: Any, note: Any, *, resolved: bool) -> Report:
    """Resolve (a moderator acted) or dismiss a report with a note; the
    reporter gets a ``report_outcome`` notice in general terms.

    :raises Refused: ``report_handled`` (not open or missing), ``no_reason``,
        ``reason_too_long``.
    """

    note = clean_reason(note)
    with transaction.atomic():
        report_id = wire.whole(report_id)
        report = (Report.objects.select_for_update().filter(pk=report_id).first()
                  if report_id is not None else None)
        if report is None or report.status != Report.OPEN:
            raise Refused("report_handled", _("That report is not open."))
        report.status = Report.RESOLVED if resolved else Report.DISMISSED
        report.outcome_note, report.handled_by, report.handled_at = (
            note, moderator, timezone.now())
        report.save(update_fields=["status", "outcome_note", "handled_by", "handled_at"])
        _audit(moderator, AuditEntry.REPORT, note, user=report.target, table=report.table,
               before={"report": report.pk, "status": Report.OPEN},
               after={"status": report.status})
        def message() -> str:
            return (_("Thank you: a moderator looked at your report and took action.")
                    if resolved else
                    _("Thank you: a moderator looked at your report and took no action."))

        events.notify(report.reporter_id, "report_outcome", message,
                      {"report_id": report.pk, "outcome": report.status})
        inbox.post(report.reporter_id,
                   "report_resolved" if resolved else "report_dismissed", quiet=True)
        return report


def context(report: Report, around: int = 5) -> dict[str, Any]:
    """What a moderator sees with a report: ``lines`` (raw chat around the
    reported line, or the last lines before the report), ``record`` (the game's
    stored §11 record once the game is over — never of a running one),
    ``reporter_games`` / ``target_games`` (recent history)."""
    chat = ChatMessage.objects.filter(table_id=report.table_id).select_related("user")
    if report.chat_line_id:
        before = list(chat.filter(pk__lte=report.chat_line_id).order_by("-pk")[:around + 1])
        after = list(chat.filter(pk__gt=report.chat_line_id).order_by("pk")[:around])
        lines = [*reversed(before), *after]
    else:
        lines = list(reversed(chat.filter(created_at__lte=report.created_at)
                              .order_by("-pk")[:2 * around]))
    game = Game.objects.filter(pk=report.game_id).first() if report.game_id else None
    record = game.record if game is not None and game.status == Game.OVER else None
    return {
        "lines": [queries.chat_line(m) for m in lines],
        "record": record,
        "game": game,
        "reporter_games": queries.recent_games(report.reporter),
        "target_games": queries.recent_games(report.target),
    }
