"""A ceiling, not a bot: what the master would gain if its sampled deals held some
seats' true hands (docs/bench.md "Sixth round"). It cheats on purpose, so it is a
benchmark only and never a policy of the site (RULES.md §12).

Plays exactly ``bench/botmatch_log.py`` with side A named ``oracle``: the master
with its search's deals (:func:`games.engine.master.sample_hands`) replaced by
ones where the seats named by ``--know`` hold their real cards and the rest of
the unseen cards are sampled as usual. Pair its log with the master's on the same
seed (``botmatch_log.py --summary --paired``)::

    nice -n 10 python bench/oracle.py --know opponents --seed tune --deals 200 \\
        --out /tmp/oracle-opponents.jsonl --a-kw samples=1
    python bench/botmatch_log.py --out /tmp/oracle-opponents.jsonl --summary \\
        --paired /tmp/master.jsonl

``--know``: ``all`` (every hidden hand), ``opponents``, ``partner``, ``controls``
(only the opponents' bombs, atoms and three or more jokers) or ``noncontrols``
(the opponents' other cards).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH.parent), str(BENCH)]

import botmatch_log  # noqa: E402

import games.engine.botmatch as botmatch  # noqa: E402
from games.engine import POLICIES, master  # noqa: E402
from games.engine.shapes import BotView, State  # noqa: E402

KNOW = ("all", "opponents", "partner", "controls", "noncontrols")
_now: dict[str, State] = {}


def _controls(hand: list[str], dao: str) -> list[str]:
    """The cards of ``hand`` that make its controls (RULES.md §3): every card of a
    rank held four or more times, every card held three times (an atom), and the
    jokers when three or more."""
    copies = Counter(hand)
    natural = Counter(c[0] for c in hand if c[1] != "J")
    jokers = [c for c in hand if c[1] == "J"]
    keep = [c for c in hand if c[1] != "J" and (natural[c[0]] >= 4 or copies[c] >= 3)]
    return keep + (jokers if len(jokers) >= 3 else [])


def _known(know: str, seat: int, hands: list[list[str]], dao: str) -> dict[int, list[str]]:
    """Per seat whose cards the oracle knows, the cards it knows."""
    if know == "all":
        return {x: list(hands[x]) for x in range(4) if x != seat}
    if know == "partner":
        return {(seat + 2) % 4: list(hands[(seat + 2) % 4])}
    opponents = [(seat + 1) % 4, (seat + 3) % 4]
    if know == "opponents":
        return {x: list(hands[x]) for x in opponents}
    out = {}
    for x in opponents:
        ctrl = _controls(hands[x], dao)
        if know == "controls":
            out[x] = ctrl
        else:
            rest = Counter(hands[x])
            rest.subtract(ctrl)
            out[x] = list((+rest).elements())
    return out


def knowing(know: str) -> Any:
    """A :func:`~games.engine.master.sample_hands` whose deals hold what ``know``
    says of the real hands (of the game :func:`botmatch.play_deal` is playing)."""

    def sample(view: BotView, unseen: Counter[str], weights: Any,
               rng: random.Random) -> list[list[str]]:
        seat = view["seat"]
        assert seat is not None
        fixed = _known(know, seat, _now["state"]["hands"], view["dao"])
        rest = Counter(unseen)
        for cards in fixed.values():
            rest.subtract(cards)
        counts = [c - len(fixed.get(x, [])) for x, c in enumerate(view["counts"])]
        hands = real_sample({**view, "counts": counts}, +rest, weights, rng)
        for x, cards in fixed.items():
            hands[x] = hands[x] + cards
        return hands

    return sample


real_sample = master.sample_hands
real_bot_view = botmatch.bot_view


def main() -> None:
    """``--know K`` then the arguments of ``bench/botmatch_log.py`` (``--a`` is
    ``oracle``)."""
    argv = sys.argv[1:]
    if "--know" not in argv or argv[argv.index("--know") + 1] not in KNOW:
        raise SystemExit(f"--know one of {', '.join(KNOW)} is required")
    at = argv.index("--know")
    know = argv[at + 1]
    del argv[at:at + 2]
    sample = knowing(know)

    def bot_view(state: State, seat: int) -> Any:
        _now["state"] = state
        return real_bot_view(state, seat)

    def oracle(view: Any, rng: random.Random, **kw: Any) -> Any:
        master.sample_hands = sample
        try:
            return master.master_policy(view, rng, **kw)
        finally:
            master.sample_hands = real_sample

    botmatch.bot_view = bot_view
    POLICIES["oracle"] = oracle
    sys.argv = [sys.argv[0], "--a", "oracle", *argv]
    botmatch_log.main()


if __name__ == "__main__":
    main()
