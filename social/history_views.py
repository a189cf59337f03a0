"""战绩 pages and JSON (docs/api.md "History"): thin, the reading is
:mod:`social.history` and :mod:`social.rating_graph`.

``/history/`` is the signed-in player's own (with the coins their games moved);
``/u/<username>/history/`` is anyone's, as everyone sees it (never coins, even
one's own). ``GET /api/me/games`` and ``GET /api/users/<username>/games`` are
the same lists as JSON (the second without ``coin_change``). A bad filter is
400 ``bad_message`` in the JSON and ignored on the pages.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import plugins, ui
from social import history, lists, rating_graph
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused, refused_json


def _user(username: str) -> User | None:
    return get_user_model().objects.filter(username=username, is_active=True).first()


def _next(request: HttpRequest, page: history.HistoryPage) -> str | None:
    if not page.has_next:
        return None
    query = request.GET.copy()
    query["page"] = str(page.number + 1)
    return f"{request.path}?{query.urlencode()}"


def _games_json(request: HttpRequest, user: User, *, coins: bool) -> JsonResponse:
    try:
        filters = history.parse_filters(request.GET)
    except Refused as e:
        return refused_json(e)
    page = history.games(user.pk, filters, lists.page_number(request.GET.get("page")),
                         coins=coins)
    return JsonResponse({"games": [r.as_json(coins=coins) for r in page.rows],
                         "next": _next(request, page)})


@require_GET
def api_my_games(request: HttpRequest) -> JsonResponse:
    """``GET /api/me/games?page=&kind=rated|practice&wager=1&partner=`` →
    ``{"games": [{"game_id", "ended_at", "table", "seat", "partner", "result",
    "reason", "points", "rating_change", "coin_change"}], "next"}``; 401 JSON
    for a visitor."""
    if not request.user.is_authenticated:
        return JsonResponse({"ok": False, "reason": "login_required",
                             "message": _("Log in first.")}, status=401)
    return _games_json(request, request.user, coins=True)


@require_GET
def api_user_games(request: HttpRequest, username: str) -> JsonResponse:
    """``GET /api/users/<username>/games`` (same filters): the same rows without
    ``coin_change``; an unknown username is 404 ``no_user``."""
    user = _user(username)
    if user is None:
        return JsonResponse({"ok": False, "reason": "no_user",
                             "message": _("No such player.")}, status=404)
    return _games_json(request, user, coins=False)


def _page(request: HttpRequest, user: User, *, own: bool) -> HttpResponse:
    try:
        filters = history.parse_filters(request.GET)
    except Refused:
        filters = history.Filters()
    n = lists.page_number(request.GET.get("page"))
    page = history.games(user.pk, filters, n, coins=own)
    lang = "zh" if (get_language() or "zh").startswith("zh") else "en"
    query = filters.query()
    older = urlencode({**query, "page": n + 1}) if page.has_next else None
    newer = urlencode({**query, "page": n - 1}) if n > 1 else None
    seat_names = ui.seat_names()
    stats = history.stats(user.pk, filters)
    context: dict[str, Any] = {
        "player_user": user, "own": own, "filters": filters, "stats": stats,
        "rows": [{"row": r, "seat": seat_names[r.seat],
                  "partner_bot": ui.bot_name(r.partner_bot) if r.partner_bot else ""}
                 for r in page.rows],
        "seat_stats": [{"index": i, "name": seat_names[i], "tally": t}
                       for i, t in enumerate(stats.seats)],
        "partner_min": history.PARTNER_MIN_GAMES,
        "graph": rating_graph.graph(user.pk, lang),
        "flags": [{"key": f.key, "label": f.label, "on": f.key in filters.flags}
                  for f in plugins.history_filters()],
        "older": older, "newer": newer,
    }
    return render(request, "social/history.html", context)


@login_required
def my_history(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/history/?kind=&partner=&wager=1&page=``: your finished games, newest
    first, ≤ 50 a page, with your coins; the rating graph and the statistics."""
    return _page(request, request.user, own=True)


def user_history(request: HttpRequest, username: str) -> HttpResponse:
    """``/u/<username>/history/``: a player's history as anyone sees it (no coins)."""
    user = _user(username)
    if user is None:
        raise Http404(username)
    return _page(request, user, own=False)
