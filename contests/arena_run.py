"""Arenas while they run (RULES.md §12 "Arenas"): the start (cancel and
refund under four entrants, else the house prize), tables of four from the
queue, the 30-second confirmation, points at each game's end, the end and
the payout.

Driven by :func:`tick` (``contests.arena_tasks.arena_tick``: Celery beat and
the embedded ticker, ``yuanzi_site.jobs``) and by the plugin seam
(``contests.plugin``: :func:`game_started`, :func:`game_ended`,
:func:`seat_check`). Seats are written only through ``games.tables``; coins
only through ``shop.ledger`` (``arena_refund``, ``arena_prize`` transfers out of
the pool, a ``grant`` for the house prize with its audit row).

An arena table is a private ``Table`` owned by the arena's pool account:
off the lobby and quick start, no wager, no bots, no sign or tablecloth
(nobody owns it; renames are refused), open to anyone from the arena page
(its invite link) and so to spectators. The four seated confirm with
``ready``; whoever has not within :data:`CONFIRM_SECONDS` is paused and the
others go back to the head of the queue.
"""

from __future__ import annotations

import random
from datetime import timedelta
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import inbox, usernames
from contests import arena_pairing
from contests.models import Arena, ArenaEntry, ArenaSeating
from games import events, presence, tables
from games.models import Game, Seat, Table
from moderation.models import AuditEntry
from shop import ledger
from social.models import Block
from yuanzi_site.refusals import Refused

if TYPE_CHECKING:
    from collections.abc import Sequence

    from games.plugins import GameEnd, Moment

CONFIRM_SECONDS = 30
WIN, CLAMP_WIN = 2, 3

#: the arena's notifications (消息), registered in ``ContestsConfig.ready``; "your
#: table is ready" is a prompt: its toast and row carry a button to the table until
#: the seating's ``confirm_by`` (a player elsewhere was paused for want of one)
KINDS: dict[str, Promise | str | inbox.Prompt] = {
    "arena_seated": inbox.Prompt(
        gettext_lazy("Arena “%(arena)s”: your table is ready, confirm within 30 seconds."),
        gettext_lazy("Go to your table and confirm"), until="confirm_by"),
    "arena_cancelled": gettext_lazy("Arena “%(arena)s” had fewer than four players: your "
                                    "%(amount)s coins are refunded."),
    "arena_prize": gettext_lazy("Arena “%(arena)s”: place %(place)s, %(amount)s coins."),
    "arena_paused": gettext_lazy("Arena “%(arena)s”: you are paused (you did not confirm your "
                                 "table). Resume on the arena page."),
}


def ends_at(arena: Arena) -> Any:
    """When ``arena`` stops giving tables (its start + duration)."""
    return arena.starts_at + timedelta(minutes=arena.duration_minutes)


def _link(arena_id: int) -> str:
    return f"/arenas/{arena_id}/"


def table_path(table: Table) -> str:
    """The arena table's page for anyone (its invite link: the table is private)."""
    return f"/tables/{table.pk}/?invite={table.invite_token}"


# --- standings and prizes (pure) --------------------------------------------------


def standing_key(entry: ArenaEntry) -> tuple[Any, ...]:
    """RULES.md §12: points, then win rate, then the earlier join."""
    rate = Fraction(entry.wins, entry.games) if entry.games else Fraction(0)
    return (-entry.points, -rate, entry.joined_at, entry.pk)


