"""``manage.py simulate``: bot games with the engine only, no database.

Runs the command for a few games with ``--log`` and checks its printed summary
and that every log line is a RULES.md §11 record that replays.
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.engine import from_record
from games.simulation import game_seed, play_game, run, seating

GAMES = 20


def _simulate(*args: str) -> str:
    out = StringIO()
    call_command("simulate", *args, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    log = tmp_path_factory.mktemp("sim") / "games.jsonl"
    text = _simulate(
        "--games",
        str(GAMES),
        "--seed",
        "t",
        "--north",
        "heuristic",
        "--east",
        "random",
        "--south",
        "heuristic",
        "--west",
        "random",
        "--log",
        str(log),
    )
    return text, log


def _count(text: str, label: str) -> int:
    m = re.search(rf"^{re.escape(label)}: (\d+)(?: \((\d+\.\d)%\))?$", text, re.M)
    assert m, f"no line {label!r} in:\n{text}"
    return int(m.group(1))


def test_summary_lines(simulated):
    text, _ = simulated
    assert text.startswith(f"games: {GAMES} (seed 't', game i seeded 't:i'")
    pol = [
        _count(text, "wins, N–S policies (heuristic+heuristic)"),
        _count(text, "wins, E–W policies (random+random)"),
    ]
    seats = [_count(text, "wins, N–S seats"), _count(text, "wins, E–W seats")]
    assert sum(pol) == sum(seats) == GAMES
    assert pol[0] >= GAMES * 0.9  # heuristic bots beat random ones
    assert _count(text, "draws") == 0
    assert 0 <= _count(text, "double clamps") <= GAMES
    for label in (
        "mean team points per half, N–S policies (heuristic+heuristic)",
        "mean team points per half, E–W policies (random+random)",
        "mean team points per half, N–S seats",
        "mean team points per half, E–W seats",
        "mean actions per game",
        "games per second",
    ):
        assert re.search(rf"^{re.escape(label)}: \d+\.\d", text, re.M), label
    pts = [float(x) for x in re.findall(r"^mean team points per half, .*: (\d+\.\d)$", text, re.M)]
    assert abs(pts[0] + pts[1] - 300) < 0.2 and abs(pts[2] + pts[3] - 300) < 0.2


def test_log_records_replay(simulated):
    text, log = simulated
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == GAMES
    # rotation: in odd games the policies named for N and S sit E–W
    winners = [json.loads(line)["result"]["winner"] for line in lines]
    assert _count(text, "wins, N–S seats") == winners.count(0)
    assert _count(text, "wins, N–S policies (heuristic+heuristic)") == sum(
        1 for i, w in enumerate(winners) if w == i % 2
    )
    for i, line in enumerate(lines):
        record = json.loads(line)
        assert record["version"] == 2
        assert record["bots"] == ["normal"] * 4  # the simulator's seats are all bots
        assert record["result"]["reason"] == "normal"
        assert record["seed"] == game_seed("t", i)
        assert record["result"]["winner"] in (0, 1)
        assert record["result"]["abandoned_by"] is None
        assert 1 <= len(record["halves"]) <= 2
        for h in record["halves"]:
            assert sum(h["points"]) == 300 and h["end"] in ("A", "B")
            assert sorted(len(x) for x in h["hands"]) == [40, 40, 41, 41]
        states = from_record(record)  # raises if the record and its replay differ
        assert states[-1]["status"] == "over"
        assert states[-1]["result"]["winner"] == record["result"]["winner"]


def test_no_rotate_keeps_seats():
    text = _simulate("--games", "4", "--seed", "nr", "--no-rotate")
    assert "seating fixed" in text
    assert _count(text, "wins, N–S policies (heuristic+heuristic)") == _count(
        text, "wins, N–S seats"
    )


def test_bad_arguments():
    with pytest.raises(CommandError):
        call_command("simulate", "--games", "0", stdout=StringIO())
    with pytest.raises(CommandError):
        call_command("simulate", "--north", "genius", stdout=StringIO())


def test_run_is_reproducible_and_counts_by_policy_team():
    names = ("heuristic", "random", "random", "random")
    a, b = run(8, 5, names), run(8, 5, names)
    assert (a.policy_team_wins, a.seat_team_wins, a.actions, a.policy_team_points) == (
        b.policy_team_wins,
        b.seat_team_wins,
        b.actions,
        b.policy_team_points,
    )
    assert a.draws == 0 and sum(a.policy_team_wins) == 8
    assert seating(names, 1) == ("random", "heuristic", "random", "random")
    # game 1 alone: rotated one seat, the N–S-named pair sat E–W
    final = play_game(game_seed(5, 1), seating(names, 1))
    w = final["result"]["winner"]
    two = run(2, 5, names)
    first = play_game(game_seed(5, 0), names)["result"]["winner"]
    assert two.seat_team_wins == [[first, w].count(0), [first, w].count(1)]
    assert two.policy_team_wins == [[first, w ^ 1].count(0), [first, w ^ 1].count(1)]
