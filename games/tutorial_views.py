"""The tutorial's pages and JSON endpoints (docs/api.md "Tutorial").

Thin: the lessons and their judging are :mod:`games.tutorial`; here only the
HTTP shapes and an account's progress (:class:`games.models.TutorialProgress`).
No table or game row is touched, and a lesson in progress is kept nowhere:
every request names its step. Open to visitors; only an account's
completions are stored (a visitor's page keeps them in localStorage, and hands
them to the account once its owner logs in: :func:`api_sync`).

One seat per person (RULES.md §12): while an account plays a running game, a
lesson's page says so with the way back and its plays are refused
(``seated_elsewhere``); a play leaves a waiting seat (the notice
``tutorial_left_seat`` tells the table's pages why).
"""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games import explain, tables, tutorial, ui
from games.models import TutorialProgress
from yuanzi_site.refusals import Refused, refused_json


def _lang() -> str:
    return explain.lang_of(translation.get_language())


def completed(user: Any) -> set[str]:
    """The lesson codes ``user`` finished (empty for a visitor)."""
    if not user.is_authenticated:
        return set()
    return set(TutorialProgress.objects.filter(user=user).values_list("lesson", flat=True))


def _lessons(user: Any) -> list[dict[str, Any]]:
    done = completed(user)
    lang = _lang()
    return [{**tutorial.lesson_summary(i, lang), "done": tutorial.lesson(i).code in done}
            for i in range(1, tutorial.COUNT + 1)]


def _error(e: tutorial.TutorialError) -> JsonResponse:
    status = 404 if e.code == "no_lesson" else 400
    return JsonResponse({"error": e.code, "message": str(e)}, status=status)


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    """``/tutorial/``: the eight lessons, ticked when finished."""
    return render(request, "games/tutorial.html", {
        "lessons": _lessons(request.user), "lesson": None,
        "strings": ui.tutorial_strings(), "saved": request.user.is_authenticated})


@require_GET
def page(request: HttpRequest, n: int) -> HttpResponse:
    """``/tutorial/<n>/``: lesson ``n``'s page (static/js/tutorial.js plays it)."""
    try:
        summary = tutorial.lesson_summary(n, _lang())
    except tutorial.TutorialError as e:
        raise Http404(str(e)) from e
    busy = tables.busy_elsewhere(request.user) if request.user.is_authenticated else None
    return render(request, "games/tutorial.html", {
        "lessons": _lessons(request.user), "lesson": summary, "busy": busy,
        "strings": ui.tutorial_strings(), "saved": request.user.is_authenticated})


@require_GET
def api_step(request: HttpRequest, n: int) -> JsonResponse:
    """``GET /api/tutorial/<n>?step=k`` → ``{lesson, step, done}`` (step 0 by default)."""
    raw = request.GET.get("step", "0")
    try:
        index = int(raw) if raw.isdigit() else -1
        lang = _lang()
        return JsonResponse({"lesson": tutorial.lesson_summary(n, lang),
                             "step": tutorial.step_view(n, index, lang),
                             "done": tutorial.lesson(n).code in completed(request.user)})
    except tutorial.TutorialError as e:
        return _error(e)


def _body(request: HttpRequest) -> dict[str, Any]:
    try:
        data = json.loads(request.body or b"{}")
    except ValueError as e:
        raise tutorial.TutorialError("bad_request", "the body must be a JSON object") from e
    if not isinstance(data, dict):
        raise tutorial.TutorialError("bad_request", "the body must be a JSON object")
    return data


@require_POST
def api_play(request: HttpRequest, n: int) -> JsonResponse:
    """``POST /api/tutorial/<n>/play`` ``{step, cards}`` or ``{step, choice}`` →
    ``{ok, explanation, after, next, token}`` (:func:`games.tutorial.judge`);
    for an account playing a running game 400 ``{"ok": false, "reason":
    "seated_elsewhere", "message", "params": {"table_id"}}`` (RULES.md §12)."""
    try:
        data = _body(request)
        judged = tutorial.judge(n, data.get("step"), cards=data.get("cards"),
                                choice=data.get("choice"), lang=_lang())
    except tutorial.TutorialError as e:
        return _error(e)
    if request.user.is_authenticated:
        try:
            seat = tables.waiting_seat_or_refuse(request.user)
        except Refused as e:
            return refused_json(e)
        tables.leave_waiting_seat(seat, request.user, "tutorial_left_seat", lambda: _(
            "You started a tutorial lesson, so your seat here is free again."))
    return JsonResponse(judged)


@require_POST
def api_complete(request: HttpRequest, n: int) -> JsonResponse:
    """``POST /api/tutorial/<n>/complete`` ``{token}`` → ``{lesson, saved}``:
    an account's completion is stored (once; the first time is kept), a
    visitor's is not (``saved`` false: the page keeps it)."""
    try:
        code = tutorial.verify_token(n, _body(request).get("token"))
    except tutorial.TutorialError as e:
        return _error(e)
    if request.user.is_authenticated:
        TutorialProgress.objects.get_or_create(user=request.user, lesson=code)
    return JsonResponse({"lesson": code, "saved": request.user.is_authenticated})


@require_POST
def api_sync(request: HttpRequest) -> JsonResponse:
    """``POST /api/tutorial/sync`` ``{lessons: [n, …]}`` → ``{saved, done}``:
    the lessons this browser finished while logged out (its localStorage) are
    added to the signed-in account, so the index, the lobby's offer and the
    account's other browsers agree. Only real lesson numbers (1…COUNT) are
    taken; anything else is ``400 bad_request`` and nothing is stored. ``saved``
    lists the codes newly stored, ``done`` all the account's codes. A visitor
    gets ``403 login_required`` (the page keeps their progress). CSRF-checked as
    every POST of the site."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "login_required",
                             "message": "log in to save progress to an account"}, status=403)
    try:
        raw = _body(request).get("lessons")
        if not isinstance(raw, list) or len(raw) > tutorial.COUNT or not all(
                isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= tutorial.COUNT
                for n in raw):
            raise tutorial.TutorialError(
                "bad_request", f"lessons must be a list of lesson numbers 1–{tutorial.COUNT}")
    except tutorial.TutorialError as e:
        return _error(e)
    codes = {tutorial.lesson(n).code for n in raw}
    had = completed(request.user)
    new = sorted(codes - had, key=tutorial.CODES.index)
    TutorialProgress.objects.bulk_create(
        [TutorialProgress(user=request.user, lesson=code) for code in new],
        ignore_conflicts=True)
    return JsonResponse({"saved": new, "done": [c for c in tutorial.CODES if c in had | codes]})
