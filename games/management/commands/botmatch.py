"""``python manage.py botmatch``: two bot policies on duplicate deals, engine only.

Example::

    python manage.py botmatch --a expert --b heuristic --deals 1000 --seed 1 \\
        [--jobs 2] [--json] [--a-rng TAG] [--b-rng TAG]

Each deal is played twice with the same cards, A's team and B's team swapped
(deal ``i`` is seeded ``f"{seed}:{i}"``). Prints the games, A's win rate with
its 95 % interval over deals, the mean team-point difference per half with its
interval, double clamps by side, A's share of first-half first_outs and each
side's decision time (median, p99). ``--json`` prints the same figures as one
JSON object. No database is touched: the logic is
:mod:`games.engine.duplicate`; this command only parses arguments and prints.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.engine import POLICIES
from games.engine.duplicate import run_match


def format_summary(s: dict[str, Any]) -> list[str]:
    """The lines the command prints for a :meth:`MatchResult.summary` dict."""
    lo, hi = s["a_win_rate_ci"]
    plo, phi = s["point_diff_per_half_ci"]
    t = s["decision_ms"]
    names = {"a": s["a"], "b": s["b"]}
    tags = "" if s["tags"] == [s["a"], s["b"]] else f"; random tags A={s['tags'][0]!r} " \
        f"B={s['tags'][1]!r}"
    lines = [
        f"games: {s['games']} ({s['deals']} deals × 2, teams swapped; seed {s['seed']!r}, "
        f"deal i seeded '{s['seed']}:i'{tags})",
        f"A = {s['a']}, B = {s['b']}",
        f"A win rate: {100 * s['a_win_rate']:.1f}% (95% CI {100 * lo:.1f}–{100 * hi:.1f}%, "
        f"over deals; {s['a_wins']} of {s['games']} games)",
        f"team points per half, A − B: {s['point_diff_per_half']:+.1f} "
        f"(95% CI {plo:+.1f} to {phi:+.1f}; {s['halves']} halves)",
        f"double clamps won: A {s['double_clamps']['a']}, B {s['double_clamps']['b']}",
        f"A's share of first-half first_outs: {100 * s['a_first_out_share']:.1f}%",
    ]
    for side in ("a", "b"):
        lines.append(
            f"decision time, {side.upper()} ({names[side]}): median {t[side]['median']:.2f} ms, "
            f"p99 {t[side]['p99']:.2f} ms ({t[side]['n']} decisions)"
        )
    lines.append(f"wall clock: {s['seconds']:.1f} s")
    return lines


class Command(BaseCommand):
    help = (
        "Play two bot policies against each other on duplicate deals (each deal twice, "
        "teams swapped) with the rules engine, no database, and print win rate with a 95% "
        "interval, points per half, double clamps, first_outs and decision times."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        choices = sorted(POLICIES)
        parser.add_argument("--a", default="expert", choices=choices, help="policy A")
        parser.add_argument("--b", default="heuristic", choices=choices, help="policy B")
        parser.add_argument("--deals", type=int, default=100, help="deals (2 games each)")
        parser.add_argument("--seed", default="0", help="match seed; deal i is '<seed>:<i>'")
        parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        parser.add_argument("--a-rng", metavar="TAG",
                            help="A's random-source tag (default its policy name)")
        parser.add_argument("--b-rng", metavar="TAG",
                            help="B's random-source tag (default its policy name)")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["deals"] < 1:
            raise CommandError("--deals must be at least 1")
        if opts["jobs"] < 1:
            raise CommandError("--jobs must be at least 1")
        a, b = opts["a"], opts["b"]
        tags = (opts["a_rng"] or a, opts["b_rng"] or b)
        result = run_match(a, b, opts["deals"], opts["seed"], jobs=opts["jobs"], tags=tags)
        summary = result.summary()
        if opts["json"]:
            self.stdout.write(json.dumps(summary, ensure_ascii=False))
            return
        for line in format_summary(summary):
            self.stdout.write(line)