def prizes(pool: int, split: Sequence[int], points: Sequence[int]) -> list[int]:
    """Each ranked player's prize, in standings order (RULES.md §12): each
    place's share of ``pool`` floored, the remainder to first place; players
    on equal ``points`` share the places they span equally, the remainder a
    coin at a time in standings order. Places past the players go to first.

    >>> prizes(101, [50, 30, 20], [9, 5, 5, 0])
    [51, 25, 25, 0]
    >>> prizes(100, [50, 30, 20], [4, 4, 4, 2])
    [34, 33, 33, 0]
    """
    n = len(points)
    if n == 0:
        return []
    shares = [pool * pct // 100 for pct in split]
    shares[0] += pool - sum(shares)
    if len(shares) > n:
        shares[0] += sum(shares[n:])
        shares = shares[:n]
    shares += [0] * (n - len(shares))
    result = [0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and points[j + 1] == points[i]:
            j += 1
        total, k = sum(shares[i:j + 1]), j - i + 1
        each, rest = divmod(total, k)
        for m in range(i, j + 1):
            result[m] = each + (1 if m - i < rest else 0)
        i = j + 1
    return result


# --- the plugin seam ---------------------------------------------------------------


def _seating_at(table: Table) -> ArenaSeating | None:
    if not table.private:  # arena tables are private: others cost no query
        return None
    return (ArenaSeating.objects.filter(table_id=table.pk).select_related("arena")
            .order_by("-pk").first())


def is_arena_table(table: Table) -> bool:
    """Whether ``table`` is an arena's (at most one query, none for a public table)."""
    return table.private and Arena.objects.filter(pool_id=table.owner_id).exists()


def seat_check(table: Table, user: Any, moment: Moment) -> None:
    """At an arena table: only the four it seated may sit (``arena_table``);
    at a game's end everyone leaves it (``arena_game_over``: back in the queue
    or paused), so the next tables are drawn afresh."""
    if moment not in ("sit", "game_end", "bot") or not table.private:
        return
    seating = _seating_at(table)
    if seating is None:
        return
    if moment == "game_end":
        status = (ArenaEntry.objects.filter(arena_id=seating.arena_id, user=user)
                  .values_list("status", flat=True).first())
        queued = status == ArenaEntry.QUEUED
        raise Refused("arena_game_over", lambda: (
                      _("Game over: you are back in the arena's queue.") if queued
                      else _("Game over: this arena gives you no new table now.")),
                      {"arena_id": seating.arena_id, "path": _link(seating.arena_id)})
    if (moment == "bot" or seating.done or seating.game_id is not None
            or user.pk not in seating.user_ids):
        raise Refused("arena_table", _("This is an arena table: join the arena to play."),
                      {"arena_id": seating.arena_id})


def stood_view_keys(game_id: int, state: dict[str, Any], seat: int | None,
                    user_id: int | None) -> dict[str, Any]:
    """A player's own view of an arena game that is over: ``stood_reason``
    (``{language code: text}``), why the table seats them no longer and what
    comes next (back in the queue, the next table ready, paused until they
    resume on the arena page, the arena over), so the page does not tell
    them to sit down again (the arena seats them; RULES.md §12 arenas). Two
    queries, only for a player's view of a finished game."""
    if state.get("status") != "over" or user_id is None or seat is None:
        return {}
    seating = (ArenaSeating.objects.filter(game_id=game_id).select_related("arena")
               .only("arena__status").first())
    if seating is None:
        return {}
    status = (ArenaEntry.objects.filter(arena_id=seating.arena_id, user_id=user_id)
              .values_list("status", flat=True).first())
    running = seating.arena.status == Arena.RUNNING

    def words() -> str:
        if not running:
            return _("The arena is over.")
        if status == ArenaEntry.QUEUED:
            return _("Game over: you are back in the arena's queue.")
        if status in (ArenaEntry.SEATED, ArenaEntry.PLAYING):
            return _("Game over: your next arena table is ready.")
        if status == ArenaEntry.PAUSED:
            return _("You are paused in this arena: resume on its page to be seated again.")
        return _("Game over: this arena gives you no new table now.")

    return {"stood_reason": events.spoken(words)["texts"]}


def arena_snapshot_keys(tables: list[Table]) -> dict[int, dict[str, Any]]:
    """``{table_id: {"arena": {"id", "name", "path", "seated", "confirm_by"}}}``
    for the arena tables among ``tables`` (``seated``: the user ids the open
    seating placed, ``confirm_by``: ISO time or ``None`` once their game
    began or no seating is open). Two queries, none if no table is private
    (nor for a friend's room whose owner is loaded)."""
    owner = Table._meta.get_field("owner")
    # a pool account is named "#arena-…" (contests.arena.create): a friend's
    # room whose owner is loaded costs no query (a connect's count)
    candidates = [t for t in tables if t.private and (
        not owner.is_cached(t) or usernames.is_house(t.owner.username))]
    private = [t.pk for t in candidates]
    if not private:
        return {}
    arenas = {a.pool_id: a for a in Arena.objects.filter(
        pool_id__in={t.owner_id for t in candidates})}
    if not arenas:
        return {}
    open_seatings = {s.table_id: s for s in ArenaSeating.objects.filter(
        table_id__in=private, done=False).order_by("pk")}
    out: dict[int, dict[str, Any]] = {}
    for t in tables:
        arena = arenas.get(t.owner_id) if t.private else None
        if arena is None:
            continue
        seating = open_seatings.get(t.pk)
        waiting = seating is not None and seating.game_id is None
        out[t.pk] = {"arena": {
            "id": arena.pk, "name": arena.name, "path": _link(arena.pk),
            "seated": list(seating.user_ids) if seating is not None else [],
            "confirm_by": seating.confirm_by.isoformat() if waiting and seating else None}}
    return out


def rename_check(table: Table, override: bool) -> None:
    """Arena tables keep their names (no 招牌), but for a moderator."""
    if not override and is_arena_table(table):
        raise Refused("arena_table", _("An arena table keeps its name."))


def game_started(game: Game) -> None:
    """The seating's game began: its four are playing."""
    if game.practice:
        return
    seating = (ArenaSeating.objects.filter(table_id=game.table_id, done=False, game=None)
               .order_by("-pk").first())
    if seating is None:
        return
    seating.game = game
    seating.save(update_fields=["game"])
    ArenaEntry.objects.filter(arena_id=seating.arena_id, user_id__in=seating.user_ids).update(
        status=ArenaEntry.PLAYING)


def game_ended(end: GameEnd) -> None:
    """Arena points (RULES.md §12): win 2, a double-clamp win 3, loss 0; an
    escape scores 0 for the table and removes the escaper; a moderator's
    ending scores 0. Only games that ended normally count in win rates.
    Each player is queued again unless they asked to pause (or the arena is
    over)."""
    if end.game.practice:
        return
    seating = (ArenaSeating.objects.select_for_update().filter(game_id=end.game.pk, done=False)
               .select_related("arena").first())
    if seating is None:
        return
    users = [s.user_id for s in end.seats]
    points = [0, 0, 0, 0]
    winner = end.result.get("winner")
    counted = end.reason == Game.NORMAL and winner is not None
    if counted:
        won = CLAMP_WIN if end.result.get("double_clamp") else WIN
        points = [won if seat % 2 == winner else 0 for seat in range(4)]
    escaper = end.result.get("abandoned_by") if end.reason == Game.ESCAPE else None
    running = seating.arena.status == Arena.RUNNING
    now = timezone.now()
    entries = {e.user_id: e for e in ArenaEntry.objects.select_for_update().filter(
        arena_id=seating.arena_id, user_id__in=[u for u in users if u is not None])}
    for seat, uid in enumerate(users):
        entry = entries.get(uid) if uid is not None else None
        if entry is None:
            continue
        entry.points += points[seat]
        entry.games += 1 if counted else 0
        entry.wins += 1 if counted and points[seat] else 0
        entry.last_partner = users[(seat + 2) % 4]
        entry.last_opponents = [users[(seat + 1) % 4], users[(seat + 3) % 4]]
        if seat == escaper:
            entry.status = ArenaEntry.REMOVED
        elif entry.status == ArenaEntry.PLAYING:
            queued = running and not entry.pause_after
            entry.status = ArenaEntry.QUEUED if queued else ArenaEntry.PAUSED
            entry.queued_at = now
        entry.pause_after = False
        entry.save(update_fields=["points", "games", "wins", "last_partner", "last_opponents",
                                  "status", "queued_at", "pause_after"])
    seating.done, seating.points = True, points
    seating.save(update_fields=["done", "points"])


# --- the tick ----------------------------------------------------------------------


def tick(rng: random.Random | None = None) -> None:
    """One pass over the arenas (every few seconds): start those due, lapse
    unconfirmed tables, seat the queues, end those past their time, pay out
    those whose last game ended. Idempotent; each step its own transaction."""
    now = timezone.now()
    for arena_id in Arena.objects.filter(status=Arena.UPCOMING, starts_at__lte=now).values_list(
            "pk", flat=True):
        start(arena_id)
    for seating_id in ArenaSeating.objects.filter(
            done=False, game=None, confirm_by__lte=now).values_list("pk", flat=True):
        lapse(seating_id)
    for arena in Arena.objects.filter(status=Arena.RUNNING):
        if ends_at(arena) <= now:
            stop(arena.pk)
        else:
            pair(arena.pk, rng)
    for arena_id in Arena.objects.filter(status=Arena.FINISHING).values_list("pk", flat=True):
        pay_out(arena_id)


def start(arena_id: int) -> bool:
    """Start an upcoming arena: under four entrants it is cancelled and every
    entry refunded (no house prize); else the house prize is granted into the
    pool (an audited ``grant``) and the queue opens.

    :returns: whether it started (``False``: cancelled, or not due).
    """
    with transaction.atomic():
        arena = Arena.objects.select_for_update().filter(
            pk=arena_id, status=Arena.UPCOMING).first()
        if arena is None:
            return False
        entries = list(ArenaEntry.objects.select_for_update().filter(arena=arena))
        if len(entries) < 4:
            legs: list[tuple[int, int]] = [(e.user_id, e.fee_paid) for e in entries if e.fee_paid]
            if legs:
                ledger.transfer([(arena.pool_id, -sum(a for _, a in legs)), *legs],
                                ledger.Reason.ARENA_REFUND, note=arena.name)
            for e in entries:
                inbox.post(e.user_id, "arena_cancelled", {"arena": arena.name,
                                                          "amount": e.fee_paid},
                           _link(arena.pk))
            # "done", not "withdrawn": the cancelled arena still lists who entered
            ArenaEntry.objects.filter(arena=arena).update(fee_paid=0, status=ArenaEntry.DONE)
            arena.status, arena.ended_at = Arena.CANCELLED, timezone.now()
            arena.save(update_fields=["status", "ended_at"])
            return False
        if arena.house_prize and not arena.house_paid:
            entry = ledger.credit(arena.pool_id, arena.house_prize, ledger.Reason.GRANT,
                                  other=arena.created_by_id,
                                  note=f"arena house prize: {arena.name}")
            creator = arena.created_by
            AuditEntry.objects.create(
                moderator=creator, moderator_name=creator.username if creator else "",
                action=AuditEntry.GRANT, target_user_id=arena.pool_id,
                target_name=arena.pool.username, reason=f"arena house prize: {arena.name}",
                before={"coins": entry.balance_after - arena.house_prize},
                after={"coins": entry.balance_after})
            arena.house_paid = True
        arena.status = Arena.RUNNING
        arena.save(update_fields=["status", "house_paid"])
        return True


def _free_table(arena: Arena) -> Table | None:
    busy = ArenaSeating.objects.filter(done=False).values("table_id")
    return (Table.objects.filter(owner_id=arena.pool_id, closed=False, status=Table.WAITING)
            .exclude(seats__user__isnull=False).exclude(pk__in=busy).order_by("pk").first())


def pair(arena_id: int, rng: random.Random | None = None) -> int:
    """Seat the connected (``games.presence.online``) of a running arena's
    queue in fours (:func:`contests.arena_pairing.plan`),
    each at a free arena table (or a new one), to confirm within 30 s. A player
    who cannot sit (they play a running game elsewhere, or a seat policy
    refuses) is paused and their table tried again at the next tick.

    :returns: how many tables were seated.
    """
    arena = Arena.objects.filter(pk=arena_id, status=Arena.RUNNING).first()
    if arena is None:
        return 0
    queue = list(ArenaEntry.objects.filter(arena=arena, status=ArenaEntry.QUEUED)
                 .order_by("queued_at", "joined_at", "pk")
                 .values_list("user_id", "last_partner", "last_opponents"))
    # only the connected are seated (RULES.md §12): one who is away stays
    # queued and gets a table once back, rather than a seat they never see
    here = presence.online(u for u, _, _ in queue)
    queue = [q for q in queue if q[0] in here]
    if len(queue) < 4:
        return 0
    ids = [u for u, _, _ in queue]
    blocks = {frozenset(p) for p in Block.objects.filter(
        blocker_id__in=ids, blocked_id__in=ids).values_list("blocker_id", "blocked_id")}
    groups = arena_pairing.plan(ids, {u: p for u, p, _ in queue}, blocks,
                                rng or random.SystemRandom(),
                                {u: o for u, _, o in queue})
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=ids)}
    seated = 0
    for group in groups:
        try:
            _seat_group(arena, group, users)
            seated += 1
        except Refused as e:
            uid = e.params.get("user_id")
            if isinstance(uid, int):
                _pause_unseatable(arena, uid, e)
    return seated


