"""The moderator console, ``/mod/``: thin views over
:mod:`moderation.actions` and :mod:`moderation.reports`.

Moderators only: anonymous visitors go to the log-in page, players get 403.
Each action also needs its own permission (``roles.ACTION_PERMISSIONS``,
checked by :mod:`moderation.actions`): without it the answer is a 403 page
saying which, and nothing changes.
Every POST is CSRF-protected (Django's middleware; no view is exempt). An
action's refusal (``yuanzi_site.refusals.Refused``) comes back as an error message and
changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import Any, Concatenate, ParamSpec, cast

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts import usernames
from accounts.models import GemCap, Profile
from games import access, plugins, queries, snapshots, tables, wire
from games.models import ChatMessage, Game, Table
from moderation import actions, reports, roles, wordfilter
from moderation.models import AuditEntry, BlockedWord, PairSignal, Report, Sanction
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused

P = ParamSpec("P")


def moderator_required(
    view: Callable[Concatenate[AuthenticatedHttpRequest, P], HttpResponse],
) -> Callable[Concatenate[HttpRequest, P], HttpResponse]:
    """Anonymous → the log-in page; a player (no ``use_console``) → 403."""

    @wraps(view)
    def wrapped(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not roles.can_use_console(request.user):
            raise PermissionDenied
        return view(cast(AuthenticatedHttpRequest, request), *args, **kwargs)

    return wrapped


def _run(request: HttpRequest, fn: Callable[[], object], done: str, back: str) -> HttpResponse:
    """Carry out one action; its refusal becomes an error message, a missing
    permission (``not_permitted``) a 403 page saying which."""
    try:
        fn()
    except Refused as e:
        if e.reason == "not_permitted":
            return render(request, "moderation/forbidden.html",
                          {"message": str(e), "back": back}, status=403)
        messages.error(request, str(e))
    else:
        messages.success(request, done)
    return redirect(back)


def _elapsed(started: datetime) -> str:
    seconds = int((timezone.now() - started).total_seconds())
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _mark_arenas(rows: list[dict[str, Any]]) -> None:
    """Give the private rows among ``rows`` their table snapshot's ``arena``
    (contests' ``snapshot_keys``; lobby rows leave it out), in place: an
    arena's table is private too, and the console must not call it a 好友房.
    One query and the plugins' own, none when no table is private."""
    private = {r["id"]: r for r in rows if r.get("private")}
    if not private:
        return
    found = list(Table.objects.filter(pk__in=private).select_related("owner"))
    extra: dict[int, dict[str, Any]] = {pk: {} for pk in private}
    plugins.add_snapshot_keys(found, extra)
    for pk, keys in extra.items():
        if keys.get("arena"):
            private[pk]["arena"] = keys["arena"]


def table_rows(q: str = "", status: str = "") -> list[dict[str, Any]]:
    """Every open table as the console lists it, private ones included: the
    lobby row (seats, status, spectators, ``private``, ``spectators_allowed``,
    contributed keys such as a wager; ``arena`` for an arena's table) plus
    ``running`` (how long its current game has run, h:mm:ss)."""
    rows = snapshots.lobby_rows(limit=1000, private=True)  # a moderator may watch any table
    _mark_arenas(rows)
    started = dict(Game.objects.filter(table_id__in=[r["id"] for r in rows],
                                       status=Game.PLAYING).values_list("table_id", "started_at"))
    q = q.strip().lower()
    out = []
    for row in rows:
        names = [row["name"], row["owner"]] + [
            s["player"]["username"] for s in row["seats"] if s.get("player")]
        if q and not any(q in n.lower() for n in names):
            continue
        if status and row["status"] != status:
            continue
        row["running"] = _elapsed(started[row["id"]]) if row["id"] in started else ""
        out.append(row)
    return out


@require_GET
@moderator_required
def console(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/mod/``: every open table, live (``static/js/mod_console.js`` polls
    :func:`tables_json`), filterable by name/player and status."""
    q, status = request.GET.get("q", ""), request.GET.get("status", "")
    return render(request, "moderation/console.html", {
        "rows": table_rows(q, status), "q": q, "status": status,
        "open_reports": Report.objects.filter(status=Report.OPEN).count(),
        "flags": PairSignal.objects.exclude(flags=[]).count(),
    })


@require_GET
@moderator_required
def tables_json(request: AuthenticatedHttpRequest) -> JsonResponse:
    """``/mod/tables.json``: :func:`table_rows` as JSON (``{"tables": [...]}``)."""
    return JsonResponse({"tables": table_rows(request.GET.get("q", ""),
                                              request.GET.get("status", ""))})


@require_GET
@moderator_required
def table_detail(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    """``/mod/tables/<id>/``: one table, its raw chat and the table actions."""
    table = get_object_or_404(Table, pk=table_id)
    snap = snapshots.table_snapshot(table_id)
    lines = ChatMessage.objects.filter(table=table).select_related("user").order_by("-pk")[:30]
    return render(request, "moderation/table.html", {
        "table": table, "snap": snap, "lines": [queries.chat_line(m) for m in reversed(lines)],
        "audit": AuditEntry.objects.filter(table=table)[:20],
        "name_max": tables.NAME_MAX_LENGTH,
    })


@require_POST
@moderator_required
def table_action(request: AuthenticatedHttpRequest, table_id: int, action: str) -> HttpResponse:
    """POST ``/mod/tables/<id>/close|kick|rename/`` with ``reason`` (and
    ``username`` / ``name``)."""
    p, mod, back = request.POST, request.user, f"/mod/tables/{table_id}/"
    if action == "close":
        return _run(request, lambda: actions.close_table(mod, table_id, p.get("reason")),
                    _("The table is closed."), "/mod/")
    if action == "kick":
        return _run(request, lambda: actions.kick(mod, table_id, p.get("username"),
                                                  p.get("reason")),
                    _("The player was removed."), back)
    if action == "rename":
        return _run(request, lambda: actions.rename(mod, table_id, p.get("name"),
                                                    p.get("reason")),
                    _("The table was renamed."), back)
    raise Http404("no such table action")


@require_GET
@moderator_required
def users(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/mod/users/?q=``: find a user by name."""
    q = request.GET.get("q", "").strip()
    found = (get_user_model().objects.filter(username__icontains=q)
             .exclude(username__startswith=usernames.HOUSE_PREFIX).order_by("username")[:50]
             if q else [])
    return render(request, "moderation/users.html", {"q": q, "found": found})


@require_GET
@moderator_required
def user_detail(request: AuthenticatedHttpRequest, username: str) -> HttpResponse:
    """``/mod/users/<name>/``: sanctions, coins, recent games, the user actions
    (the forms that lift a mute or a suspension only while one is in force)."""
    if usernames.is_house(username):
        raise Http404("a house account")
    target = get_object_or_404(get_user_model(), username=username)
    active = list(Sanction.objects.active().filter(user=target).select_related("table"))
    kinds = {s.kind for s in active}
    return render(request, "moderation/user.html", {
        "target": target, "profile": Profile.objects.filter(user=target).first(),
        "sanctions": Sanction.objects.filter(user=target).select_related("table")[:20],
        # a lift form only where there is something to lift (a tester saw both on
        # a user with neither)
        "active": active, "muted": Sanction.MUTE in kinds,
        "suspended": Sanction.SUSPENSION in kinds,
        "games": queries.recent_games(target),
        "audit": AuditEntry.objects.filter(target_user=target)[:20],
        "is_moderator": access.is_moderator(target),
    })


@require_POST
@moderator_required
def user_action(request: AuthenticatedHttpRequest, username: str, action: str) -> HttpResponse:
    """POST ``/mod/users/<name>/mute|unmute|suspend|unsuspend|grant|revoke/``."""
    p, mod, back = request.POST, request.user, f"/mod/users/{username}/"
    reason = p.get("reason")
    run = {
        "mute": lambda: actions.mute(mod, username, p.get("amount"), p.get("unit"), reason),
        "unmute": lambda: actions.lift(mod, username, Sanction.MUTE, reason),
        "suspend": lambda: actions.suspend(mod, username, p.get("amount"), p.get("unit"),
                                           reason),
        "unsuspend": lambda: actions.lift(mod, username, Sanction.SUSPENSION, reason),
        "grant": lambda: actions.coins(mod, username, p.get("amount"), reason),
        "revoke": lambda: actions.coins(mod, username, p.get("amount"), reason, revoke=True),
    }.get(action)
    if run is None:
        raise Http404("no such user action")
    return _run(request, run, _("Done."), back)


@moderator_required
def settings_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/mod/settings/``: blocked words (add/remove) and the gem cap override."""
    if request.method == "POST":
        p, mod = request.POST, request.user
        if p.get("form") == "gem_cap":
            return _run(request, lambda: actions.set_gem_cap(mod, p.get("value"),
                                                             p.get("reason")),
                        _("The gem cap is set."), "/mod/settings/")
        return _run(request, lambda: _edit_words(mod, p), _("The word list is saved."),
                    "/mod/settings/")
    return render(request, "moderation/settings.html", {
        "words": BlockedWord.objects.all(), "cap": GemCap.objects.filter(pk=1).first(),
    })


def _edit_words(moderator: User, post: QueryDict) -> None:
    reason = actions.clean_reason(post.get("reason"))
    word = (post.get("word") or "").strip().lower()
    if not word or len(word) > 40:
        raise Refused("bad_name", _("A blocked word has 1 to 40 characters."))
    before = {"words": list(BlockedWord.objects.values_list("word", flat=True))}
    if post.get("form") == "remove":
        BlockedWord.objects.filter(word=word).delete()
    else:
        BlockedWord.objects.get_or_create(word=word, defaults={"added_by": moderator})
    wordfilter.forget()
    actions._audit(moderator, AuditEntry.WORDS, reason, before=before,
                   after={"words": list(BlockedWord.objects.values_list("word", flat=True))})


@require_GET
@moderator_required
def audit(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/mod/audit/?moderator=&user=&table=``: the audit log, searchable."""
    rows = AuditEntry.objects.select_related("table")
    f = {k: request.GET.get(k, "").strip() for k in ("moderator", "user", "table")}
    if f["moderator"]:
        rows = rows.filter(moderator_name__icontains=f["moderator"])
    if f["user"]:
        rows = rows.filter(target_name__icontains=f["user"])
    if f["table"]:
        rows = rows.filter(Q(table_name__icontains=f["table"]) | (
            Q(table_id=wire.whole(f["table"])) if wire.whole(f["table"]) is not None
            else Q(pk__in=[])))
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    return render(request, "moderation/audit.html", {"page": page, "f": f})


@require_GET
@moderator_required
def report_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/mod/reports/``: the open reports, oldest first, then the handled ones."""
    base = Report.objects.select_related("reporter", "target", "table")
    return render(request, "moderation/reports.html", {
        "open": base.filter(status=Report.OPEN).order_by("created_at"),
        "handled": base.exclude(status=Report.OPEN).order_by("-handled_at")[:30],
    })


@moderator_required
def report_detail(request: AuthenticatedHttpRequest, report_id: int) -> HttpResponse:
    """``/mod/reports/<id>/``: a report with its context; POST ``outcome``
    (``resolve``/``dismiss``) with ``note``."""
    report = get_object_or_404(Report.objects.select_related("reporter", "target", "table"),
                               pk=report_id)
    if request.method == "POST":
        resolved = request.POST.get("outcome") == "resolve"
        return _run(request, lambda: reports.handle(request.user, report_id,
                                                    request.POST.get("note"),
                                                    resolved=resolved),
                    _("The report is handled."), "/mod/reports/")
    return render(request, "moderation/report.html",
                  {"report": report, **reports.context(report)})


@require_GET
@moderator_required
def flags(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/mod/flags/``: the flagged pairs of the fair-play signals, with their games."""
    rows = PairSignal.objects.exclude(flags=[]).select_related("user_a", "user_b")[:200]
    return render(request, "moderation/flags.html", {"rows": rows})
