"""``python manage.py simulate``: bot-against-bot games with the engine only.

Example::

    python manage.py simulate --games 1000 --seed 1 \\
        --north heuristic --east random --south heuristic --west random \\
        [--rotate | --no-rotate] [--log games.jsonl]

Game ``i`` is seeded ``f"{seed}:{i}"``; with ``--rotate`` (the default) the
four policies rotate one seat per game, so each plays every seat equally often.
Wins and points are reported by *policy team* (the policies named for N and S
vs those named for E and W, wherever they sat) and by *seat team* (N–S seats vs
E–W seats). ``--log FILE`` writes each game's RULES.md §11 record, one JSON
object per line. No database is touched: the logic is
:mod:`games.simulation`; this command only parses arguments and prints.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from games.engine import POLICIES, to_record
from games.simulation import Summary, run

SEATS = ("north", "east", "south", "west")
DEFAULTS = ("heuristic", "random", "heuristic", "random")


def _pct(n: int, total: int) -> str:
    return f"{n} ({100.0 * n / total:.1f}%)" if total else f"{n} (-)"


def format_summary(s: Summary) -> list[str]:
    """The lines the command prints for ``s`` (policy team, then seat team figures)."""
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
        "Play whole games bot against bot with the rules engine (no database) and print "
        "wins, double clamps, draws, points per half, actions per game and speed."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("--games", type=int, default=100, help="number of games (default 100)")
        parser.add_argument(
            "--seed", default="0", help="run seed; game i is seeded '<seed>:<i>' (default 0)"
        )
        for seat, default in zip(SEATS, DEFAULTS, strict=True):
            parser.add_argument(
                f"--{seat}",
                default=default,
                choices=sorted(POLICIES),
                help=f"policy of the {seat} seat (default {default})",
            )
        parser.add_argument(
            "--rotate",
            action="store_true",
            default=True,
            help="rotate the policies one seat per game (default)",
        )
        parser.add_argument(
            "--no-rotate", dest="rotate", action="store_false", help="keep the seating fixed"
        )
        parser.add_argument(
            "--log", metavar="FILE", help="write each game's RULES.md §11 record, one per line"
        )

    def handle(self, *args, **opts) -> None:
        games = opts["games"]
        if games < 1:
            raise CommandError("--games must be at least 1")
        policies = tuple(opts[seat] for seat in SEATS)
        for p in policies:
            if p not in POLICIES:
                raise CommandError(f"unknown policy {p!r} (one of {', '.join(sorted(POLICIES))})")
        log = None
        if opts.get("log"):
            try:
                log = open(opts["log"], "w", encoding="utf-8")
            except OSError as e:
                raise CommandError(f"cannot write the log: {e}") from None

        def write(_i, state, _seats) -> None:
            log.write(json.dumps(to_record(state), ensure_ascii=False) + "\n")

        try:
            summary = run(
                games, opts["seed"], policies, opts["rotate"], on_game=write if log else None
            )
        finally:
            if log:
                log.close()
        for line in format_summary(summary):
            self.stdout.write(line)
        if log:
            self.stdout.write(f"log: {games} records written to {opts['log']}")
