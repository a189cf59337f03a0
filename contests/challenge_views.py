"""The daily challenge's pages and JSON API (docs/api.md "Daily challenge"):
thin, the rules live in ``contests.challenge*``.

Pages: ``/challenge/`` (today), ``/challenge/<date>/`` (a day's table, its
seed once closed), ``/challenge/<date>/<n>/`` (the player's board n); once a
day has closed both carry the 复盘 button of the player's own boards
(``contests.challenge_review``; the review page is the games app's).
API: ``GET /api/challenge/today``, ``POST /api/challenge/today/start``,
``GET /api/challenge/<date>``, and per board ``GET /api/challenge/board/<id>``,
``POST …/sync``, ``POST …/act`` (``{"seq", "action"}``), ``POST …/resume``,
``POST …/leave``.
A refusal answers ``{"ok": false, "reason", "message"}`` (400) and nothing
changed; an anonymous write 401. Every request first closes the days due
(``contests.challenge_close.close_due``, the lazy close).
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from contests import challenge, challenge_play, challenge_review
from contests.challenge_close import close_due
from contests.challenge_scores import Standing, standings
from contests.challenge_show import board_frame
from contests.models import ChallengeBoard, ChallengeDay, ChallengeEntry
from games import reviews, tables
from games.access import is_moderator
from games.adapters import ratelimit
from games.said import say_refused
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused, refused_json

PAGE_ROWS = 50



def _unauthorized() -> JsonResponse:
    return JsonResponse({"ok": False, "reason": "login_required",
                         "message": _("Log in first.")}, status=401)


def board_path(board: ChallengeBoard) -> str:
    """The page of a board: ``/challenge/<date>/<n>/``."""
    return f"/challenge/{board.day.date.isoformat()}/{board.number}/"


def _day(iso: str) -> ChallengeDay:
    try:
        when = date.fromisoformat(iso)
    except ValueError:
        raise Http404 from None
    return get_object_or_404(ChallengeDay, date=when)


def _mine(day: ChallengeDay, user: Any) -> list[ChallengeBoard]:
    if not user.is_authenticated:
        return []
    return list(ChallengeBoard.objects.filter(day=day, user=user).order_by("number"))


def _own_standing(table: list[Standing], user: Any) -> Standing | None:
    return next((s for s in table if user.is_authenticated and s.user_id == user.pk), None)


def streak(user: User, today: date) -> int:
    """Days in a row, up to today (or yesterday while today is unfinished), on
    which the user finished all of a day's boards."""
    days = set(ChallengeEntry.objects.filter(user=user).annotate(
        done=Count("boards", filter=Q(boards__status=ChallengeBoard.DONE)))
        .filter(done=settings.CHALLENGE_BOARDS).values_list("day__date", flat=True))
    when = today if today in days else today - timedelta(days=1)
    count = 0
    while when in days:
        count, when = count + 1, when - timedelta(days=1)
    return count


def _table_page(day: ChallengeDay, page: Any) -> tuple[list[dict[str, Any]], Any]:
    """One page (≤ 50 rows) of the day's ranked table: a constant number of
    queries (the stored places once closed, one query of boards before)."""
    if day.closed:
        qs = (ChallengeEntry.objects.filter(day=day, ranked=True, result__isnull=False)
              .select_related("user").annotate(done=Count("boards"))
              .order_by("place", "user__username"))
        stored = Paginator(qs, PAGE_ROWS).get_page(page)
        rows = [{"place": e.place, "player": e.user.username, "result": round(e.result or 0, 2),
                 "boards": e.done, "prize": e.prize} for e in stored]
        return rows, stored
    ranked = [s for s in standings(day) if s.ranked]
    live = Paginator(ranked, PAGE_ROWS).get_page(page)
    rows = [{"place": s.place, "player": s.username,
             "result": None if s.result is None else round(s.result, 2),
             "boards": s.boards, "prize": 0} for s in live]
    return rows, live


def _review_rows(day: ChallengeDay, mine: list[ChallengeBoard],
                 user: Any) -> list[tuple[ChallengeBoard, str | None, str]]:
    """Each of the player's boards with its 复盘's status (``None``: no button,
    the day is open) and the review's path (one query)."""
    if not day.closed:
        return [(b, None, "") for b in mine]
    found = reviews.statuses(challenge_review.NAME, [b.pk for b in mine], user)
    return [(b, found[b.pk], challenge_review.review_path(b)) for b in mine]