def _seat_group(arena: Arena, group: list[int], users: dict[int, Any]) -> None:
    with transaction.atomic():
        table = _free_table(arena)
        if table is None:
            number = ArenaSeating.objects.filter(arena=arena).count() + 1
            table = tables.create_table(arena.pool, f"{arena.name[:30]} #{number}", True)
        seating = ArenaSeating.objects.create(
            arena=arena, table=table, user_ids=group,
            confirm_by=timezone.now() + timedelta(seconds=CONFIRM_SECONDS))
        if ArenaEntry.objects.filter(arena=arena, user_id__in=group, status=ArenaEntry.QUEUED
                                     ).update(status=ArenaEntry.SEATED) != 4:
            raise Refused("arena_table", "the queue changed")  # next tick tries again
        for index, uid in enumerate(group):
            try:
                tables.sit(table.pk, users[uid], index)
            except Refused as e:
                raise Refused(e.reason, e.words, {**e.params, "user_id": uid}) from None
        # confirm_by: until when the notification's toast and row lead to the table
        params = {"arena": arena.name, "table": table.name, "arena_id": arena.pk,
                  "confirm_by": seating.confirm_by.isoformat()}
        for uid in group:
            inbox.post(uid, "arena_seated", params, table_path(table),
                       supersedes={"arena_id": arena.pk})
            # the ticker speaks no language of its own: each page gets its own
            events.send_user(uid, {"type": "arena_seated", "arena_id": arena.pk,
                                   "seating": seating.pk, "path": table_path(table),
                                   **events.spoken(lambda: inbox.render("arena_seated", params))})


