"""复盘 of a daily challenge board (RULES.md §12 "Daily challenge"): its player
may ask for the review of their own decisions on each of their boards once the
board's day has closed, never before (the boards' records are hidden until
then). The review itself is the games app's (``games.reviews``: the same
engine judge, queue and limits, worker, cache and page), reached through the
plugin seam: :data:`KIND` is what ``contests.plugin`` hands it as the review
kind ``"challenge"``, the board's id its ``ref``.

Only the board's own player may ask or see it (anyone else: ``no_board``, a 404);
only seat 2's own decisions are judged, not a timeout's move (``clock``) nor
the bot's play-out at the close (``auto``): ``ChallengeBoard.moves_by``.
"""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import formats
from django.utils.translation import gettext as _

from contests import challenge
from contests.challenge_show import record
from contests.models import ChallengeBoard
from games.engine.shapes import Record
from games.plugins import Reviewable, ReviewKind
from yuanzi_site.refusals import Refused

#: the review kind's name in ``games.GameReview.kind`` and the review's URL
NAME = "challenge"


def names() -> list[str]:
    """The four seats' names on a board's review page: the bots and "You"."""
    return [_("North (bot partner)"), _("East (bot)"), _("You"), _("West (bot)")]


def find(ref: int, user: User) -> Reviewable:
    """Board ``ref`` as ``user``'s to review: its seat 2, ``not_yet``
    (``challenge_open``) until its day has closed.

    :raises Refused: ``no_board`` when it is not a board of ``user``'s.
    """
    board = (ChallengeBoard.objects.select_related("day")
             .filter(pk=ref, user_id=user.pk).first())
    if board is None:
        raise Refused("no_board", _("There is no such board."))
    day = board.day
    iso = day.date.isoformat()
    not_yet = None
    if not day.closed:
        when = challenge.close_time(day.date).astimezone(challenge.zone())
        not_yet = Refused("challenge_open", _(
            "A challenge board is reviewed once its day has closed (%(time)s Beijing time).")
            % {"time": formats.date_format(when, "Y-m-d H:i")})
    title = (_("Review of board %(n)s") % {"n": board.number}
             + f" · {_('Daily challenge')} {iso}")
    return Reviewable(
        kind=NAME, ref=board.pk, seat=challenge.PLAYER_SEAT, user_id=board.user_id,
        title=title, names=names(),
        links=[(reverse("challenge_board", args=[iso, board.number]), _("Back to the board")),
               (reverse("challenge_day", args=[iso]), _("The day's results"))],
        not_yet=not_yet)


def load(ref: int) -> tuple[Record, dict[int, str]]:
    """The closed board's record (``contests.challenge_show.record``: the first
    half, hands as dealt) and who chose what the player did not: the bots'
    seats (``bot``), a timeout's move (``clock``), the close's play-out
    (``auto``).

    :raises ValueError: before the day closes (the record is not served), or
        for a board that is not there.
    """
    board = ChallengeBoard.objects.select_related("day", "user").filter(pk=ref).first()
    if board is None:
        raise ValueError(f"no board {ref}")
    rec = cast(Record, record(board))
    by = {i: "bot" for i, (seat, _cards) in enumerate(rec["halves"][0]["actions"])
          if seat != challenge.PLAYER_SEAT}
    by.update({int(i): str(who) for i, who in board.moves_by.items()})
    return rec, by


def review_path(board: ChallengeBoard) -> str:
    """The review page of a board: ``/reviews/challenge/<id>/``."""
    return reverse("review", args=[NAME, board.pk])


KIND = ReviewKind(find=find, load=load)
"""What ``contests.plugin`` hands the games app (``GamePlugin.review_kinds``)."""
