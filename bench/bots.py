"""Decision time of every bot policy over positions from real games, no Django.

Run from the repository root::

    python bench/bots.py            # a table: median, p99 and max per policy
    python bench/bots.py --json     # the same figures as one JSON object
    python bench/bots.py --quick    # fewer positions (a rough look)

The positions are every decision of whole games (expert against normal, seats
alternating, seeded ``"bench-bots:<i>"``), taken as each seat's ``bot_view``.
Each policy then decides every position once, on one core (the process is
pinned to one CPU where the OS allows it), timed with ``time.perf_counter_ns``
with the garbage collector on, as in the site, and with
``time.process_time_ns`` (the CPU time of the decision itself: on a busy shared
machine the wall clock also counts time spent waiting for the CPU). The expert is timed with its
default search budget (what the server runs) and with the search off; the
endgame rows are the positions where its search may run (≤ 30 cards left in
the four hands). Targets: the expert's median ≤ 20 ms and 99th
percentile ≤ 200 ms; the master's median ≤ 20 ms and p99 ≤ 150 ms of
CPU time (its budget is counted in samples, so its CPU time is what it costs;
the "searched positions" row is where its search runs).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.engine import pin_one_core  # noqa: E402
from games.engine import POLICIES, BotView, apply, bot_view, new_game  # noqa: E402
from games.engine.botmatch import percentile  # noqa: E402
from games.engine.expert import DEFAULT_BUDGET_MS, SEARCH_CARDS, expert_policy  # noqa: E402
from games.engine.master import candidates_for  # noqa: E402
from games.engine.shapes import Action  # noqa: E402

SEED = "bench-bots"
TARGETS = {"median_ms": 20.0, "p99_ms": 200.0}
"""The expert's decision-time targets, on one core."""
MASTER_TARGETS = {"cpu_median_ms": 20.0, "cpu_p99_ms": 150.0}
"""The master's, on one core: CPU time, as its budget is counted, not timed."""


def positions(games: int) -> list[BotView]:
    """Every decision's bot_view in ``games`` whole games, expert (N–S in even
    games, E–W in odd ones) against normal."""
    out: list[BotView] = []
    for i in range(games):
        s = new_game(f"{SEED}:{i}", bots=("expert", "normal", "expert", "normal"))
        rng = random.Random(i)
        while s["status"] == "playing" and s["turn"] is not None:
            seat = s["turn"]
            bv = bot_view(s, seat)
            out.append(bv)
            name = "expert" if seat % 2 == i % 2 else "normal"
            budget = {"budget_ms": 0.0} if name == "expert" else {}
            action = POLICIES[name](bv, rng, **budget)  # type: ignore[call-arg]
            s, _ = apply(s, seat, action)
    return out


def time_policy(
    choose: Callable[[BotView, random.Random], Action], views: list[BotView]
) -> dict[str, float]:
    """Milliseconds per decision of ``choose`` over ``views``: wall-clock median,
    p99 and max, the same of this process's CPU time (``cpu_*``: what the
    decision costs, whatever else the machine runs), and n."""
    choose(views[0], random.Random(0))  # warm up
    wall, cpu = [], []
    for k, v in enumerate(views):
        rng = random.Random(k)
        t0, c0 = time.perf_counter_ns(), time.process_time_ns()
        choose(v, rng)
        cpu.append((time.process_time_ns() - c0) / 1e6)
        wall.append((time.perf_counter_ns() - t0) / 1e6)
    return {"median_ms": statistics.median(wall), "p99_ms": percentile(wall, 99),
            "max_ms": max(wall), "cpu_median_ms": statistics.median(cpu),
            "cpu_p99_ms": percentile(cpu, 99), "cpu_max_ms": max(cpu), "n": len(wall)}


def measure(quick: bool = False) -> dict[str, object]:
    """Run the benchmark; returns the figures (units in the key names)."""
    cpu = pin_one_core()
    views = positions(3 if quick else 12)
    endgame = [v for v in views if sum(v["counts"]) <= SEARCH_CARDS]
    rows: dict[str, dict[str, float]] = {}
    for name in ("random", "beginner", "normal"):
        rows[name] = time_policy(POLICIES[name], views)

    def no_search(v: BotView, rng: random.Random) -> Action:
        return expert_policy(v, rng, budget_ms=0.0)

    rows["expert"] = time_policy(POLICIES["expert"], views)
    rows["expert, search off"] = time_policy(no_search, views)
    rows["expert, endgame positions"] = time_policy(POLICIES["expert"], endgame)
    rows["expert, endgame, search off"] = time_policy(no_search, endgame)
    searched = [v for v in views if len(candidates_for(v)) > 1]
    rows["master"] = time_policy(POLICIES["master"], views)
    rows["master, searched positions"] = time_policy(POLICIES["master"], searched)
    return {"cpu": cpu, "seed": SEED, "positions": len(views), "endgame_positions": len(endgame),
            "expert_budget_ms": DEFAULT_BUDGET_MS, "policies": rows}


def report(fig: dict[str, object]) -> list[str]:
    """Human-readable lines, the expert's targets alongside."""
    rows = fig["policies"]
    assert isinstance(rows, dict)
    lines = [
        f"bot decision times (ms per decision, perf_counter_ns; cpu {fig['cpu']}; "
        f"{fig['positions']} positions from games seeded '{fig['seed']}:i', "
        f"{fig['endgame_positions']} of them endgames; expert budget "
        f"{fig['expert_budget_ms']:g} nominal ms, a count of play-out actions)",
        f"{'':<30}{'wall clock':^27}{'CPU time':^27}",
        f"{'policy':<30}" + f"{'median':>9}{'p99':>9}{'max':>9}" * 2 + f"{'n':>7}",
    ]
    for name, r in rows.items():
        mark = ""
        if name == "expert":
            ok = r["median_ms"] <= TARGETS["median_ms"] and r["p99_ms"] <= TARGETS["p99_ms"]
            mark = (f"   targets median <= {TARGETS['median_ms']:g}, p99 <= "
                    f"{TARGETS['p99_ms']:g} (wall)  [{'ok' if ok else 'MISSED'}]")
        if name == "master":
            ok = all(r[k] <= v for k, v in MASTER_TARGETS.items())
            mark = (f"   targets median <= {MASTER_TARGETS['cpu_median_ms']:g}, p99 <= "
                    f"{MASTER_TARGETS['cpu_p99_ms']:g} (CPU)  [{'ok' if ok else 'MISSED'}]")
        lines.append(f"{name:<30}{r['median_ms']:9.2f}{r['p99_ms']:9.2f}{r['max_ms']:9.2f}"
                     f"{r['cpu_median_ms']:9.2f}{r['cpu_p99_ms']:9.2f}{r['cpu_max_ms']:9.2f}"
                     f"{int(r['n']):7d}{mark}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Decision time per bot policy (one core).")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--quick", action="store_true", help="fewer positions")
    args = ap.parse_args(argv)
    fig = measure(quick=args.quick)
    print(json.dumps(fig, indent=2) if args.json else "\n".join(report(fig)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
