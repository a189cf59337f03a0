"""Who plays whom in an arena (RULES.md §12 "Arenas"; "Friends and blocks":
arenas never seat two people together where one blocks the other and it can
be avoided). Pure Python: :mod:`contests.arena_run` hands it the queue.

>>> plan([1, 2, 3, 4, 5], {}, set(), random.Random(0)).__len__()
1
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations

#: how far down the queue a table's three others are looked for
WINDOW = 12
BLOCK_COST = 100  # a block outweighs any number of repeated meetings


def _pair_cost(a: int, b: int, met: Mapping[int, frozenset[int]],
               blocks: set[frozenset[int]]) -> int:
    cost = BLOCK_COST if frozenset((a, b)) in blocks else 0
    if b in met.get(a, frozenset()) or a in met.get(b, frozenset()):
        cost += 1
    return cost


def _arrange(group: Sequence[int], partner: Mapping[int, int | None],
             blocks: set[frozenset[int]], rng: random.Random) -> list[int]:
    """The four in seat order (partners in seats 0/2 and 1/3): the split into
    two teams that repeats no last partnership nor pairs a block, at random
    among the best; then a random seating of the two teams."""
    a, b, c, d = group
    splits = [((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))]

    def cost(split: tuple[tuple[int, int], tuple[int, int]]) -> int:
        total = 0
        for x, y in split:
            total += BLOCK_COST if frozenset((x, y)) in blocks else 0
            total += 1 if partner.get(x) == y or partner.get(y) == x else 0
        return total

    best = min(cost(s) for s in splits)
    team1, team2 = rng.choice([s for s in splits if cost(s) == best])
    team1, team2 = (team1, team2) if rng.random() < 0.5 else (team2, team1)
    t1, t2 = list(team1), list(team2)
    rng.shuffle(t1)
    rng.shuffle(t2)
    return [t1[0], t2[0], t1[1], t2[1]]


def plan(queue: Sequence[int], last_partner: Mapping[int, int | None],
         blocks: set[frozenset[int]], rng: random.Random,
         last_opponents: Mapping[int, Sequence[int]] | None = None) -> list[list[int]]:
    """Tables of four from ``queue`` (user ids, longest waiting first), as
    many as it fills: each takes the longest-waiting player and the three
    others (among the next :data:`WINDOW`) who least meet again someone of
    their last game or someone blocked either way, the earlier in the queue
    on equal terms.

    :param last_partner: user id → their last game's partner (or ``None``).
    :param blocks: ``frozenset({a, b})`` for each block between two queued players.
    :param last_opponents: user id → their last game's opponents.
    :returns: each table's four user ids in seat order (0 = North … 3 = West).
    """
    met: dict[int, frozenset[int]] = {}
    for uid in queue:
        seen = set((last_opponents or {}).get(uid, ()))
        if last_partner.get(uid) is not None:
            seen.add(last_partner[uid])  # type: ignore[arg-type]  # checked above
        met[uid] = frozenset(seen)
    waiting = list(queue)
    tables: list[list[int]] = []
    while len(waiting) >= 4:
        head, window = waiting[0], waiting[1:1 + WINDOW]
        position = {uid: i for i, uid in enumerate(window)}
        best: tuple[int, tuple[int, ...]] | None = None
        chosen: tuple[int, ...] = ()
        for trio in combinations(window, 3):
            group = (head, *trio)
            cost = sum(_pair_cost(x, y, met, blocks) for x, y in combinations(group, 2))
            key = (cost, tuple(position[u] for u in trio))
            if best is None or key < best:
                best, chosen = key, trio
        four = [head, *chosen]
        tables.append(_arrange(four, last_partner, blocks, rng))
        waiting = [u for u in waiting if u not in four]
    return tables
