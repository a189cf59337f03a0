"""复盘's page and its progress endpoint (docs/api.md "Reviews").

Thin: asking, running and reading are :mod:`games.reviews`. Only a game's own
players reach any of it, each for their own seat (anyone else, a visitor
included, gets a 404 as if the game had no review); the page is rendered on
the server with the step-through's data for that seat only.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games import results, reviews, ui
from games.models import Game, GameReview
from games.roster import players_of
from yuanzi_site.refusals import Refused


def label_names() -> dict[str, str]:
    """The labels in the visitor's language: 好, 不精确, 失误, 大错."""
    return {"good": _("Good"), "inexact": _("Inexact"), "mistake": _("Mistake"),
            "blunder": _("Blunder")}


@require_http_methods(["GET", "POST"])
@login_required
def review_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """``/games/<id>/review/``: GET the page (the button to ask, the progress bar
    while it is made, the review when done); POST asks for it
    (:func:`games.reviews.request_review`) and comes back here (a refusal is
    the page's message)."""
    try:
        game, seat, row = reviews.review_for(game_id, request.user)
    except Refused as e:
        raise Http404(str(e)) from None
    if request.method == "POST":
        try:
            reviews.request_review(game_id, request.user)
        except Refused as e:
            messages.error(request, str(e))
        return redirect("game_review", game_id=game_id)
    progress = reviews.progress_of(row)
    data, counts = None, []
    if row is not None and progress["status"] == GameReview.DONE and row.result is not None:
        data = reviews.page_data(game, seat, row.result)
        labels = label_names()
        counts = [{"label": k, "text": labels[k], "n": n} for k, n in data["counts"].items()]
        for c in data["costliest"]:
            dao = data["steps"][c["step"]]["dao"]
            c["label_text"] = labels[c["label"]]
            c["made_faces"] = [results.card_face(x, dao) for x in reversed(c["made"])]
            c["best_faces"] = [results.card_face(x, dao) for x in reversed(c["best"])]
    names = ui.player_names(players_of(game))
    return render(request, "games/review.html", {
        "game": game, "seat": seat, "running": game.status != Game.OVER,
        "progress": progress, "data": data, "names": names, "counts": counts,
        "seat_name": ui.seat_names()[seat], "my_name": names[seat],
        "thresholds": [int(x) if float(x).is_integer() else x
                       for x in settings.GAMES_REVIEW_THRESHOLDS],
        "strings": ui.review_strings(), "seat_names": ui.seat_names(),
    })


@require_http_methods(["GET", "POST"])
def review_api(request: HttpRequest, game_id: int) -> JsonResponse:
    """``GET /api/games/<id>/review`` → the progress (:func:`games.reviews.progress_of`:
    ``{status, done, total, position}``); ``POST`` asks for the review → ``{"ok":
    true, …progress}`` or 400 ``{"ok": false, "reason", "message"}``. 401 for a
    visitor, 404 ``not_seated`` for anyone but the game's players."""
    if not request.user.is_authenticated:
        return JsonResponse({"ok": False, "reason": "login_required",
                             "message": "log in first"}, status=401)
    try:
        _game, _seat, row = reviews.review_for(game_id, request.user)
    except Refused as e:
        return JsonResponse({"ok": False, "reason": e.reason, "message": str(e)}, status=404)
    if request.method == "POST":
        try:
            row = reviews.request_review(game_id, request.user)
        except Refused as e:
            return JsonResponse({"ok": False, "reason": e.reason, "message": str(e),
                                 **e.params}, status=400)
    return JsonResponse({"ok": True, **reviews.progress_of(row)})

