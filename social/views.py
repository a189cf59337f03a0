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

import json
from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import inbox
from games.said import say_refused
from social import blocks, friends, invites, lists, ui
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused, refused_json

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
            return refused_json(e)
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
    "title", "title_en", "avatar", "frame", "online", "table"}], "incoming": [username], "outgoing":
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
    "title", "title_en", "state", "blocked"}], "next"}``: names containing ``q`` (1–150
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
    """``GET /api/users/<username>`` → ``{"username", "level", "title", "title_en",
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
        "settings": invites.settings_of(request.user.pk),
        "strings": ui.friends_strings(), "here": reverse("friends") + (
            "?" + request.GET.urlencode() if request.GET else ""),
    })



def _field(request: HttpRequest, name: str) -> Any:
    """A POST field, from a form or a JSON object body."""
    if request.content_type == "application/json":
        try:
            body = json.loads(request.body or b"{}")
        except ValueError:
            return None
        return body.get(name) if isinstance(body, dict) else None
    return request.POST.get(name)


@require_POST
def invite_to_table(request: HttpRequest, table_id: int) -> JsonResponse:
    """``POST /api/tables/<id>/invite`` with ``username`` → ``{"ok": true,
    "message"}`` (also when the invite is silently never delivered, RULES.md §12)."""
    if not request.user.is_authenticated:
        return _unauthorized()
    name = _field(request, "username")
    other = _user(name.strip()) if isinstance(name, str) else None
    if other is None:
        return _no_user()
    try:
        invites.invite(request.user, table_id, other)
    except Refused as e:
        return refused_json(e)
    return JsonResponse({"ok": True, "message": _("Invite sent to %(name)s.")
                         % {"name": other.username}})


def _answer(request: HttpRequest, invite_id: int, action: str) -> HttpResponse:
    """Accept or decline; JSON, or the invite page's form (redirect)."""
    if not request.user.is_authenticated:
        return _unauthorized() if _wants_json(request) else redirect("account_login")
    try:
        if action == "accept":
            found, seated = invites.accept(request.user, invite_id)
            url = reverse("table", args=[found.table_id])
            said = _("You sat down.") if seated else _("No seat is free: you may watch.")
            if not _wants_json(request):
                messages.success(request, said)
                return redirect(url)
            return JsonResponse({"ok": True, "url": url, "seated": seated, "message": said})
        invites.decline(request.user, invite_id)
    except Refused as e:
        if _wants_json(request):
            return refused_json(e)
        say_refused(request, e)
        return redirect("invite", invite_id=invite_id)
    if not _wants_json(request):
        messages.info(request, _("Invite declined."))
        return redirect("lobby")
    return JsonResponse({"ok": True, "message": _("Invite declined.")})


@require_POST
def answer_invite(request: HttpRequest, invite_id: int, action: str) -> HttpResponse:
    """``POST /api/invites/<id>/accept`` → ``{"ok": true, "url", "seated",
    "message"}``; ``POST /api/invites/<id>/decline`` → ``{"ok": true, "message"}``."""
    return _answer(request, invite_id, action)


@login_required
def invite_page(request: AuthenticatedHttpRequest, invite_id: int) -> HttpResponse:
    """``/invites/<id>/``: the invitee's invite (the notification's link), with
    加入 / 拒绝; anyone else gets 404. Its preview (Open Graph) names no table."""
    found = invites.shown(request.user, invite_id)
    if found is None:
        raise Http404(_("There is no such invite."))
    inbox.mark_read_link(request.user.pk, request.path)  # the badge counts it no more
    return render(request, "social/invite.html", found)


@require_http_methods(["GET", "POST"])
def social_settings(request: HttpRequest) -> HttpResponse:
    """``GET /api/social/settings`` → ``{"invites_from_anyone", "online_notices"}``;
    ``POST`` either field (``"1"``/``"0"``, or JSON booleans) to change it."""
    if not request.user.is_authenticated:
        return _unauthorized() if _wants_json(request) else redirect("account_login")
    if request.method == "POST":
        changes = {}
        for name in ("invites_from_anyone", "online_notices"):
            value = _field(request, name)
            if value is not None:
                changes[name] = value in (True, "1", "true", "on")
        mine = invites.change_settings(request.user, changes)
        if not _wants_json(request):
            messages.success(request, _("Settings saved."))
            return _back(request)
    else:
        mine = invites.settings_of(request.user.pk)
    return JsonResponse({"ok": True, "invites_from_anyone": mine.invites_from_anyone,
                         "online_notices": mine.online_notices})