@never_cache
def today_page(request: HttpRequest) -> HttpResponse:
    """每日挑战: today's commitment, boards and your progress, the start /
    continue button, the day's table, your days and streak. Never cached, so
    Back from a board shows 继续, not the 开始 of before (a tester's)."""
    close_due()
    day = challenge.today()
    return _day_page(request, day, today=True)


def day_page(request: HttpRequest, iso: str) -> HttpResponse:
    """One day's page: its table, and its seed once closed."""
    close_due()
    return _day_page(request, _day(iso), today=False)


def _day_page(request: HttpRequest, day: ChallengeDay, today: bool) -> HttpResponse:
    rows, paged = _table_page(day, request.GET.get("page"))
    mine = _mine(day, request.user)
    own = _own_standing(standings(day), request.user) if not day.closed else None
    entry = (ChallengeEntry.objects.filter(day=day, user=request.user).first()
             if request.user.is_authenticated else None)
    days = (ChallengeEntry.objects.filter(user=request.user).select_related("day")
            .order_by("-day__date")[:10] if request.user.is_authenticated else [])
    return render(request, "contests/challenge.html", {
        "day": day, "today": today, "rows": rows, "paged": paged, "mine": mine,
        "mine_rows": _review_rows(day, mine, request.user),
        "open_board": next((b for b in mine if b.status != ChallengeBoard.DONE), None),
        "done": sum(1 for b in mine if b.status == ChallengeBoard.DONE),
        "boards": settings.CHALLENGE_BOARDS, "own": own, "entry": entry, "days": days,
        "streak": streak(request.user, challenge.local_date())
        if request.user.is_authenticated else 0,
        "close_time": challenge.close_time(day.date),
        "busy": tables.busy_elsewhere(request.user)
        if today and request.user.is_authenticated else None,
    })


@login_required
def board_page(request: AuthenticatedHttpRequest, iso: str, number: str) -> HttpResponse:
    """The player's board ``number`` of a day; with ``?user=<name>`` anyone's,
    read-only, once the day has closed (a replay, free), or for a moderator."""
    close_due()
    day = _day(iso)
    qs = ChallengeBoard.objects.filter(day=day, number=int(number)).select_related("day", "user")
    name = request.GET.get("user")
    board = (qs.filter(user__username=name).first()
             if name and (day.closed or is_moderator(request.user))
             else qs.filter(user=request.user).first())
    if board is None:
        raise Http404
    own = board.user_id == request.user.pk
    review = (reviews.statuses(challenge_review.NAME, [board.pk], request.user)[board.pk]
              if own and day.closed else None)
    # a board of the day not dealt yet: the finished board offers "next board"
    more = own and (ChallengeBoard.objects.filter(day=day, user=request.user).count()
                    < settings.CHALLENGE_BOARDS)
    return render(request, "contests/challenge_board.html", {
        "board": board, "frame": board_frame(board), "own": own, "review": review,
        "review_path": challenge_review.review_path(board),
        "strings": {**board_strings(own), "more": "1" if more else "0"},
    })


def board_strings(own: bool) -> dict[str, Any]:
    """The translated words of the board page's script (static/contests/challenge_board.js)."""
    return {
        "seats": [_("North (bot partner)"), _("East (bot)"), _("You"), _("West (bot)")],
        "pass": _("Pass"), "nothing_beats": _("Nothing in your hand beats this: pass."),
        "your_turn": _("Your turn"), "waiting": _("Waiting…"),
        "paused": _("Paused after two timeouts: press Resume to go on."),
        "timed_out": _("Time ran out: the clock passed for you (or, on your lead, "
                       "played one of your cards)."),
        "earlier": _("… %(n)s earlier plays in this trick"),
        "done": _("Board over"), "raw": _("Your score (North–South)"),
        "mp": _("Matchpoints"), "field": _("The field on this board"),
        "seconds_left": _("seconds left"), "dao": _("Dao"), "indicator": _("Indicator"),
        "dealt_to": _("dealt to %(name)s"),  # the table's words (games/ui.py)
        "cards": _("cards"), "next": _("Next board"), "own": "1" if own else "0",
        "best": _("The field's best on this deal"), "replay": _("Replay"),
        "prev": _("Previous"), "step": _("Next"), "player": _("Player"),
        "colon": pgettext("label separator", ": "),  # "：" in Chinese
        # the jokers' names as the table's card corners give them
        "big_joker": pgettext("card corner, big joker", "BIG"),
        "small_joker": pgettext("card corner, small joker", "SMALL"),
    }


