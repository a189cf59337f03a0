"""A long duplicate match played deal by deal, each deal's result appended to a
file, so a run on a shared machine can be stopped, resumed and summed up at any
point (the figures of ``docs/bench.md``). Engine only, no database.

Run from the repository root::

    nice -n 10 python bench/botmatch_log.py --a master --b expert --seed 1 \\
        --deals 1000 --out /tmp/master-expert.jsonl      # plays (resumes) deals
    python bench/botmatch_log.py --out /tmp/master-expert.jsonl --summary

``--a-kw`` passes keyword arguments to A's policy, for the ablations of
``docs/bench.md`` (``--a-kw inference=False``, ``--a-kw search_cards=60``,
``--a-kw samples=0``). The deals, seeds and random sources are exactly those of
``manage.py botmatch --a A --b B --seed S`` (:func:`games.engine.botmatch.play_deal`),
so a finished log's summary equals that command's figures (timings aside).

``--summary --paired OTHER.jsonl`` adds what A's variant in ``--out`` gained over
the one in ``OTHER`` on the deals both logs played (same seed): the mean of the
per-deal score differences and of the per-deal point differences, with their
95 % intervals (the "what each ingredient bought" figures)::

    python bench/botmatch_log.py --out /tmp/variant.jsonl --summary --paired /tmp/base.jsonl

``--first N`` starts a new log at deal ``N``, so one run can be split over the
cores (``--first 0 --deals 500`` and ``--first 500 --deals 1000`` into two
files, then ``cat`` them into one: every line names its deal ``i``).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine import POLICIES  # noqa: E402
from games.engine.botmatch import DealResult, MatchResult, mean_ci, play_deal  # noqa: E402


def _kw(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, _, value = item.partition("=")
        out[key] = ast.literal_eval(value)
    return out


def _deal_points(d: dict[str, Any]) -> float:
    return sum(d["point_diffs"]) / len(d["point_diffs"])


def paired(done: list[dict[str, Any]], other: Path) -> dict[str, Any]:
    """This log's A minus ``other``'s A, deal by deal on the deals both played:
    ``{"deals", "other", "score_gain", "score_gain_ci", "points_gain",
    "points_gain_ci"}`` (scores as fractions, points per half)."""
    theirs = [json.loads(line) for line in other.read_text().splitlines()]
    if theirs and done and theirs[0]["seed"] != done[0]["seed"]:
        raise SystemExit("--paired needs a log of the same seed (the same deals)")
    by_i = {d["i"]: d for d in theirs}
    both = [(d, by_i[d["i"]]) for d in done if d["i"] in by_i]
    s, slo, shi = mean_ci([(a["wins"] - b["wins"]) / 2 for a, b in both])
    p, plo, phi = mean_ci([_deal_points(a) - _deal_points(b) for a, b in both])
    return {"deals": len(both), "other": theirs[0].get("a_kw", []) if theirs else [],
            "score_gain": s, "score_gain_ci": [slo, shi],
            "points_gain": p, "points_gain_ci": [plo, phi]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="master", choices=sorted(POLICIES))
    ap.add_argument("--b", default="expert", choices=sorted(POLICIES))
    ap.add_argument("--seed", default="1")
    ap.add_argument("--deals", type=int, default=1000, help="play deals up to this index")
    ap.add_argument("--first", type=int, default=0,
                    help="a new log's first deal (a run split over cores)")
    ap.add_argument("--a-kw", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--out", required=True, help="the JSONL file of deal results")
    ap.add_argument("--summary", action="store_true", help="print the figures so far")
    ap.add_argument("--paired", default=None, metavar="OTHER.jsonl",
                    help="with --summary: the gain over OTHER's A on the deals both played")
    args = ap.parse_args()
    out = Path(args.out)
    lines = out.read_text().splitlines() if out.exists() else []
    done = [json.loads(line) for line in lines]
    head = done[0] if done else {"a": args.a, "b": args.b, "seed": args.seed,
                                 "a_kw": args.a_kw}
    if args.summary:
        result = MatchResult(head["a"], head["b"], head["seed"], (head["a"], head["b"]))
        result.deals = [DealResult(**{k: v for k, v in d.items() if k in
                                      DealResult.__dataclass_fields__}) for d in done]
        summary = result.summary()
        summary["a_kw"] = head.get("a_kw", [])
        if args.paired:
            summary["paired"] = paired(done, Path(args.paired))
        print(json.dumps(summary, ensure_ascii=False, indent=1))
        return
    kw = _kw(head["a_kw"])
    base = POLICIES[head["a"]]

    def a_policy(view: Any, rng: Any) -> Any:
        return base(view, rng, **kw)

    a_policy.__name__ = head["a"]
    with out.open("a") as f:
        start = done[-1]["i"] + 1 if done else args.first
        for i in range(start, args.deals):
            d = play_deal(i, head["seed"], a_policy, head["b"], (head["a"], head["b"]))
            f.write(json.dumps({**head, "i": i, **asdict(d)}) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
