"""Arena pages and their JSON API (docs/api.md "Arenas"): thin, the rules are
:mod:`contests.arena` and the reads :mod:`contests.arena_read`.

Pages: ``/arenas/`` (upcoming, running, recent), ``/arenas/<id>/`` (standings,
the tables, join / withdraw / pause), ``/arenas/new/`` (moderators with
``contests.manage_arena``). JSON: ``GET /api/arenas``, ``GET /api/arenas/<id>``,
``POST /api/arenas/<id>/join|withdraw|pause|resume``; a write answers
``{"ok": true, "arena": detail}`` or ``{"ok": false, "reason", "message"}``
(400, nothing changed). A form post without ``Accept: application/json``
redirects back to the arena page with the message.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from contests import arena, arena_read
from contests.models import Arena
from games import wire
from games.said import say_refused
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused, refused_json


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _arena(arena_id: int) -> Arena:
    found = Arena.objects.filter(pk=arena_id).first()
    if found is None:
        raise Http404("no arena")
    return found


def _page(request: HttpRequest) -> int:
    return wire.whole(request.GET.get("page", "1")) or 1


def _uid(request: HttpRequest) -> int | None:
    return request.user.pk if request.user.is_authenticated else None


@require_GET
def arenas_page(request: HttpRequest) -> HttpResponse:
    """``/arenas/``: upcoming, running and recent arenas (and the form's link
    for those who may create one)."""
    return render(request, "contests/arena_list.html", {
        "lists": arena_read.arena_lists(), "may_manage": arena.may_manage(request.user),
        "history": arena_read.history(request.user.pk) if request.user.is_authenticated
        else []})


@require_GET
def arena_page(request: HttpRequest, arena_id: int) -> HttpResponse:
    """``/arenas/<id>/``: the arena, its standings and the asker's buttons."""
    found = _arena(arena_id)
    return render(request, "contests/arena_detail.html", {
        "arena": found, "data": arena_read.detail(found, _uid(request), _page(request))})


@login_required
@require_http_methods(["GET", "POST"])
def arena_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/arenas/new/``: the moderators' form."""
    from contests.arena_forms import ArenaForm

    if not arena.may_manage(request.user):
        raise Http404("not a moderator")
    form = ArenaForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            created = arena.create(request.user, form.spec())
        except Refused as e:
            form.add_error(None, str(e))
        else:
            messages.success(request, _("Arena created."))
            return redirect("arena", created.pk)
    return render(request, "contests/arena_new.html", {"form": form})


@require_GET
def api_arenas(request: HttpRequest) -> JsonResponse:
    """``GET /api/arenas``: ``{"upcoming", "running", "recent"}``."""
    return JsonResponse(arena_read.arena_lists())


@require_GET
def api_arena(request: HttpRequest, arena_id: int) -> JsonResponse:
    """``GET /api/arenas/<id>?page=``: the arena with its standings."""
    found = Arena.objects.filter(pk=arena_id).first()
    if found is None:
        return JsonResponse({"ok": False, "reason": "no_arena",
                             "message": _("There is no such arena.")}, status=404)
    return JsonResponse(arena_read.detail(found, _uid(request), _page(request)))


def _act(action: str, arena_id: int, user: User) -> None:
    if action == "join":
        arena.join(arena_id, user)
    elif action == "withdraw":
        arena.withdraw(arena_id, user)
    else:
        arena.pause(arena_id, user, action == "pause")
SAID = {"join": gettext_lazy("You are in the arena."),
        "withdraw": gettext_lazy("You left the arena."),
        "pause": gettext_lazy("Paused: no new table until you resume."),
        "resume": gettext_lazy("Back in the queue.")}


@require_POST
def api_arena_action(request: HttpRequest, arena_id: str, action: str) -> HttpResponse:
    """``POST /api/arenas/<id>/<action>``: join, withdraw, pause or resume."""
    if not request.user.is_authenticated:
        if _wants_json(request):
            return JsonResponse({"ok": False, "reason": "login_required",
                                 "message": _("Log in first.")}, status=401)
        return redirect("account_login")
    user, number = request.user, int(arena_id)
    try:
        _act(action, number, user)
    except Refused as e:
        if _wants_json(request):
            return refused_json(e)
        say_refused(request, e)
        return redirect("arena", number)
    message = str(SAID[action])
    if _wants_json(request):
        return JsonResponse({"ok": True, "message": message,
                             "arena": arena_read.detail(_arena(number), user.pk)})
    messages.success(request, message)
    return redirect("arena", number)
