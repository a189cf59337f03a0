"""Pages of the games app: lobby, create table, table + game page, a game's result,
the rules help page.

Thin: they read through ``games.snapshots`` / ``games.queries`` and game data
only through ``games.seatview`` (the one filter on what a client sees);
every change goes through the write modules (``games.tables`` …). The live parts run over the
websockets of ``games.adapters.consumers``.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import levels
from accounts.models import Profile
from games import access, fairness, phrases, plugins, results, reviews, snapshots, tables, ui
from games.adapters import ratelimit
from games.models import Game, Table
from games.queries import running_table
from games.said import say_refused
from games.seatview import game_view, seat_of, view_for
from yuanzi_site import markdown
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused


def rules(request: HttpRequest) -> HttpResponse:
    """``/rules/``: how to play (RULES.md §1–§8) and the site's own decisions.

    Two hand-written templates, one per language (the text is prose, not UI
    strings); the level ladder is rendered from ``LEVELS`` so it cannot drift.
    """
    lang = translation.get_language() or settings.LANGUAGE_CODE
    template = "games/rules_zh.html" if lang.startswith("zh") else "games/rules_en.html"
    ladder = [
        {"number": rung.number, "title": rung.title, "title_en": rung.title_en,
         "threshold": f"{rung.threshold:,}", "stake": rung.stake,
         "double": 2 * rung.stake}
        for rung in levels.LEVELS
    ]
    return render(request, template, {"levels": ladder})


def lobby(request: HttpRequest) -> HttpResponse:
    """Home page at ``/``: every open table, live-updated by ``static/js/lobby.js``;
    query parameters of registered lobby filters (``/?wager=40``) narrow the
    list in the database (``GamePlugin.lobby_filters``)."""
    return render(
        request,
        "games/lobby.html",
        {"tables": snapshots.lobby_rows(filters=plugins.lobby_filters(request.GET)),
         "filters": plugins.lobby_filter_form(request.GET),
         "strings": ui.lobby_strings(),
         "seat_names": ui.seat_names(),
         "running": running_table(request.user)},
    )


@require_http_methods(["GET", "POST"])
@login_required
def create_table(request: AuthenticatedHttpRequest) -> HttpResponse:
    """POST ``/tables/new/`` (optional ``name``, ``private=1``, and the plugins'
    fields, ``GamePlugin.on_table_opened``: ``min_finish_rate``): open a table
    with its creator seated (``games.tables.open_table``) and go to it. While
    they play a running game elsewhere it is refused (``seated_elsewhere``, back
    to the lobby, whose message links to that game) and nothing is opened; when
    a seat policy keeps them from sitting the page says so and asks them to sit
    down later.

    Rate-limited per user (``GAMES_TABLE_CREATE_RATE``); a GET goes to the lobby.
    """
    if request.method != "POST":
        return redirect("lobby")
    if not ratelimit.allow(f"table:{request.user.pk}", *settings.GAMES_TABLE_CREATE_RATE):
        messages.error(
            request, _("You are opening tables too fast. Wait a minute and try again.")
        )
        return redirect("lobby")
    try:
        table, unseated = tables.open_table(request.user, request.POST.get("name", ""),
                                            private=request.POST.get("private") == "1")
    except Refused as e:
        say_refused(request, e)
        return redirect("lobby")
    plugins.table_opened(table, request.user, request.POST)  # the form's other fields
    if unseated is not None:  # a seat policy's refusal (not a running game: refused above)
        say_refused(request, unseated, _("Your table is open. %(why)s Then sit down here.")
                    % {"why": str(unseated)}, messages.INFO)
    return redirect("table", table_id=table.pk)


@require_http_methods(["POST"])
@login_required
def practice(request: AuthenticatedHttpRequest) -> HttpResponse:
    """POST ``/tables/practice/`` with ``bot`` (``beginner``, ``normal``,
    ``expert``, ``master``): 和机器人练习 (``games.tables.practice``), a new table with the
    user and three bots, its game started; goes to it. Rate-limited with table
    creation (``GAMES_TABLE_CREATE_RATE``); a refusal goes back to the lobby."""
    if not ratelimit.allow(f"table:{request.user.pk}", *settings.GAMES_TABLE_CREATE_RATE):
        messages.error(
            request, _("You are opening tables too fast. Wait a minute and try again.")
        )
        return redirect("lobby")
    try:
        table = tables.practice(request.user, request.POST.get("bot", "normal"))
    except Refused as e:
        say_refused(request, e)
        return redirect("lobby")
    return redirect("table", table_id=table.pk)


@require_http_methods(["POST"])
@login_required
def quick_start(request: AuthenticatedHttpRequest) -> HttpResponse:
    """POST ``/tables/quick/``: 快速开始 (``games.tables.quick_start``); goes to
    the table, with ``?waiting=1`` when it waits for people (the page offers bots)."""
    try:
        table, alone = tables.quick_start(request.user)
    except Refused as e:
        say_refused(request, e)
        return redirect("lobby")
    url = reverse("table", args=[table.pk])
    return redirect(url + ("?waiting=1" if alone else ""))


@require_http_methods(["POST"])
@login_required
def join_by_code(request: AuthenticatedHttpRequest) -> HttpResponse:
    """POST ``/tables/join/`` with ``code``: a private table's 6-digit room code
    hands out its invite (10 tries a minute per user)."""
    if not ratelimit.allow(f"code:{request.user.pk}", 10, 60):
        messages.error(request, _("Too many room codes tried. Wait a minute and try again."))
        return redirect("lobby")
    # a Chinese input method in full-width mode types ６３７６４８, and the page
    # shows the code spaced out (4 5 9 2 4 0): the same code
    typed = unicodedata.normalize("NFKC", request.POST.get("code") or "")
    table = access.by_code("".join(typed.split()))
    if table is None:
        messages.error(request, _("No private table has that room code."))
        return redirect("lobby")
    _remember_invite(request, table)
    return redirect("table", table_id=table.pk)


def _remember_invite(request: HttpRequest, table: Table) -> None:
    invites = dict(request.session.get("invites", {}))
    invites[str(table.pk)] = table.invite_token
    request.session["invites"] = invites


def _me(request: HttpRequest) -> dict[str, Any]:
    # coins: the viewer's own balance (a wager table shows it; never anyone else's),
    # coins_held: the part a running wager game holds (RULES.md §12 "Held stake")
    user = request.user
    if not user.is_authenticated:
        return {"id": None, "username": None}
    coins, held = Profile.objects.filter(user=user).values_list(
        "coins", "coins_held").first() or (None, 0)
    return {"id": user.pk, "username": user.username, "coins": coins, "coins_held": held}


def _sit_refused(table: Table, user: Any, snap: snapshots.TableSnapshot) -> str | None:
    """Why ``user``, standing at ``table``, may not sit there now (the seat
    checks' refusal: a moderator's table ban, a wager's coins; RULES.md §12),
    said by the page as it loads; ``None`` for a visitor or a seated player."""
    if not user.is_authenticated or any(
            s["player"] and s["player"]["id"] == user.pk for s in snap["seats"]):
        return None
    try:
        plugins.check_seat(table, user, "sit")
    except Refused as refusal:
        return str(refusal)
    return None


@never_cache
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/``: the table and its game. The first picture is embedded
    (the table snapshot and this user's own ``view_for``; never cached, so Back
    to a table shows it as it is now, not a stale board a tester found); the
    rest comes over ``/ws/table/<id>/``. A private table opens only with its invite
    (``?invite=<token>``, then remembered in the session) or for insiders
    (``games.access``); otherwise it is a 404 like a table that does not exist.
    With spectators off a standing invite holder gets no game view
    (``access.watch_barred``); ``boot.me.may_watch`` (owner, moderator) lets
    the page tell them apart."""
    invite = request.GET.get("invite")
    token = invite or request.session.get("invites", {}).get(str(table_id))
    found = access.open_table(table_id, request.user, token)
    snap = snapshots.table_snapshot(table_id) if found is not None else None
    if found is None or snap is None:
        raise Http404(_("This table does not exist or is closed."))
    if invite and found.private:
        _remember_invite(request, found)
    moderator = access.is_moderator(request.user)
    barred = access.watch_barred(snap, request.user, moderator)
    view = None if barred else game_view(snap["game_id"], request.user,
                                         snapshots.emptied(snap))
    me = _me(request)
    if request.user.is_authenticated:  # spectators off: the owner and moderators still watch
        me["may_watch"] = moderator or snap["owner_id"] == request.user.pk
    boot = {
        "table": access.without_link(snap, request.user, token, moderator),
        "view": view,
        "waiting_alone": request.GET.get("waiting") == "1",
        "phrases": phrases.phrases(),
        "phrase_labels": phrases.labels(),
        "reactions_from": phrases.reactions_from(),
        "me": me,
        "sit_refused": _sit_refused(found, request.user, snap),
        "ws_path": f"/ws/table/{table_id}/",
        "login_url": f"{reverse('account_login')}?next={request.path}",
        "levels": [
            {"title": levels.title_for(n), "title_en": levels.title_en_for(n)}
            for n in range(len(levels.LEVELS))
        ],
        # the plugins' parts of the page, through the import map (static/js/table.js)
        "page_modules": [settings.STATIC_URL + path for path in plugins.page_modules()],
    }
    return render(
        request,
        "games/table.html",
        {"table": snap, "boot": boot, "strings": ui.table_strings(),
         # the link preview's (Open Graph) figures: seats taken
         "seated": sum(1 for s in snap["seats"] if s["player"] or s["bot"])},
    )


def game_result(request: HttpRequest, game_id: int) -> HttpResponse:
    """``/games/<id>/``: a finished game's result. While it runs nothing of it is
    shown (only a link to its table). The link to the table is given only
    while the table is open and the viewer may open it (``games.access``)."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    # 去牌桌 only where it opens: a 好友房 is a 404 without its invite (a tester's dead end)
    token = request.session.get("invites", {}).get(str(game.table_id))
    table_open = access.open_table(game.table_id, request.user, token) is not None
    if game.status != Game.OVER:
        return render(request, "games/result.html",
                      {"game": game, "running": True, "table_open": table_open})
    view = view_for(game, seat_of(game, request.user))
    shown = fairness.public(game.state)
    fair = None
    if shown and game.record:  # recomputed from the record on every view (docs/fairness.md)
        problems = fairness.check(game.record, shown)
        fair = {"public": shown, "problems": problems, "ok": not problems}
    return render(
        request,
        "games/result.html",
        {"game": game, "running": False, "summary": results.result_summary(view), "fair": fair,
         "review": reviews.status_for(game, request.user), "table_open": table_open},
    )


def fairness_doc(request: HttpRequest) -> HttpResponse:
    """``/fairness/``: how deals are provably fair (a part for players, then the
    recipe and the script) rendered as a page (``yuanzi_site.markdown``: the
    subset it uses, no raw HTML): docs/fairness.zh.md when the active language
    is Chinese (``zh…``), docs/fairness.md for any other."""
    chinese = (translation.get_language() or "").startswith("zh")
    name = "fairness.zh.md" if chinese else "fairness.md"
    text = (settings.BASE_DIR / "docs" / name).read_text(encoding="utf-8")
    return render(request, "games/fairness.html", {"doc": markdown.render(text)})

