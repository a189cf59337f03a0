"""Micro-benchmarks of the rules engine (``games.engine``), no Django.

Run from the repository root::

    python bench/engine.py            # a table, targets alongside
    python bench/engine.py --json     # the same figures as one JSON object
    python bench/engine.py --quick    # fewer repetitions (a rough look)

Every figure is a median (``statistics.median``) of ``time.perf_counter_ns``
timings on one core (the process is pinned to one CPU where the OS allows it).
Per-call figures time a batch of calls and divide by the batch size, then take
the median over many batches; the garbage collector is off during those, as in
``timeit``. Whole games run with the collector on, as they would in the site.
See ``bench/README.md`` for what each figure is.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine import (  # noqa: E402
    apply,
    beats,
    classify,
    deal_half,
    legal_plays,
    new_game,
    record_actions,
    to_record,
    view,
)
from games.engine.botmatch import play_game  # noqa: E402

SEED = "bench"
TARGETS = {
    "legal_plays_41_lead_us": 500.0,
    "legal_plays_41_pair_us": 500.0,
    "game_heuristic_ms": 20.0,
}
"""Targets, in the unit the key ends with: legal_plays on a 41-card hand < 0.5 ms
(500 us); a whole game < 20 ms."""


def pin_one_core() -> int | None:
    """Pin this process to one CPU (the first it may use); returns it, or None."""
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return cpu
    except (AttributeError, OSError):
        return None


def per_call_ns(fn: Callable[[], object], calls: int, repeat: int) -> float:
    """Median over ``repeat`` batches of the ns per call of ``fn`` (``calls`` per batch)."""
    fn()  # warm up
    samples = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            for _ in range(calls):
                fn()
            samples.append((time.perf_counter_ns() - t0) / calls)
    finally:
        if enabled:
            gc.enable()
    return statistics.median(samples)


def hand_of_41(seed: str = SEED) -> tuple[list[str], str]:
    """The first hand (by seat, N E S W) with 41 cards in half 1 of ``seed``, and the dao."""
    deal = deal_half(seed, 1)
    hand = next(h for h in deal.hands if len(h) == 41)
    return list(hand), deal.dao


def low_pair(dao: str) -> list[str]:
    """A low plain pair to follow on (4s, or 5s when 4 is dao): most answers possible."""
    r = "5" if dao == "4" else "4"
    return [r + "S", r + "H"]


def measure(quick: bool = False) -> dict[str, float | int | str | None]:
    """Run every benchmark; returns the figures (units in the key names)."""
    k = 5 if quick else 1
    out: dict[str, float | int | str | None] = {"cpu": pin_one_core(), "seed": SEED}

    # classify + beats: representative inputs under dao 7
    dao = "7"
    cases = [
        (["9S"], ["8H"]),  # single on single
        (["QS", "QH"], ["JD", "JC"]),  # pair on pair
        (["4S", "4H", "BJ", "RJ"], ["AS", "AH", "AC"]),  # joker bomb on triple
        (["7S", "7S", "7S"], ["2S", "2H", "2C", "2D", "2S"]),  # atom on bomb
        (["KS", "KS", "KH", "KH", "KC", "KC", "KD", "KD"], ["7H", "7H", "7H"]),  # hydrogen
    ]

    news = [new for new, _table in cases]
    played = [(classify(new, dao), classify(table, dao)) for new, table in cases]

    def classify_all() -> None:
        for cards in news:
            classify(cards, dao)

    def beats_all() -> None:
        for a, b in played:
            beats(a, b)

    out["classify_us"] = per_call_ns(classify_all, 400 // k, 200 // k) / len(cases) / 1e3
    out["beats_us"] = per_call_ns(beats_all, 2000 // k, 200 // k) / len(cases) / 1e3
    out["classify_beats_us"] = out["classify_us"] + out["beats_us"]

    hand, hdao = hand_of_41()
    pair = classify(low_pair(hdao), hdao)
    out["legal_plays_41_dao"] = hdao
    out["legal_plays_41_lead_count"] = len(legal_plays(hand, None, hdao))
    out["legal_plays_41_pair_count"] = len(legal_plays(hand, pair, hdao))
    out["legal_plays_41_lead_us"] = (
        per_call_ns(lambda: legal_plays(hand, None, hdao), 50 // k, 200 // k) / 1e3
    )
    out["legal_plays_41_pair_us"] = (
        per_call_ns(lambda: legal_plays(hand, pair, hdao), 50 // k, 200 // k) / 1e3
    )

    # apply and view over every state of one recorded heuristic game
    final = play_game(SEED, ("heuristic",) * 4)
    steps = record_actions(to_record(final))
    states = [new_game(SEED, (0, 0, 0, 0), (True,) * 4)]
    for seat, action in steps:
        states.append(apply(states[-1], seat, action)[0])
    pairs = list(zip(states, steps, strict=False))

    def apply_all() -> None:
        for st, (seat, action) in pairs:
            apply(st, seat, action)

    def view_all() -> None:
        for st, (seat, _action) in pairs:
            view(st, seat)

    out["game_actions"] = len(steps)
    out["apply_us"] = per_call_ns(apply_all, 1, 60 // k) / len(pairs) / 1e3
    out["view_us"] = per_call_ns(view_all, 1, 60 // k) / len(pairs) / 1e3

    # whole two-half-capable games, heuristic in all four seats
    n = 50 // k
    play_game(f"{SEED}:warm", ("heuristic",) * 4)
    times = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        play_game(f"{SEED}:{i}", ("heuristic",) * 4)
        times.append(time.perf_counter_ns() - t0)
    out["games"] = n
    out["game_heuristic_ms"] = statistics.median(times) / 1e6
    out["games_per_second"] = n / (sum(times) / 1e9)
    return out


def report(fig: dict) -> list[str]:
    """Human-readable lines: figure, unit, target (if any) and whether it is met."""

    def target(key: str, value: float) -> str:
        t = TARGETS[key]
        unit = key.rsplit("_", 1)[1]
        return f"   target < {t:g} {unit}  [{'ok' if value < t else 'MISSED'}]"

    lp = fig["legal_plays_41_lead_us"]
    lpp = fig["legal_plays_41_pair_us"]
    g = fig["game_heuristic_ms"]
    rows = [
        ("classify per call (5 inputs)", f"{fig['classify_us']:9.2f} us", ""),
        ("beats per call (5 inputs)", f"{fig['beats_us']:9.2f} us", ""),
        ("classify + beats per call", f"{fig['classify_beats_us']:9.2f} us", ""),
        (
            f"legal_plays, 41 cards, lead ({fig['legal_plays_41_lead_count']} plays)",
            f"{lp:9.1f} us",
            target("legal_plays_41_lead_us", lp),
        ),
        (
            f"legal_plays, 41 cards, on a pair ({fig['legal_plays_41_pair_count']} plays)",
            f"{lpp:9.1f} us",
            target("legal_plays_41_pair_us", lpp),
        ),
        (f"apply per action ({fig['game_actions']}-action game)", f"{fig['apply_us']:9.2f} us", ""),
        ("view per call", f"{fig['view_us']:9.2f} us", ""),
        (
            f"whole game, 4 x heuristic ({fig['games']} games)",
            f"{g:9.2f} ms",
            target("game_heuristic_ms", g),
        ),
        ("games per second (same games)", f"{fig['games_per_second']:9.1f}   ", ""),
    ]
    head = f"engine bench (medians, perf_counter_ns; cpu {fig['cpu']}; seed {fig['seed']!r})"
    return [head] + [f"{label:<46}{value}{tgt}" for label, value, tgt in rows]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark the rules engine (medians, one core).")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args(argv)
    fig = measure(quick=args.quick)
    if args.json:
        print(json.dumps(fig, indent=2))
    else:
        print("\n".join(report(fig)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
