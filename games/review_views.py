"""复盘's page and its progress endpoint (docs/api.md "Reviews").

Thin: asking, running and reading are :mod:`games.reviews`. A game's review is
``/games/<id>/review/``; another app's record (a daily challenge board) is
``/reviews/<kind>/<ref>/``, through the plugin seam
(:class:`games.plugins.ReviewKind`): the same page, the same JSON. Only the
record's own player reaches any of it, for their own seat (anyone else, a
visitor included, gets a 404 as if there were no review); the page is rendered
on the server with the step-through's data for that seat only.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games import results, reviews, ui
from games.models import GameReview
from yuanzi_site.refusals import Refused, refused_json


def label_names() -> dict[str, str]:
    """The labels in the visitor's language: 好, 不精确, 失误, 大错."""
    return {"good": _("Good"), "inexact": _("Inexact"), "mistake": _("Mistake"),
            "blunder": _("Blunder")}


def _urls(kind: str, ref: int) -> tuple[str, str]:
    """The page's and the progress JSON's paths of the record ``(kind, ref)``."""
    if kind == GameReview.GAME:
        return reverse("game_review", args=[ref]), reverse("game_review_api", args=[ref])
    return reverse("review", args=[kind, ref]), reverse("review_api", args=[kind, ref])


def _page(request: HttpRequest, kind: str, ref: int) -> HttpResponse:
    try:
        target, row = reviews.review_of(kind, ref, request.user)
    except Refused as e:
        # a 404 as if there were no review, saying why in the page's words
        return render(request, "404.html", {"message": str(e)}, status=404)
    page_url, api_url = _urls(kind, ref)
    if request.method == "POST":
        try:
            reviews.request(kind, ref, request.user)
        except Refused as e:
            messages.error(request, str(e))
        return redirect(page_url)
    progress = reviews.progress_of(row)
    data, counts = None, []
    if row is not None and progress["status"] == GameReview.DONE and row.result is not None:
        data = reviews.page_data(row)
        labels = label_names()
        counts = [{"label": k, "text": labels[k], "n": n} for k, n in data["counts"].items()]
        for c in data["costliest"]:
            dao = data["steps"][c["step"]]["dao"]
            c["label_text"] = labels[c["label"]]
            c["made_faces"] = [results.card_face(x, dao) for x in reversed(c["made"])]
            c["best_faces"] = [results.card_face(x, dao) for x in reversed(c["best"])]
    return render(request, "games/review.html", {
        "subject": target, "seat": target.seat, "page_url": page_url, "api_url": api_url,
        "not_yet": str(target.not_yet) if target.not_yet is not None else "",
        "progress": progress, "data": data, "names": target.names, "counts": counts,
        "seat_name": ui.seat_names()[target.seat], "my_name": target.names[target.seat],
        "thresholds": [int(x) if float(x).is_integer() else x
                       for x in settings.GAMES_REVIEW_THRESHOLDS],
        "strings": ui.review_strings(), "seat_names": ui.seat_names(),
    })


@require_http_methods(["GET", "POST"])
@login_required
def review_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """``/games/<id>/review/``: GET the page (the button to ask, the progress bar
    while it is made, the review when done); POST asks for it
    (:func:`games.reviews.request_review`) and comes back here (a refusal is
    the page's message)."""
    return _page(request, GameReview.GAME, game_id)


@require_http_methods(["GET", "POST"])
@login_required
def record_review_page(request: HttpRequest, kind: str, ref: int) -> HttpResponse:
    """``/reviews/<kind>/<ref>/``: the same page for a plugin kind's record (a
    daily challenge board: ``/reviews/challenge/<board id>/``); before it may
    be reviewed it says why and offers no button."""
    return _page(request, kind, ref)


def _api(request: HttpRequest, kind: str, ref: int) -> JsonResponse:
    if not request.user.is_authenticated:
        return JsonResponse({"ok": False, "reason": "login_required",
                             "message": "log in first"}, status=401)
    try:
        _target, row = reviews.review_of(kind, ref, request.user)
    except Refused as e:
        return refused_json(e, status=404)
    if request.method == "POST":
        try:
            row = reviews.request(kind, ref, request.user)
        except Refused as e:
            return JsonResponse({"ok": False, "reason": e.reason, "message": str(e),
                                 **e.params}, status=400)
    return JsonResponse({"ok": True, **reviews.progress_of(row)})


@require_http_methods(["GET", "POST"])
def review_api(request: HttpRequest, game_id: int) -> JsonResponse:
    """``GET /api/games/<id>/review`` → the progress (:func:`games.reviews.progress_of`:
    ``{status, done, total, position}``); ``POST`` asks for the review → ``{"ok":
    true, …progress}`` or 400 ``{"ok": false, "reason", "message"}``. 401 for a
    visitor, 404 ``not_seated`` for anyone but the game's players."""
    return _api(request, GameReview.GAME, game_id)


@require_http_methods(["GET", "POST"])
def record_review_api(request: HttpRequest, kind: str, ref: int) -> JsonResponse:
    """``GET`` / ``POST /api/reviews/<kind>/<ref>``: as :func:`review_api` for a
    plugin kind's record; 404 with the kind's reason (``no_board``) for anyone
    but its player, 400 ``challenge_open`` before a board's day has closed."""
    return _api(request, kind, ref)
