"""The weekly board's page, and the JSON API of the weekly board, daily tasks
and achievements (docs/api.md): thin, the rules live in
:mod:`contests.weekly`, :mod:`contests.quests` and :mod:`contests.achievements`.

Answers follow docs/api.md: ``{"ok": false, "reason", "message"}`` with 400 for
a refusal, 401 JSON when not logged in, 404 ``no_user``.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from contests import achievements, quests, weekly
from yuanzi_site.refusals import Refused, refused_json


def _unauthorized() -> JsonResponse:
    return JsonResponse({"ok": False, "reason": "login_required",
                         "message": _("Log in first.")}, status=401)


def weekly_page(request: HttpRequest) -> HttpResponse:
    """``/weekly/?page=``: this week's top 100 (周榜), 50 a page, and your own place."""
    me = request.user.pk if request.user.is_authenticated else None
    board = weekly.board(me, weekly.page_number(request.GET.get("page")))
    return render(request, "contests/weekly.html", {"board": board})


@require_GET
def api_weekly(request: HttpRequest) -> JsonResponse:
    """``GET /api/weekly?page=`` → :func:`contests.weekly.board` with ``next``
    (the next page's URL, or ``null``) instead of ``more``; ``me`` is ``null``
    for an anonymous visitor."""
    me = request.user.pk if request.user.is_authenticated else None
    board = weekly.board(me, weekly.page_number(request.GET.get("page")))
    more = board.pop("more")
    board["next"] = f"{reverse('api_weekly')}?page={board['page'] + 1}" if more else None
    return JsonResponse(board)


@require_GET
def api_tasks(request: HttpRequest) -> JsonResponse:
    """``GET /api/tasks`` → :func:`contests.quests.status` of the logged-in player."""
    if not request.user.is_authenticated:
        return _unauthorized()
    return JsonResponse(quests.status(request.user.pk))


@require_POST
def api_claim(request: HttpRequest, code: str) -> JsonResponse:
    """``POST /api/tasks/<id>/claim`` → ``{"ok": true, "task": {...}}``, or a
    refusal (``task_unknown``, ``reward_locked``, ``task_not_done``,
    ``task_claimed``); the coins' ``me`` frame follows on the per-user channel."""
    if not request.user.is_authenticated:
        return _unauthorized()
    try:
        task = quests.claim(request.user.pk, code)
    except Refused as e:
        return refused_json(e)
    return JsonResponse({"ok": True, "task": task})


@require_GET
def api_achievements(request: HttpRequest, username: str) -> JsonResponse:
    """``GET /api/users/<username>/achievements`` → ``{"username",
    "achievements": [...], "badges": [{"week", "place", "points"}]}`` (public,
    as a profile is)."""
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        return JsonResponse({"ok": False, "reason": "no_user",
                             "message": _("No such player.")}, status=404)
    return JsonResponse({
        "username": user.username,
        "achievements": achievements.profile_list(user.pk),
        "badges": [{"week": b.week.isoformat(), "place": b.place, "points": b.points}
                   for b in weekly.badges_of(user.pk)],
    })
