"""The notification centre's page and JSON API (消息; docs/api.md
"Notifications"): thin, the rows and the writes are :mod:`accounts.inbox`.

- ``GET /notifications/?page=&unread=1``: the page, newest first, 50 a page;
  opening it reads nothing (each row is marked read when it is opened, or all
  of them with the page's button).
- ``GET /notifications/<id>/row?next=``: one row of that page as the page
  renders it (``accounts/_notification_row.html``: the time in the site's
  zone, 标为已读, a prompt's button), for the page's script to add a
  notification that arrives while it is open; 404 for another's or a gone
  one, 401 for a visitor.
- ``GET /api/notifications?page=&unread=1`` → ``{"notifications": [row],
  "unread": n, "next": url | null}`` (rows: :func:`accounts.inbox.as_frame`).
- ``POST /api/notifications/read`` with JSON ``{"ids": [id, …]}`` or
  ``{"all": true}`` (or the page's form fields ``ids`` / ``all``) →
  ``{"ok": true, "unread": n}``; refused ``bad_notifications`` (400), or
  ``bad_message`` (400) for a JSON body that is malformed, not an object or
  nested too deeply (docs/protocol.md "Input rules").

Session-authenticated (an anonymous API request is answered 401 JSON, the
page sends them to log in); the POST is under Django's CSRF check.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts import inbox
from accounts.models import Notification
from games import wire
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused, refused_json


def _unauthorized() -> JsonResponse:
    return JsonResponse({"ok": False, "reason": "login_required",
                         "message": _("Log in first.")}, status=401)


def _wants_json(request: HttpRequest) -> bool:
    return ("application/json" in request.headers.get("Accept", "")
            or request.content_type == "application/json")


def _next(request: HttpRequest, page: inbox.Page) -> str | None:
    if not page.has_next:
        return None
    query = request.GET.copy()
    query["page"] = str(page.number + 1)
    return f"{request.path}?{query.urlencode()}"


def _row(n: Notification, now: object = None) -> dict[str, object]:
    """What the page shows of ``n`` (``accounts/_notification_row.html``),
    in the active language: its words, link, time, whether it is read and a
    prompt's button while its deadline is ahead (``inbox.action``)."""
    return {"id": n.pk, "text": inbox.render(n.kind, n.params), "link": n.link,
            "created_at": n.created_at, "read": n.read_at is not None,
            "action": inbox.action(n, now)}


def _here(value: object) -> str:
    """Where the page's forms send the person back: a ``/notifications/``
    path given, else the first page (never another site)."""
    return value if isinstance(value, str) and value.startswith("/notifications/") \
        else reverse("notifications")


@login_required
@require_GET
def notifications_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/notifications/?page=&unread=1``: the person's notifications, newest
    first, each in the page's language, linking to what it is about."""
    unread_only = request.GET.get("unread") == "1"
    page = inbox.page(request.user.pk, inbox.page_number(request.GET.get("page")),
                      unread_only=unread_only)
    now = timezone.now()
    rows = [_row(n, now) for n in page.rows]
    query = request.GET.copy()
    query["page"] = str(page.number + 1)
    older = query.urlencode() if page.has_next else None
    query["page"] = str(page.number - 1)
    newer = query.urlencode() if page.number > 1 else None
    return render(request, "accounts/notifications.html", {
        "rows": rows, "page": page.number, "unread_only": unread_only,
        "next_query": older, "prev_query": newer, "here": request.get_full_path(),
        "now": now.isoformat(),
    })


@require_GET
def notification_row(request: HttpRequest, pk: int) -> HttpResponse:
    """``GET /notifications/<pk>/row?next=``: the page's row of notification
    ``pk`` (one arriving while the page is open reads as those rendered with
    the page: the same template, time format and zone, 标为已读 and a prompt's
    button), its forms sending the person back to ``next`` (a
    ``/notifications/`` path). 404 for another's or a gone one; 401 for a
    visitor (no log-in page to put in the list)."""
    if not request.user.is_authenticated:
        return HttpResponse(status=401)
    n = inbox.get(request.user.pk, pk)
    if n is None:
        raise Http404
    return render(request, "accounts/_notification_row.html",
                  {"n": _row(n), "here": _here(request.GET.get("next"))})


@require_GET
def api_notifications(request: HttpRequest) -> JsonResponse:
    """``GET /api/notifications?page=&unread=1`` → ``{"notifications":
    [{"id", "kind", "params", "link", "created_at", "read", "text": {"zh-hans",
    "en"}}], "unread": n, "next": url | null}``, newest first, 50 a page."""
    if not request.user.is_authenticated:
        return _unauthorized()
    page = inbox.page(request.user.pk, inbox.page_number(request.GET.get("page")),
                      unread_only=request.GET.get("unread") == "1")
    return JsonResponse({"notifications": [inbox.as_frame(n) for n in page.rows],
                         "unread": inbox.unread_count(request.user.pk),
                         "next": _next(request, page)})


def _read_request(request: HttpRequest) -> tuple[Any, bool]:
    """``(ids, everything)`` from a JSON object body or the page's form fields
    (ids as :func:`games.wire.whole` reads numbers); what they name is
    ``mark_read``'s to check (``bad_notifications``).

    :raises Refused: ``bad_message`` for a JSON body that is malformed, not an
        object or nested too deeply (as every JSON endpoint answers it).
    """
    if request.content_type == "application/json":
        try:
            body = wire.loads(request.body or b"{}")
        except ValueError:  # malformed, or nested too deeply: 400, never 500
            body = None
        if not isinstance(body, dict):
            raise Refused("bad_message", _("Malformed message."))
        return body.get("ids"), body.get("all") is True
    ids = request.POST.getlist("ids")
    numbers = [n for n in map(wire.whole, ids) if n is not None]
    return (numbers if len(numbers) == len(ids) else None), request.POST.get("all") == "1"


@require_POST
def api_read(request: HttpRequest) -> HttpResponse:
    """``POST /api/notifications/read`` ``{"ids": [...]}`` or ``{"all": true}``
    → ``{"ok": true, "unread": n}``; refused 400 ``{"ok": false, "reason",
    "message", "params"}``: ``bad_message`` for a JSON body that is no JSON
    object, ``bad_notifications`` for one naming nothing to mark. The page's
    form (no script) is sent back to ``next`` (a path on this site) or
    ``/notifications/`` (also when refused)."""
    if not request.user.is_authenticated:
        return _unauthorized() if _wants_json(request) else redirect("account_login")
    try:
        ids, everything = _read_request(request)
        left = inbox.mark_read(request.user.pk, ids, everything=everything)
    except Refused as e:
        if _wants_json(request):
            return refused_json(e)
        return redirect("notifications")
    if _wants_json(request):
        return JsonResponse({"ok": True, "unread": left})
    return redirect(_here(request.POST.get("next")))
