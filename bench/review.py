"""复盘's cost and stability: a whole game's review timed on one core, and the
agreement of its labels between two seeds (the figures of ``docs/bench.md``).
Engine only, no database.

Run from the repository root::

    nice -n 10 python bench/review.py --games 4 --seed 1          # JSON figures
    nice -n 10 python bench/review.py --games 4 --samples 16 --budget 0 --sure 1.5

Each game is played by the expert in all four seats (``--players``), dealt from
``"<seed>:<i>"``; seat ``i % 4``'s decisions are reviewed twice, with the
review's own seeds and with every seed salted (``salt="b"``). Reported: CPU
seconds per game's review (median and max), decisions judged, the share of
judged decisions given the same label by both seeds, and the labels' counts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine.botmatch import play_game  # noqa: E402
from games.engine.record import to_record  # noqa: E402
from games.engine.review import (  # noqa: E402
    BUDGET,
    PLAYOUT,
    SAMPLES,
    SURE,
    WIDTH,
    review_game,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--players", default="expert", help="the policy of all four seats")
    ap.add_argument("--samples", type=int, default=SAMPLES)
    ap.add_argument("--width", type=int, default=WIDTH)
    ap.add_argument("--playout", default=PLAYOUT, choices=("expert", "normal"))
    ap.add_argument("--sure", type=float, default=SURE)
    ap.add_argument("--budget", type=int, default=BUDGET,
                    help="play-out actions per decision (more deals late in a half; 0: none)")
    args = ap.parse_args()
    seconds: list[float] = []
    judged = same = 0
    labels: Counter[str] = Counter()
    agree_by_label: Counter[str] = Counter()
    for i in range(args.games):
        record = to_record(play_game(f"{args.seed}:{i}", [args.players] * 4))
        seat = i % 4
        kw = {"samples": args.samples, "width": args.width, "playout": args.playout,
              "sure": args.sure, "budget": args.budget or None}
        t0 = time.process_time()
        a = review_game(record, seat, **kw)  # type: ignore[arg-type]
        seconds.append(time.process_time() - t0)
        b = review_game(record, seat, salt="b", **kw)  # type: ignore[arg-type]
        for x, y in zip(a.judgements, b.judgements, strict=True):
            judged += 1
            labels[x.label] += 1
            if x.label == y.label:
                same += 1
                agree_by_label[x.label] += 1
        print(f"game {i}: {len(a.judgements)} decisions, {seconds[-1]:.1f} s CPU, "
              f"accuracy {a.accuracy:.2f} / {b.accuracy:.2f}", file=sys.stderr)
    print(json.dumps({
        "games": args.games, "samples": args.samples, "width": args.width,
        "playout": args.playout, "players": args.players, "sure": args.sure, "budget": args.budget,
        "cpu_seconds_per_game": {"median": statistics.median(seconds), "max": max(seconds)},
        "decisions": judged, "label_agreement": same / judged if judged else None,
        "labels": dict(labels), "agreeing_by_label": dict(agree_by_label),
    }, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
