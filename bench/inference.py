"""How well the master's sampled deals place the opponents' cards: a quick, offline
figure for work on its inference (docs/bench.md "Sixth round", "Seventh round").
Engine only.

Plays ``--games`` games, the master in seats N and S against the expert; at every
third decision of a master seat once the four hands hold at most ``--cards``
cards, it draws 8 deals of the unseen cards, uniformly, by the master's
inference (:func:`games.engine.master.infer`, :func:`~games.engine.master.sample_hands`)
and by the inference with the factors fitted to the expert
(:data:`~games.engine.master.CALIBRATED_SHED`), and prints the share of the
opponents' real cards each deal puts in the right opponent's hand (and on the
opponents' side at all). The real hands are read only here, to score the deals;
the master never sees them (RULES.md §12)::

    python bench/inference.py --games 6
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine.expert import expert_policy  # noqa: E402
from games.engine.master import (  # noqa: E402
    CALIBRATED_SHED,
    InferredSituation,
    infer,
    master_policy,
    sample_hands,
)
from games.engine.match import OVER, apply, new_game  # noqa: E402
from games.engine.shapes import State  # noqa: E402
from games.engine.view import bot_view  # noqa: E402


def placed(state: State, seat: int, hands: list[list[str]]) -> tuple[float, float]:
    """``(right seat, opponents' side)``: shares of ``seat``'s opponents' real
    cards that ``hands`` gives to the same opponent, and to either opponent."""
    opponents = [(seat + 1) % 4, (seat + 3) % 4]
    real = [Counter(state["hands"][o]) for o in opponents]
    dealt = [Counter(hands[o]) for o in opponents]
    total = sum(sum(r.values()) for r in real)
    right = sum(sum((r & d).values()) for r, d in zip(real, dealt, strict=True))
    side = sum(((real[0] + real[1]) & (dealt[0] + dealt[1])).values())
    return right / total, side / total


def main() -> None:
    """Play the games and print each sampler's two shares (``--games``, ``--cards``,
    ``--seed``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--cards", type=int, default=40)
    ap.add_argument("--seed", default="inference")
    args = ap.parse_args()
    scores: dict[str, list[tuple[float, float]]] = {"uniform": [], "inferred": [],
                                                    "calibrated": []}
    policies = [master_policy, expert_policy, master_policy, expert_policy]
    for g in range(args.games):
        seed = f"{args.seed}:{g}"
        rngs = [random.Random(f"{seed}:{k}") for k in range(4)]
        state = new_game(seed, levels=(0, 0, 0, 0), bots=("master", "expert") * 2)
        n = 0
        while state["status"] != OVER and state["turn"] is not None:
            seat = state["turn"]
            view = bot_view(state, seat)
            if seat % 2 == 0 and sum(view["counts"]) <= args.cards and n % 3 == 0:
                weights = infer(view)
                fitted = infer(view, shed_by=CALIBRATED_SHED, floor=0.01)
                sit = InferredSituation(view, weights)
                if sit.unseen:
                    rng = random.Random(n)
                    for name, w in (("uniform", [{}, {}, {}, {}]), ("inferred", weights),
                                    ("calibrated", fitted)):
                        for _ in range(8):
                            hands = sample_hands(view, sit.unseen, w, rng)
                            scores[name].append(placed(state, seat, hands))
            n += 1
            state, _ = apply(state, seat, policies[seat](view, rngs[seat]))
    for name, got in scores.items():
        right = statistics.fmean(r for r, _ in got)
        side = statistics.fmean(s for _, s in got)
        print(f"{name:10} deals {len(got):5}  right seat {right:.3f}  opponents' side {side:.3f}")


if __name__ == "__main__":
    main()
