"""The read side of the friends page and JSON: paged lists, where a
friend is, a player's public card, the name search. Never writes.

Every list pages by at most :data:`PAGE_SIZE` rows with a fixed number of
queries per page, however many rows there are (one query per list, plus a
fixed few for the friends' tables; presence is two Redis round trips or none).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet

from accounts import usernames
from accounts.models import Profile, default_avatar
from games import access, presence
from games.models import Seat, Table
from social import invites as table_invites
from social import relations, reputation
from social.models import Block, FriendRequest, Friendship

#: rows per page, every list (at most 50)
PAGE_SIZE = 50


@dataclass(frozen=True)
class Page:
    """One page of a list: ``rows``, its 1-based ``number``, whether a next one exists."""

    rows: list[Any]
    number: int
    has_next: bool


def page_number(raw: Any) -> int:
    """A ``?page=`` value as a page number ≥ 1 (anything else: 1)."""
    try:
        n = int(raw)
    except (TypeError, ValueError):
        return 1
    return n if 1 <= n <= 100_000 else 1


def _page(qs: QuerySet[Any, Any], number: int) -> Page:
    start = (number - 1) * PAGE_SIZE
    rows = list(qs[start:start + PAGE_SIZE + 1])  # one more: is there a next page?
    return Page(rows[:PAGE_SIZE], number, len(rows) > PAGE_SIZE)


def whereabouts(viewer: User, user_ids: list[int],
                invites: dict[str, str]) -> dict[int, dict[str, Any]]:
    """Where each of ``user_ids`` is, as ``viewer`` may see it.

    :param invites: the viewer's session invites (``{"<table id>": token}``,
        as ``games.views`` remembers them).
    :returns: ``{user id: {"online": bool, "table": … | None}}``. Online means
        a live connection at some table (``games.presence``). ``table`` is the
        table they sit at (else one they watch): ``{"id", "name", "private",
        "seated", "free_seat"}``, or for a private table the viewer may not
        open (not owner, seated, moderator nor holding its invite link or an
        accepted invite, ``social.invites``)
        ``{"id": None, "name": None, "private": True}`` (在好友房).
    """
    if not user_ids:
        return {}
    wanted = set(user_ids)
    watching: dict[int, int] = {}
    live = presence.live_many(presence.watched_tables())
    online: set[int] = set()
    for table_id, entries in sorted(live.items()):
        for _channel, uid in entries:
            if uid in wanted:
                online.add(uid)
                watching.setdefault(uid, table_id)
    online |= presence.online(wanted)  # the lobby's socket or /ws/me/ counts too
    seated = dict(Seat.objects.filter(user_id__in=wanted, table__closed=False)
                  .values_list("user_id", "table_id"))
    at = {uid: seated.get(uid, watching.get(uid)) for uid in wanted}
    tables = {t.pk: t for t in Table.objects.filter(
        pk__in={t for t in at.values() if t is not None}, closed=False).annotate(
        free=Count("seats", filter=Q(seats__user__isnull=True, seats__is_bot=False)))}
    insider: set[int] = set()
    moderator = False
    private = [t.pk for t in tables.values() if t.private]
    if private:
        insider = set(Seat.objects.filter(user=viewer).values_list("table_id", flat=True))
        insider |= table_invites.granted_tables(viewer, private)  # an accepted invite opens it
        moderator = access.is_moderator(viewer)
    out: dict[int, dict[str, Any]] = {}
    for uid in user_ids:
        at_id = at[uid]
        t = tables.get(at_id) if at_id is not None else None
        table: dict[str, Any] | None = None
        if t is not None:
            if t.private and not _may_open(t, viewer, insider, moderator, invites):
                table = {"id": None, "name": None, "private": True}
            else:
                table = {"id": t.pk, "name": t.name, "private": t.private,
                         "seated": seated.get(uid) == t.pk,
                         "free_seat": t.status == Table.WAITING and t.free > 0}
        out[uid] = {"online": uid in online, "table": table}
    return out


def _may_open(table: Table, viewer: User, insider: set[int], moderator: bool,
              invites: dict[str, str]) -> bool:
    # games.access.may_open, with the viewer's seats and role read once for the page
    if table.owner_id == viewer.pk or table.pk in insider or moderator:
        return True
    token = invites.get(str(table.pk))
    return table.spectators_allowed and bool(token) and hmac.compare_digest(
        str(token), table.invite_token)


def friends(viewer: User, number: int, invites: dict[str, str]) -> Page:
    """Page ``number`` of ``viewer``'s friends by name: rows ``{"username",
    "level", "title", "title_en", "avatar", "frame", "online", "table"}`` (:func:`whereabouts`;
    ``avatar`` a code of ``accounts.models.AVATARS``, ``frame`` its level band)."""
    # the page's ids and names first, their profiles after: one join fewer in
    # the query that sorts and skips every friend before the page
    page = _page(Friendship.objects.filter(user=viewer).order_by("friend__username", "friend_id")
                 .values_list("friend_id", "friend__username"), number)
    ids = [uid for uid, _name in page.rows]
    where = whereabouts(viewer, ids, invites)
    points = _points(ids)
    rows = [{"username": name, **_standing(uid, points.get(uid)), **where[uid]}
            for uid, name in page.rows]
    return Page(rows, page.number, page.has_next)


def _points(user_ids: list[int]) -> dict[int, tuple[int, str]]:
    """Rating points and chosen avatar of ``user_ids`` (one query; none for an
    empty list)."""
    return {uid: (points, avatar) for uid, points, avatar in Profile.objects.filter(
        user_id__in=user_ids).values_list("user_id", "rating_points", "avatar")}


def _standing(user_id: int, found: tuple[int, str] | None) -> dict[str, Any]:
    points, avatar = found or (0, "")
    profile = Profile(user_id=user_id, rating_points=points, avatar=avatar)
    return {"level": profile.level, "title": profile.title, "title_en": profile.title_en,
            "avatar": profile.avatar_code, "frame": profile.frame}


def incoming(viewer: User, number: int) -> Page:
    """Page ``number`` of the requests waiting for ``viewer``, newest first
    (usernames; never a silent one)."""
    page = _page(FriendRequest.objects.filter(
        to_user=viewer, status=FriendRequest.PENDING, silent=False)
        .order_by("-created_at", "-pk").values_list("from_user__username", flat=True), number)
    return page


def outgoing(viewer: User, number: int) -> Page:
    """Page ``number`` of ``viewer``'s own pending requests, newest first
    (usernames; silent ones too: to their sender they look like any other)."""
    return _page(FriendRequest.objects.filter(from_user=viewer, status=FriendRequest.PENDING)
                 .order_by("-created_at", "-pk").values_list("to_user__username", flat=True),
                 number)


def blocked(viewer: User, number: int) -> Page:
    """Page ``number`` of the people ``viewer`` blocks, by name (usernames)."""
    return _page(Block.objects.filter(blocker=viewer).order_by("blocked__username", "blocked_id")
                 .values_list("blocked__username", flat=True), number)


def search(viewer: User, text: str, number: int) -> Page:
    """Page ``number`` of the players whose name contains ``text`` (any case),
    by name, ``viewer`` left out: rows ``{"username", "level", "title",
    "title_en", "state", "blocked"}`` (``state`` as :func:`social.relations.state`,
    ``blocked``: the viewer blocks them). ``text`` is folded as sign-up folds
    a new name (:func:`accounts.usernames.normalise`: full-width ``ABC``
    finds ``ABCdef``)."""
    text = usernames.normalise(text)
    users = get_user_model().objects.filter(username__icontains=text, is_active=True).exclude(
        pk=viewer.pk).order_by("username", "pk").only("pk", "username")
    page = _page(users, number)
    ids = [u.pk for u in page.rows]
    points = _points(ids)
    friends_ = set(Friendship.objects.filter(user=viewer, friend_id__in=ids)
                   .values_list("friend_id", flat=True))
    sent, got = set(), set()
    for frm, to, silent in FriendRequest.objects.filter(status=FriendRequest.PENDING).filter(
            Q(from_user=viewer, to_user_id__in=ids) | Q(to_user=viewer, from_user_id__in=ids)
    ).values_list("from_user_id", "to_user_id", "silent"):
        if frm == viewer.pk:
            sent.add(to)
        elif not silent:
            got.add(frm)
    blocks = set(Block.objects.filter(blocker=viewer, blocked_id__in=ids)
                 .values_list("blocked_id", flat=True))
    rows = []
    for u in page.rows:
        state = (relations.FRIENDS if u.pk in friends_ else relations.OUTGOING if u.pk in sent
                 else relations.INCOMING if u.pk in got else relations.NONE)
        rows.append({"username": u.username, **_standing(u.pk, points.get(u.pk)), "state": state,
                     "blocked": u.pk in blocks})
    return Page(rows, page.number, page.has_next)


def public_card(user: User) -> dict[str, Any]:
    """``GET /api/users/<username>``: what anyone may know of a player — never
    coins. ``avatar``: a code of ``accounts.models.AVATARS`` (``frame``: its
    level band); ``finish_rate`` (0–100) is ``None`` for a 新人
    (``social.reputation.shown``); ``rated_games`` counts the rated games that
    ended normally or by an escape (RULES.md §12 "Rated game": what the 5-game
    threshold counts)."""
    profile = Profile.objects.filter(user=user).first()
    return {
        "username": user.username,
        "level": profile.level if profile else 0,
        "title": profile.title if profile else "",
        "title_en": profile.title_en if profile else "",
        "rating_points": profile.rating_points if profile else 0,
        "avatar": profile.avatar_code if profile else default_avatar(user.pk),
        "frame": profile.frame if profile else 0,
        "finish_rate": reputation.shown(profile),
        "rated_games": profile.counted_games if profile else 0,
    }
