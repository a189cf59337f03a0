"""Fair-play signals: for every pair of accounts that played rated
games together, measures computed from the stored RULES.md §11 records (never
per request: ``moderation.tasks.compute_fairplay`` on the beat), and flags.

Per pair (``user_a`` id < ``user_b`` id), over their rated games together:

- ``as_partners`` / ``as_opponents``: games on one team / on opposite teams;
- ``opp_win_rate``: of their games as opponents with a winner, the share
  ``user_a``'s team won;
- ``coin_flow``: coins ``user_a`` received from ``user_b`` in wager games
  (ledger entries of reason ``wager`` naming the other party), minus the reverse;
- ``pass_rate``: when one faced the other's play as an opponent, the share of
  times they passed while holding a play that beat it (``games.engine.legal_plays``
  on the replayed state);
- ``same_ip_games``: games they played together having connected to that table
  from one address (``ConnectionAddress``: a keyed hash, never the address).

A pair is flagged for a measure when it has at least ``MIN_GAMES`` games
together and the measure lies ``SD_LIMIT`` standard deviations or more from
the mean over every such pair (the population), and ``same_ip`` when
``same_ip_games`` > 0. Flags show in the console (``/mod/flags/``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from games import engine
from games.models import Game, GameSeat
from moderation.models import ConnectionAddress, PairSignal
from shop.models import CoinEntry

MIN_GAMES = 20
SD_LIMIT = 3.0
ADDRESS_SECONDS = 6 * 3600  # how long a connect's address is kept for its table's game
MEASURES = ("opp_win_rate", "coin_flow", "pass_rate", "as_partners_share")


def address_hash(address: str) -> str:
    """The keyed hash (HMAC-SHA-256 with ``SECRET_KEY``) of a client address."""
    return hmac.new(settings.SECRET_KEY.encode(), address.encode(), hashlib.sha256).hexdigest()


def _address_key(table_id: int, user_id: int) -> str:
    return f"moderation:address:{table_id}:{user_id}"


def remember_address(table_id: int, user: User | AnonymousUser, address: str | None) -> None:
    """On a table connect (``moderation.plugin``): note the hash of the address a logged-in
    user connected to a table from (the trusted proxy's, as Daphne's
    ``--proxy-headers`` puts it in the scope). Only the cache is written here —
    a connect storm must not become a storm of database writes (DESIGN.md
    "Load"); :func:`keep_addresses` stores it when a game at that table ends."""
    if not address or not user.is_authenticated:
        return
    cache.set(_address_key(table_id, user.pk), address_hash(address), ADDRESS_SECONDS)


def keep_addresses(table_id: int, user_ids: Iterable[int]) -> None:
    """Store the noted address hashes of ``user_ids`` at ``table_id``."""
    for uid in user_ids:
        h = cache.get(_address_key(table_id, uid))
        if h:
            ConnectionAddress.objects.get_or_create(user_id=uid, table_id=table_id,
                                                    address_hash=h)


@dataclass
class _Pair:
    games: list[int] = field(default_factory=list)
    as_partners: int = 0
    as_opponents: int = 0
    a_won: int = 0
    decided: int = 0
    chances: int = 0
    soft: int = 0
    same_ip: int = 0


def soft_passes(record: engine.Record) -> dict[tuple[int, int], list[int]]:
    """From a §11 record: ``{(passer seat, player seat): [chances, soft passes]}``
    for opponents — each time ``passer`` faced ``player``'s play, and each
    time they passed holding a play that beat it."""
    out: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    steps = engine.record_actions(record)
    states = engine.replay(record["seed"], steps, record["levels"], record["bots"])
    for state, (seat, action) in zip(states, steps, strict=False):
        if action["type"] not in ("play", "pass") or state["trick"]["last"] is None:
            continue
        played = [s for s, cards in state["trick"]["plays"] if cards]
        if not played:
            continue
        by = played[-1]
        if engine.team_of(by) == engine.team_of(seat):
            continue
        tally = out[(seat, by)]
        tally[0] += 1
        if action["type"] == "pass" and engine.legal_plays(
                state["hands"][seat], engine.table_play(state), state["dao"]):
            tally[1] += 1
    return out


def compute(min_games: int = MIN_GAMES, sd_limit: float = SD_LIMIT) -> int:
    """Recompute every pair's signals and flags from the stored records.

    :returns: how many pairs are flagged.
    """
    games = (Game.objects.filter(status=Game.OVER, practice=False, record__isnull=False)
             .values_list("pk", "table_id", "record"))
    seats: dict[int, dict[int, int]] = defaultdict(dict)
    for game_id, index, user_id in GameSeat.objects.filter(
            game__status=Game.OVER, game__practice=False, user__isnull=False
    ).values_list("game_id", "index", "user_id"):
        seats[game_id][index] = user_id
    hashes: dict[tuple[int, int], set[str]] = defaultdict(set)
    for user_id, table_id, h in ConnectionAddress.objects.values_list("user_id", "table_id",
                                                                       "address_hash"):
        hashes[(user_id, table_id)].add(h)
    pairs: dict[tuple[int, int], _Pair] = defaultdict(_Pair)
    # identical records (same seed and plays) replay once
    replayed: dict[str, dict[tuple[int, int], list[int]]] = {}
    for game_id, table_id, stored in games:
        record = cast(engine.Record, stored)  # never null: record__isnull=False above
        users = seats.get(game_id, {})
        if len(users) != 4:
            continue
        winner = record["result"].get("winner")
        key = json.dumps([record["seed"], record["halves"]], sort_keys=True)
        passes = replayed.get(key)
        if passes is None:
            passes = replayed[key] = soft_passes(record)
        for i in range(4):
            for j in range(i + 1, 4):
                (sa, ua), (sb, ub) = sorted(((i, users[i]), (j, users[j])), key=lambda x: x[1])
                p = pairs[(ua, ub)]
                p.games.append(game_id)
                if engine.team_of(sa) == engine.team_of(sb):
                    p.as_partners += 1
                else:
                    p.as_opponents += 1
                    if winner is not None:
                        p.decided += 1
                        p.a_won += int(winner == engine.team_of(sa))
                    for seats_key in ((sa, sb), (sb, sa)):
                        chances, soft = passes.get(seats_key, (0, 0))
                        p.chances += chances
                        p.soft += soft
                if hashes[(ua, table_id)] & hashes[(ub, table_id)]:
                    p.same_ip += 1
    flows = _coin_flows(pairs)
    now = timezone.now()
    rows = []
    for (ua, ub), p in pairs.items():
        rows.append(PairSignal(
            user_a_id=ua, user_b_id=ub, games=len(p.games), as_partners=p.as_partners,
            as_opponents=p.as_opponents,
            opp_win_rate=p.a_won / p.decided if p.decided else None,
            coin_flow=flows.get((ua, ub), 0),
            pass_rate=p.soft / p.chances if p.chances else None,
            same_ip_games=p.same_ip, game_ids=sorted(p.games)[-50:], flags=[],
            computed_at=now))
    _flag(rows, min_games, sd_limit)
    with transaction.atomic():
        PairSignal.objects.all().delete()
        PairSignal.objects.bulk_create(rows)
    return sum(1 for r in rows if r.flags)


def _coin_flows(pairs: dict[tuple[int, int], _Pair]) -> dict[tuple[int, int], int]:
    flows: dict[tuple[int, int], int] = defaultdict(int)
    wager = CoinEntry.objects.filter(reason__in=["wager", "escape_wager"], other__isnull=False,
                                     game__isnull=False)
    for user_id, other_id, total in (wager.values("user_id", "other_id")
                                     .annotate(total=Sum("amount"))
                                     .values_list("user_id", "other_id", "total")):
        if user_id < other_id:
            flows[(user_id, other_id)] += total
        else:
            flows[(other_id, user_id)] -= total
    return {k: v for k, v in flows.items() if k in pairs}


def _value(row: PairSignal, measure: str) -> float | None:
    if measure == "as_partners_share":
        return row.as_partners / row.games if row.games else None
    value = getattr(row, measure)
    return float(value) if value is not None else None


def _flag(rows: list[PairSignal], min_games: int, sd_limit: float) -> None:
    """Set each row's ``flags``: measures ``sd_limit`` SD or more from the
    population's mean, and ``same_ip``. The population is every pair with
    ``min_games`` games together: a pair's rate over a handful of games is
    noise that would widen the spread and hide a real outlier."""
    established = [r for r in rows if r.games >= min_games]
    for measure in MEASURES:
        values = [v for r in established if (v := _value(r, measure)) is not None]
        if len(values) < 3:
            continue
        mean, sd = statistics.fmean(values), statistics.pstdev(values)
        if sd == 0:
            continue
        for r in established:
            v = _value(r, measure)
            if v is not None and abs(v - mean) >= sd_limit * sd:
                r.flags.append(measure)
    for r in rows:
        if r.same_ip_games:
            r.flags.append("same_ip")
