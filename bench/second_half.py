"""How second halves end: the table behind :func:`games.engine.endgame.game_value`.

Run from the repository root::

    nice -n 10 python bench/second_half.py --games 1500        # prints the table

Plays whole games, the expert's rules (no search) in every seat, seeded
``"second-half:<i>"``, and counts, over the games that reach a second half
(RULES.md §6: no double clamp), the points the leading team (the first half's
first_out team, which leads the second half, §2/§4) scores in it. Prints
``P(lead team scores >= s)`` for ``s = 0, 5, …, 300``, smoothed over ±10
points (a triangular kernel), the constant
:data:`games.engine.endgame.SECOND_HALF_LEAD` is a copy of. Also prints, as a
check, how often the team with ``X`` first-half points won the game, by
first_out and bands of ``X``, against what the table predicts.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine import apply, bot_view, new_game  # noqa: E402
from games.engine.deal import team_of  # noqa: E402
from games.engine.endgame import SECOND_HALF_LEAD, second_half_win  # noqa: E402
from games.engine.expert import expert_policy  # noqa: E402


def play(i: int) -> tuple[int, bool, int | None, int]:
    """Game ``i``: ``(team 0's first-half points, team 0 first_out, the leading
    team's second-half points or None, winner)``."""
    s = new_game(f"second-half:{i}", bots=("expert",) * 4)
    rng = random.Random(i)
    while s["status"] == "playing" and s["turn"] is not None:
        seat = s["turn"]
        s, _ = apply(s, seat, expert_policy(bot_view(s, seat), rng, budget_ms=0.0))
    h1 = s["halves"][0]
    fo0 = team_of(h1["finish_order"][0]) == 0
    lead_pts = None
    if len(s["halves"]) > 1:
        lead_team = team_of(h1["finish_order"][0])
        lead_pts = s["halves"][1]["points"][lead_team]
    result = s["result"]
    assert result is not None
    return h1["points"][0], fo0, lead_pts, result["winner"]


def table(lead_points: list[int]) -> list[float]:
    """``P(lead team's second-half points >= s)`` for s = 0, 5, …, 300: the
    interior (5–295) smoothed by a triangular kernel over ±10 points, its mass
    kept; 0 and 300 (the (A) ends) exact."""
    n = len(lead_points)
    pmf = [sum(1 for p in lead_points if p == 5 * k) / n for k in range(61)]
    kern = {-2: 1.0, -1: 2.0, 0: 3.0, 1: 2.0, 2: 1.0}
    smooth = list(pmf)
    for k in range(1, 60):
        pairs = [(w, pmf[k + d]) for d, w in kern.items() if 0 < k + d < 60]
        smooth[k] = sum(w * v for w, v in pairs) / sum(w for w, _v in pairs)
    inner = sum(smooth[1:60])
    if inner > 0:
        scale = sum(pmf[1:60]) / inner
        smooth[1:60] = [v * scale for v in smooth[1:60]]
    out = [round(min(1.0, sum(smooth[k:])), 4) for k in range(61)]
    out[0] = 1.0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args()
    rows = [play(i) for i in range(args.start, args.start + args.games)]
    lead = [r[2] for r in rows if r[2] is not None]
    print(f"games {len(rows)}, second halves {len(lead)}, lead team's mean "
          f"{statistics.fmean(lead):.1f}, sd {statistics.pstdev(lead):.1f}, "
          f"(A) ends won by lead {sum(1 for p in lead if p == 300)}, "
          f"lost {sum(1 for p in lead if p == 0)}")
    print("SECOND_HALF_LEAD = (", ", ".join(f"{x:g}" for x in table(lead)), ")")
    print("check: first-half points band, first_out, games, won, predicted (current table)")
    for fo in (True, False):
        for lo in range(60, 241, 30):
            got = [(x, w) for x, f, p, w in rows
                   if p is not None and f == fo and lo <= x < lo + 30]
            if len(got) < 10:
                continue
            won = statistics.fmean(1.0 if w == 0 else 0.0 for _x, w in got)
            pred = (statistics.fmean(second_half_win(x, fo) for x, _w in got)
                    if SECOND_HALF_LEAD else float("nan"))
            print(f"  {lo:3d}-{lo + 25:3d} {'fo ' if fo else 'not'} {len(got):5d} "
                  f"{won:6.3f} {pred:6.3f}")


if __name__ == "__main__":
    main()