def _pause_unseatable(arena: Arena, user_id: int, why: Refused) -> None:
    with transaction.atomic():
        ArenaEntry.objects.filter(arena=arena, user_id=user_id, status=ArenaEntry.QUEUED
                                  ).update(status=ArenaEntry.PAUSED)
        events.notify(user_id, "arena_paused", why.words, {"arena_id": arena.pk})


def lapse(seating_id: int) -> None:
    """A table not confirmed in time: whoever is not seated and ready is
    paused (``arena_paused``), the others go back to the head of the queue;
    everyone leaves the table."""
    with transaction.atomic():
        seating = ArenaSeating.objects.filter(pk=seating_id, done=False, game=None).first()
        if seating is None:
            return
        table = Table.objects.select_for_update().get(pk=seating.table_id)
        seating = ArenaSeating.objects.select_for_update().get(pk=seating_id)
        if seating.done or seating.game_id is not None or table.status != Table.WAITING:
            return
        ready = set(Seat.objects.filter(table=table, ready=True, user__isnull=False)
                    .values_list("user_id", flat=True))
        confirmed = [u for u in seating.user_ids if u in ready]
        lapsed = [u for u in seating.user_ids if u not in ready]
        arena = seating.arena
        running = arena.status == Arena.RUNNING
        if confirmed:
            tables.stand_up(table, confirmed, "arena_requeued", lambda: (
                            _("Not everyone confirmed: you are back at the head of the queue.")
                            if running else _("The arena is over.")),
                            {"arena_id": arena.pk, "path": _link(arena.pk)})
        if lapsed:
            tables.stand_up(table, lapsed, "arena_paused",
                            lambda: _("You did not confirm in time: you are paused in the "
                                      "arena."),
                            {"arena_id": arena.pk, "path": _link(arena.pk)})
        entries = ArenaEntry.objects.filter(arena=arena, status=ArenaEntry.SEATED)
        entries.filter(user_id__in=confirmed).update(
            status=ArenaEntry.QUEUED if running else ArenaEntry.PAUSED)
        for uid in entries.filter(user_id__in=lapsed).values_list("user_id", flat=True):
            if running:
                inbox.post(uid, "arena_paused", {"arena": arena.name}, _link(arena.pk))
        entries.filter(user_id__in=lapsed).update(status=ArenaEntry.PAUSED)
        seating.done = True
        seating.save(update_fields=["done"])