@require_GET
def api_today(request: HttpRequest) -> JsonResponse:
    """``{"date", "commitment", "boards": 8, "played": n, "result": number|null}``:
    ``played`` and ``result`` (your provisional average %, all boards done) are
    the requester's (0 and null when anonymous)."""
    close_due()
    day = challenge.today()
    own = _own_standing(standings(day), request.user)
    return JsonResponse({"date": day.date.isoformat(), "commitment": day.commitment,
                         "boards": settings.CHALLENGE_BOARDS,
                         "played": own.boards if own else 0,
                         "result": None if own is None or own.result is None
                         else round(own.result, 2)})


@require_POST
def api_start(request: HttpRequest) -> HttpResponse:
    """Start or continue: ``{"ok": true, "path": "/challenge/<date>/<n>/", "board": id}``."""
    if not request.user.is_authenticated:
        return _unauthorized()
    close_due()
    try:
        board = challenge_play.start(request.user, address=request.META.get("REMOTE_ADDR"))
    except Refused as e:
        if "application/json" not in request.headers.get("Accept", ""):
            say_refused(request, e)
            return redirect("challenge")  # the page's form without JavaScript
        return refused_json(e)
    if "application/json" not in request.headers.get("Accept", ""):
        return redirect(board_path(board))
    return JsonResponse({"ok": True, "path": board_path(board), "board": board.pk})


@require_GET
def api_day(request: HttpRequest, iso: str) -> JsonResponse:
    """``{"date", "commitment", "closed", "server_seed" (once closed), "boards",
    "rows": [{"place", "player", "result", "boards", "prize"}], "page", "pages"}``:
    the day's ranked table, 50 rows a page (``?page=``)."""
    close_due()
    day = _day(iso)
    rows, paged = _table_page(day, request.GET.get("page"))
    out: dict[str, Any] = {"date": day.date.isoformat(), "commitment": day.commitment,
                           "closed": day.closed, "boards": settings.CHALLENGE_BOARDS,
                           "bot": day.bot_policy, "bot_version": day.bot_version,
                           "rows": rows, "page": paged.number,
                           "pages": paged.paginator.num_pages}
    if day.closed:
        out["server_seed"] = day.server_seed
    return JsonResponse(out)


@require_GET
def api_board(request: HttpRequest, board_id: int) -> JsonResponse:
    """The board as its player may see it (``contests.challenge_show``);
    anyone's once its day has closed; moderators may read anyone's."""
    if not request.user.is_authenticated:
        return _unauthorized()
    board = ChallengeBoard.objects.select_related("day", "user").filter(pk=board_id).first()
    if board is None or (board.user_id != request.user.pk and not board.day.closed
                         and not is_moderator(request.user)):
        return JsonResponse({"ok": False, "reason": "no_board",
                             "message": _("There is no such board.")}, status=404)
    return JsonResponse({"ok": True, "board": board_frame(board)})


def _body(request: HttpRequest) -> dict[str, Any]:
    try:
        data = json.loads(request.body or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@require_POST
def api_board_write(request: HttpRequest, board_id: str, what: str) -> JsonResponse:
    """``sync`` (a sign of life), ``leave`` (the page is left: the clock
    stops), ``act`` (``{"seq", "action"}``) or ``resume``: ``{"ok": true,
    "board": frame}``; ``why`` (``{"action"}``, read only): ``{"ok": true,
    "why": {"seq", "legal", "reason", "message"}}``. ``act``, ``resume`` and
    ``why`` are rate-limited with the tables' actions (``GAMES_ACTION_RATE``:
    429 ``rate_limited``)."""
    if not request.user.is_authenticated:
        return _unauthorized()
    close_due()
    user, pk = request.user, int(board_id)
    # moves and resumes share the tables' action budget (one seat per person, §12)
    if what in ("act", "resume", "why") and not ratelimit.allow(f"act:{user.pk}",
                                                         *settings.GAMES_ACTION_RATE):
        return refused_json(Refused("rate_limited", _("Slow down: too many actions.")), 429)
    try:
        if what == "sync":
            board = challenge_play.sync(pk, user)
        elif what == "leave":
            board = challenge_play.leave(pk, user)
        elif what == "resume":
            board = challenge_play.resume(pk, user)
        elif what == "why":
            return JsonResponse({"ok": True, "why": challenge_play.why(
                pk, user, _body(request).get("action"))})
        else:
            data = _body(request)
            board = challenge_play.act(pk, user, data.get("seq"), data.get("action"),
                                       address=request.META.get("REMOTE_ADDR"))
    except Refused as e:
        return refused_json(e)
    return JsonResponse({"ok": True, "board": board_frame(board)})
