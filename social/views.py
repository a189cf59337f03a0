"""The friends page and the JSON API of friends and blocks
(docs/api.md): thin, every rule lives in :mod:`social.friends`,
:mod:`social.blocks` and :mod:`social.lists`.

Session-authenticated; writes are POSTs under Django's CSRF check. A write
answers ``{"ok": true, ...}`` or ``{"ok": false, "reason", "message"}``
(status 400, nothing changed); an unknown username is 404
``{"ok": false, "reason": "no_user"}``; an anonymous request 401 JSON. A form
post from the page without JavaScript (no ``Accept: application/json``) is
answered with a redirect back to ``/friends/`` and a message instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from social import blocks, friends, lists, ui
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused

#: what a friend or block action returns (a state, or whether blocked)
R = TypeVar("R")

#: the friend actions of ``POST /api/friends/<username>/<action>``
FRIEND_ACTIONS = {"request": friends.request, "accept": friends.accept,
                  "decline": friends.decline, "cancel": friends.cancel,
                  "remove": friends.remove}


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _unauthorized() -> JsonResponse:
    return JsonResponse({"ok": False, "reason": "login_required",
                         "message": _("Log in first.")}, status=401)


def _user(username: str) -> User | None:
    return get_user_model().objects.filter(username=username, is_active=True).first()


def _no_user() -> JsonResponse:
    return JsonResponse({"ok": False, "reason": "no_user",
                         "message": _("No such player.")}, status=404)


def _back(request: HttpRequest) -> HttpResponse:
    nxt = request.POST.get("next", "")
    if nxt and url_has_allowed_host_and_scheme(nxt, {request.get_host()},
                                               require_https=request.is_secure()):
        return redirect(nxt)
    return redirect("friends")


def _write(request: HttpRequest, username: str, act: Callable[[User, User], R],
           data: Callable[[R], dict[str, Any]], said: Callable[[R], str]) -> HttpResponse:
    """Run ``act(user, other)``; answer ``data(result)`` and the message
    ``said(result)`` as JSON (or redirect the page's form with the message)."""
    if not request.user.is_authenticated:
        return _unauthorized() if _wants_json(request) else redirect("account_login")
    other = _user(username)
    if other is None:
        if _wants_json(request):
            return _no_user()
        messages.error(request, _("No such player."))
        return _back(request)
    try:
        result = act(request.user, other)
    except Refused as e:
        if _wants_json(request):
            return JsonResponse({"ok": False, "reason": e.reason, "message": str(e)}, status=400)
        messages.error(request, str(e))
        return _back(request)
    if _wants_json(request):
        return JsonResponse({"ok": True, **data(result), "message": said(result)})
    messages.success(request, said(result))
    return _back(request)


@require_POST
def friend_action(request: HttpRequest, username: str, action: str) -> HttpResponse:
    """``POST /api/friends/<username>/request|accept|decline|cancel|remove``
    → ``{"ok": true, "state": "friends"|"outgoing"|"incoming"|"none"}``."""
    act = FRIEND_ACTIONS[action]  # the URL pattern admits only these
    return _write(request, username, act, lambda state: {"state": state},
                  lambda state: ui.friend_done(action, state))


@require_POST
def block(request: HttpRequest, username: str) -> HttpResponse:
    """``POST /api/blocks/<username>`` → ``{"ok": true, "blocked": true}``."""
    return _write(request, username, blocks.block, lambda b: {"blocked": b},
                  lambda _b: _("Blocked. They are not told."))


@require_POST
def unblock(request: HttpRequest, username: str) -> HttpResponse:
    """``POST /api/blocks/<username>/remove`` → ``{"ok": true, "blocked": false}``."""
    return _write(request, username, blocks.unblock, lambda b: {"blocked": b},
                  lambda _b: _("Unblocked."))


def _invites(request: HttpRequest) -> dict[str, str]:
    invites = request.session.get("invites", {})
    return invites if isinstance(invites, dict) else {}


def _next(request: HttpRequest, page: lists.Page) -> str | None:
    if not page.has_next:
        return None
    query = request.GET.copy()
    query["page"] = str(page.number + 1)
    return f"{request.path}?{query.urlencode()}"


@require_GET
def api_friends(request: HttpRequest) -> JsonResponse:
    """``GET /api/friends?page=`` → ``{"friends": [{"username", "level",
    "title", "avatar", "frame", "online", "table"}], "incoming": [username], "outgoing":
    [username], "next": url | null}``; page N of each list (≤ 50 rows each),
    ``next`` while any of them goes on."""
    if not request.user.is_authenticated:
        return _unauthorized()
    n = lists.page_number(request.GET.get("page"))
    mine = lists.friends(request.user, n, _invites(request))
    inc, out = lists.incoming(request.user, n), lists.outgoing(request.user, n)
    more = lists.Page([], n, mine.has_next or inc.has_next or out.has_next)
    return JsonResponse({"friends": mine.rows, "incoming": inc.rows, "outgoing": out.rows,
                         "next": _next(request, more)})


@require_GET
def api_blocks(request: HttpRequest) -> JsonResponse:
    """``GET /api/blocks?page=`` → ``{"blocks": [username], "next": url | null}``."""
    if not request.user.is_authenticated:
        return _unauthorized()
    page = lists.blocked(request.user, lists.page_number(request.GET.get("page")))
    return JsonResponse({"blocks": page.rows, "next": _next(request, page)})


@require_GET
def api_search(request: HttpRequest) -> JsonResponse:
    """``GET /api/users?q=<name>&page=`` → ``{"users": [{"username", "level",
    "title", "state", "blocked"}], "next"}``: names containing ``q`` (1–150
    characters, any case)."""
    if not request.user.is_authenticated:
        return _unauthorized()
    q = (request.GET.get("q") or "").strip()
    if not 1 <= len(q) <= 150:
        return JsonResponse({"ok": False, "reason": "bad_message",
                             "message": _("Type part of a name.")}, status=400)
    page = lists.search(request.user, q, lists.page_number(request.GET.get("page")))
    return JsonResponse({"users": page.rows, "next": _next(request, page)})


@require_GET
def api_user(request: HttpRequest, username: str) -> JsonResponse:
    """``GET /api/users/<username>`` → ``{"username", "level", "title",
    "rating_points", "avatar", "frame", "finish_rate", "rated_games"}`` (never coins;
    anyone may ask, as anyone may open a profile)."""
    other = _user(username)
    if other is None:
        return _no_user()
    return JsonResponse(lists.public_card(other))


@login_required
def friends_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/friends/?page=&q=``: your friends (online, where), requests both
    ways with their buttons, your blocks, and the name search."""
    n = lists.page_number(request.GET.get("page"))
    q = (request.GET.get("q") or "").strip()[:150]
    found = lists.search(request.user, q, n) if q else None
    mine = lists.friends(request.user, n, _invites(request))
    inc, out = lists.incoming(request.user, n), lists.outgoing(request.user, n)
    blocked = lists.blocked(request.user, n)
    more = mine.has_next or inc.has_next or out.has_next or blocked.has_next or (
        found is not None and found.has_next)
    query = request.GET.copy()
    query["page"] = str(n + 1)
    older = query.urlencode()
    query["page"] = str(n - 1)
    return render(request, "social/friends.html", {
        "friends": mine.rows, "incoming": inc.rows, "outgoing": out.rows,
        "blocked": blocked.rows, "found": found, "q": q, "page": n,
        "next_query": older if more else None, "prev_query": query.urlencode() if n > 1 else None,
        "strings": ui.friends_strings(), "here": reverse("friends") + (
            "?" + request.GET.urlencode() if request.GET else ""),
    })