def stop(arena_id: int) -> None:
    """Time is up: no new tables; tables still waiting for confirmation are
    let go; games in progress finish and count (:func:`pay_out` waits for them)."""
    with transaction.atomic():
        if not Arena.objects.filter(pk=arena_id, status=Arena.RUNNING).update(
                status=Arena.FINISHING):
            return
    for seating_id in ArenaSeating.objects.filter(arena_id=arena_id, done=False, game=None
                                                  ).values_list("pk", flat=True):
        lapse(seating_id)
    ArenaEntry.objects.filter(arena_id=arena_id, status=ArenaEntry.QUEUED).update(
        status=ArenaEntry.PAUSED)


def pay_out(arena_id: int) -> bool:
    """Pay a finishing arena whose games have all ended: the pool goes to
    the standings by :func:`prizes` in one ``arena_prize`` transfer; escapers
    (removed) are not ranked; every ranked entry still in is ``done``.

    :returns: whether it paid out now.
    """
    with transaction.atomic():
        arena = Arena.objects.select_for_update().filter(
            pk=arena_id, status=Arena.FINISHING).first()
        if arena is None or ArenaSeating.objects.filter(arena=arena, done=False).exists():
            return False
        ranked = sorted(ArenaEntry.objects.select_for_update().filter(arena=arena).exclude(
            status=ArenaEntry.REMOVED), key=standing_key)
        pool = ledger.lock_balances([arena.pool_id])[arena.pool_id]
        amounts = prizes(pool, arena.prize_split, [e.points for e in ranked])
        legs = [(e.user_id, a) for e, a in zip(ranked, amounts, strict=True) if a]
        if legs:
            ledger.transfer([(arena.pool_id, -sum(a for _, a in legs)), *legs],
                            ledger.Reason.ARENA_PRIZE, note=arena.name)
        for place, (entry, amount) in enumerate(zip(ranked, amounts, strict=True), start=1):
            # withdrawn entries with games are ranked too, and keep saying so
            if entry.status != ArenaEntry.WITHDRAWN:
                entry.status = ArenaEntry.DONE
            entry.place, entry.prize = place, amount
            entry.save(update_fields=["status", "place", "prize"])
            if amount:
                inbox.post(entry.user_id, "arena_prize",
                           {"arena": arena.name, "place": place, "amount": amount},
                           _link(arena.pk))
        arena.status, arena.ended_at = Arena.FINISHED, timezone.now()
        arena.save(update_fields=["status", "ended_at"])
        return True

