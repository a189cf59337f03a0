"""``python manage.py botmatch``: bot against bot with the engine only, no database.

Three forms, one seed scheme (:mod:`games.engine.botmatch`: game or deal ``i``
is seeded ``f"{seed}:{i}"``, the bot in seat ``k`` tagged ``t`` draws from
``f"{seed}:{i}:{t}:{k}"``)::

    # duplicate deals: each deal twice, A's team and B's team swapped
    python manage.py botmatch --a master --b expert --deals 1000 --seed 1 \\
        [--jobs 2] [--json] [--a-rng TAG] [--b-rng TAG]
    # the ladder: each level against the one below it, on duplicate deals
    python manage.py botmatch --ladder --deals 200 --seed 1 [--jobs 2] [--json]
    # seat runs: a policy per seat, seats rotating game by game (the old simulate)
    python manage.py botmatch --games 1000 --seed 1 --north heuristic --east random \\
        --south heuristic --west random [--no-rotate] [--log games.jsonl]

A duplicate match prints the games, A's win rate with its 95 % interval over
deals, the mean team-point difference per half with its interval, double
clamps by side, A's share of first-half first_outs and each side's decision
time (median, p99); the ladder prints one such block per rung (``--json``: the
same figures as JSON, a list for the ladder). A seat run prints wins and points
by policy team and by seat team, double clamps, draws, actions per game and
speed; ``--log FILE`` writes each game's RULES.md §11 record, one per line.
This command only parses arguments and prints.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.engine import POLICIES, to_record
from games.engine.botmatch import LADDER, Summary, run, run_ladder, run_match

SEATS = ("north", "east", "south", "west")
SEAT_DEFAULTS = ("heuristic", "random", "heuristic", "random")


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


def _pct(n: int, total: int) -> str:
    return f"{n} ({100.0 * n / total:.1f}%)" if total else f"{n} (-)"


def format_seat_run(s: Summary) -> list[str]:
    """The lines the command prints for a seat run (policy team, then seat team)."""
    ns = f"{s.policies[0]}+{s.policies[2]}"
    ew = f"{s.policies[1]}+{s.policies[3]}"
    pol = s.mean_points_per_half("policy")
    seat = s.mean_points_per_half("seat")
    rot = "rotated one seat per game" if s.rotate else "fixed"
    return [
        f"games: {s.games} (seed {s.seed!r}, game i seeded '{s.seed}:i'; seating {rot})",
        f"policies as named: N={s.policies[0]} E={s.policies[1]} "
        f"S={s.policies[2]} W={s.policies[3]}",
        f"wins, N–S policies ({ns}): {_pct(s.policy_team_wins[0], s.games)}",
        f"wins, E–W policies ({ew}): {_pct(s.policy_team_wins[1], s.games)}",
        f"wins, N–S seats: {_pct(s.seat_team_wins[0], s.games)}",
        f"wins, E–W seats: {_pct(s.seat_team_wins[1], s.games)}",
        f"double clamps: {_pct(s.double_clamps, s.games)}",
        f"draws: {s.draws}",
        f"halves played: {s.halves}",
        f"mean team points per half, N–S policies ({ns}): {pol[0]:.1f}",
        f"mean team points per half, E–W policies ({ew}): {pol[1]:.1f}",
        f"mean team points per half, N–S seats: {seat[0]:.1f}",
        f"mean team points per half, E–W seats: {seat[1]:.1f}",
        f"mean actions per game: {s.mean_actions:.1f}",
        f"games per second: {s.games_per_second:.1f} ({s.seconds:.1f} s)",
    ]


class Command(BaseCommand):
    help = (
        "Bots against bots with the rules engine, no database: a duplicate match of two "
        "policies (--a, --b; each deal twice, teams swapped), the ladder of the site's "
        "levels (--ladder), or a seat run with a policy per seat (--games, --north …)."
    )
    requires_system_checks: tuple[str, ...] = ()

    def add_arguments(self, parser: Any) -> None:
        choices = sorted(POLICIES)
        parser.add_argument("--a", default="expert", choices=choices, help="policy A")
        parser.add_argument("--b", default="heuristic", choices=choices, help="policy B")
        parser.add_argument("--deals", type=int, default=100,
                            help="deals per match (2 games each; default 100)")
        parser.add_argument("--ladder", action="store_true",
                            help=f"each level against the one below: {', '.join(LADDER)}")
        parser.add_argument("--seed", default="0", help="seed; game or deal i is '<seed>:<i>'")
        parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        parser.add_argument("--a-rng", metavar="TAG",
                            help="A's random-source tag (default its policy name)")
        parser.add_argument("--b-rng", metavar="TAG",
                            help="B's random-source tag (default its policy name)")
        parser.add_argument("--games", type=int,
                            help="a seat run of this many games (a policy per seat)")
        for seat, default in zip(SEATS, SEAT_DEFAULTS, strict=True):
            parser.add_argument(f"--{seat}", default=default, choices=choices,
                                help=f"seat run: the {seat} seat's policy (default {default})")
        parser.add_argument("--rotate", action="store_true", default=True,
                            help="seat run: rotate the policies one seat per game (default)")
        parser.add_argument("--no-rotate", dest="rotate", action="store_false",
                            help="seat run: keep the seating fixed")
        parser.add_argument("--log", metavar="FILE",
                            help="seat run: write each game's RULES.md §11 record, one per line")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["jobs"] < 1:
            raise CommandError("--jobs must be at least 1")
        if opts["games"] is not None:
            if opts["ladder"]:
                raise CommandError("--games (a seat run) and --ladder exclude each other")
            self._seat_run(opts)
            return
        if opts["log"]:
            raise CommandError("--log goes with a seat run (--games)")
        if opts["deals"] < 1:
            raise CommandError("--deals must be at least 1")
        if opts["ladder"]:
            results = run_ladder(opts["deals"], opts["seed"], jobs=opts["jobs"])
            summaries = [r.summary() for r in results]
            if opts["json"]:
                self.stdout.write(json.dumps(summaries, ensure_ascii=False))
                return
            for k, summary in enumerate(summaries):
                if k:
                    self.stdout.write("")
                for line in format_summary(summary):
                    self.stdout.write(line)
            return
        a, b = opts["a"], opts["b"]
        tags = (opts["a_rng"] or a, opts["b_rng"] or b)
        result = run_match(a, b, opts["deals"], opts["seed"], jobs=opts["jobs"], tags=tags)
        summary = result.summary()
        if opts["json"]:
            self.stdout.write(json.dumps(summary, ensure_ascii=False))
            return
        for line in format_summary(summary):
            self.stdout.write(line)

    def _seat_run(self, opts: dict[str, Any]) -> None:
        games = opts["games"]
        if games < 1:
            raise CommandError("--games must be at least 1")
        policies = tuple(opts[seat] for seat in SEATS)
        log = None
        if opts.get("log"):
            try:
                log = open(opts["log"], "w", encoding="utf-8")  # noqa: SIM115 -- closed below
            except OSError as e:
                raise CommandError(f"cannot write the log: {e}") from None

        def write(_i: int, state: Any, _seats: Any) -> None:
            assert log is not None
            log.write(json.dumps(to_record(state), ensure_ascii=False) + "\n")

        try:
            summary = run(games, opts["seed"], policies, opts["rotate"],
                          on_game=write if log else None)
        finally:
            if log:
                log.close()
        if opts["json"]:
            self.stdout.write(json.dumps({
                "games": summary.games, "seed": summary.seed, "policies": list(policies),
                "rotate": summary.rotate, "policy_team_wins": summary.policy_team_wins,
                "seat_team_wins": summary.seat_team_wins, "double_clamps": summary.double_clamps,
                "draws": summary.draws, "halves": summary.halves,
                "mean_points_per_half": list(summary.mean_points_per_half("policy")),
                "mean_actions": summary.mean_actions, "seconds": summary.seconds,
            }, ensure_ascii=False))
            return
        for line in format_seat_run(summary):
            self.stdout.write(line)
        if log:
            self.stdout.write(f"log: {games} records written to {opts['log']}")
