"""Bots against bots (``games.engine.botmatch``, ``manage.py botmatch``).

The engine module is pure Python; the command is run as a subprocess, as a user
would, or through ``call_command`` (no database either way). Duplicate matches:
each deal is two games with the same cards and the teams swapped; a match is
deterministic for its seed; swapping A and B mirrors it exactly; a policy
against itself with other random sources gives an interval around 50 %;
processes change nothing. The ladder completes and prints one block per rung.
Seat runs (the old ``simulate``): the printed summary, rotation, and §11
records that replay. One seed scheme for all.
"""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.engine import (
    ArgumentError,
    IllegalAction,
    from_record,
    heuristic_policy,
    new_game,
    random_policy,
)
from games.engine.botmatch import (
    LADDER,
    bot_rng,
    game_seed,
    mean_ci,
    percentile,
    play_deal,
    play_game,
    run,
    run_ladder,
    run_match,
    seating,
)
from games.management.commands.botmatch import format_summary

ROOT = Path(__file__).resolve().parent.parent


def _figures(summary):
    """A summary without its timings (wall clock and decision times vary)."""
    return {k: v for k, v in summary.items() if k not in ("seconds", "decision_ms")}


def test_a_deal_is_two_games_with_the_same_cards_and_the_teams_swapped():
    seen = []

    def spy(view, rng):
        seen.append((view["seat"], view["half"], tuple(view["hand"])))
        return heuristic_policy(view, rng)

    d = play_deal(0, "same-cards", spy, "random", ("spy", "random"))
    assert len(d.point_diffs) >= 2
    assert d.wins in (0, 1, 2)
    hands = new_game("same-cards:0")["hands"]
    first_views = {(seat, hand) for seat, half, hand in seen if half == 1 and len(hand) >= 40}
    # the spy sat N–S in the first game and E–W in the second, on the same deal
    assert {seat for seat, _ in first_views} == {0, 1, 2, 3}
    for seat, hand in first_views:
        assert list(hand) == hands[seat]
    assert sum(d.double_clamps) <= 2
    assert 0 <= d.first_out_a <= 2
    assert len(d.times[0]) > 0
    assert len(d.times[1]) > 0


def test_match_is_deterministic_for_a_seed():
    a = run_match("expert", "heuristic", 3, seed="det")
    b = run_match("expert", "heuristic", 3, seed="det")
    assert _figures(a.summary()) == _figures(b.summary())
    c = run_match("expert", "heuristic", 3, seed="det-other")
    assert [d.point_diffs for d in c.deals] != [d.point_diffs for d in a.deals]


def test_swapping_a_and_b_mirrors_exactly():
    ab = run_match("expert", "heuristic", 3, seed="mirror").summary()
    ba = run_match("heuristic", "expert", 3, seed="mirror").summary()
    assert ab["games"] == ba["games"] == 6
    assert ab["a_wins"] + ba["a_wins"] == 6
    assert ab["a_win_rate"] == pytest.approx(1 - ba["a_win_rate"])
    lo, hi = ab["a_win_rate_ci"]
    assert [1 - hi, 1 - lo] == pytest.approx(ba["a_win_rate_ci"])
    assert ab["point_diff_per_half"] == pytest.approx(-ba["point_diff_per_half"])
    assert ab["double_clamps"] == {"a": ba["double_clamps"]["b"], "b": ba["double_clamps"]["a"]}
    assert ab["a_first_out_share"] == pytest.approx(1 - ba["a_first_out_share"])
    assert ab["halves"] == ba["halves"]


def noisy(view, rng):
    """The normal bot with one action in five random: quick games, and the random
    source matters."""
    return random_policy(view, rng) if rng.random() < 0.2 else heuristic_policy(view, rng)


def test_a_policy_against_itself_scores_about_half():
    """With different random sources the games differ and the interval holds 50 %;
    with the same one both games of a deal are the same game: exactly ½ each."""
    r = run_match(noisy, noisy, 40, seed="self", tags=("x", "y")).summary()
    lo, hi = r["a_win_rate_ci"]
    assert lo < 0.5 < hi
    assert hi - lo < 0.3  # 40 deals: an informative interval
    assert r["a_wins"] not in (0, 80)
    same = run_match(noisy, noisy, 5, seed="self").summary()
    assert same["a_win_rate"] == 0.5
    assert same["a_win_rate_ci"] == [0.5, 0.5]
    assert same["point_diff_per_half"] == 0.0


def test_jobs_split_the_deals_and_change_nothing():
    one = run_match("beginner", "random", 5, seed="jobs")
    two = run_match("beginner", "random", 5, seed="jobs", jobs=2)
    assert _figures(one.summary()) == _figures(two.summary())
    assert two.summary()["decision_ms"]["a"]["n"] == one.summary()["decision_ms"]["a"]["n"]


def test_bad_arguments_are_refused():
    with pytest.raises(ArgumentError, match="unknown policy") as e:
        run_match("grandmaster", "random", 1)
    assert e.value.reason == "bad_bot"
    for deals, jobs in ((-1, 1), (2, 0)):
        with pytest.raises(ArgumentError) as e:
            run_match("random", "random", deals, jobs=jobs)
        assert e.value.reason == "bad_count"
    with pytest.raises(ArgumentError, match="names"):
        run_match(lambda v, r: {"type": "pass"}, "random", 4, jobs=2)


def test_illegal_policy_is_not_hidden():
    with pytest.raises(IllegalAction):
        play_game("bad", [lambda v, r: {"type": "pass"}] * 4, [random.Random(0)] * 4)


def test_interval_and_percentile_helpers():
    m, lo, hi = mean_ci([0.0, 0.5, 1.0, 1.0])
    assert m == 0.625
    assert lo < m < hi
    assert hi - m == pytest.approx(1.959964 * 0.478714 / 2, rel=1e-4)
    assert mean_ci([1.0]) == (1.0, 1.0, 1.0)
    assert all(math.isnan(x) for x in mean_ci([]))
    xs = list(range(1, 101))
    assert percentile(xs, 99) == 99
    assert percentile(xs, 50) == 50
    assert percentile(xs, 100) == 100
    assert math.isnan(percentile([], 50))


def _botmatch(*args):
    return subprocess.run(
        [sys.executable, "manage.py", "botmatch", *args], cwd=ROOT, capture_output=True,
        text=True, timeout=300,
    )


def test_botmatch_command_prints_the_figures():
    out = _botmatch("--a", "heuristic", "--b", "beginner", "--deals", "3", "--seed", "cmd")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("games: 6 (3 deals × 2, teams swapped; seed 'cmd'")
    for label in ("A = heuristic, B = beginner", "A win rate: ", "95% CI",
                  "team points per half, A − B:", "double clamps won: A ",
                  "A's share of first-half first_outs:", "decision time, A (heuristic): median",
                  "decision time, B (beginner): median", " p99 "):
        assert label in text
    js = _botmatch("--a", "heuristic", "--b", "beginner", "--deals", "3", "--seed", "cmd",
                   "--json", "--jobs", "2")
    assert js.returncode == 0, js.stderr
    fig = json.loads(js.stdout)
    direct = run_match("heuristic", "beginner", 3, seed="cmd").summary()
    assert _figures(fig) == json.loads(json.dumps(_figures(direct)))
    assert set(fig["decision_ms"]["a"]) == {"median", "p99", "n"}


def test_botmatch_command_refuses_bad_input():
    out = _botmatch("--deals", "0")
    assert out.returncode != 0
    assert "--deals must be at least 1" in out.stderr
    out = _botmatch("--a", "grandmaster", "--deals", "1")
    assert out.returncode != 0
    assert "invalid choice" in out.stderr


# --- one seed scheme ---------------------------------------------------------------------


def test_one_seed_scheme_for_seat_runs_and_duplicate_deals():
    """Game or deal ``i`` is seeded ``"<seed>:i"``; a seat's bot draws from
    ``"<game seed>:<tag>:<seat>"``, the tag its policy's name by default: so a
    seat run's game and a duplicate deal's first game with the same policies are
    the same game."""
    assert game_seed("s", 3) == "s:3"
    assert bot_rng("s:3", "beginner", 2).random() == random.Random("s:3:beginner:2").random()
    seats = ("beginner", "random", "beginner", "random")
    alone = play_game(game_seed("same", 0), seats)
    run_game = []
    run(1, "same", seats, on_game=lambda i, state, _s: run_game.append(state))
    assert run_game[0]["halves"] == alone["halves"]
    first = play_deal(0, "same", "beginner", "random", ("beginner", "random"))
    a_team = alone["result"]["winner"] == 0
    assert first.point_diffs[: len(alone["halves"])] == [
        h["points"][0] - h["points"][1] for h in alone["halves"]]
    assert first.wins >= a_team


# --- the ladder ----------------------------------------------------------------------------


def test_the_ladder_is_the_four_site_levels_each_against_the_one_below():
    results = run_ladder(1, seed="ladder", levels=("beginner", "normal"))
    assert [(r.a, r.b) for r in results] == [("normal", "beginner")]
    assert LADDER == ("beginner", "normal", "expert", "master")
    with pytest.raises(ArgumentError):
        run_ladder(1, levels=("expert",))


def test_botmatch_ladder_completes_and_prints_one_block_per_rung():
    """The whole ladder at the smallest size (one deal per rung, two processes):
    it completes and its output has the shape of three duplicate matches."""
    js = _botmatch("--ladder", "--deals", "1", "--seed", "ci", "--json", "--jobs", "2")
    assert js.returncode == 0, js.stderr
    rungs = json.loads(js.stdout)
    pairs = [("normal", "beginner"), ("expert", "normal"), ("master", "expert")]
    assert [(r["a"], r["b"]) for r in rungs] == pairs
    for r, (a, b) in zip(rungs, pairs, strict=True):
        assert r["deals"] == 1
        assert r["games"] == 2
        assert 0 <= r["a_win_rate"] <= 1
        assert set(r["decision_ms"]) == {"a", "b"}
        assert r["decision_ms"]["a"]["n"] > 0
        block = "\n".join(format_summary(r))  # what the command prints without --json
        assert block.startswith("games: 2 (1 deals × 2, teams swapped; seed 'ci'")
        assert f"A = {a}, B = {b}" in block
        assert "A win rate: " in block


# --- seat runs (the old simulate) -----------------------------------------------------------

GAMES = 20


def _seat_run(*args: str) -> str:
    out = StringIO()
    call_command("botmatch", *args, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def seat_run(tmp_path_factory):
    log = tmp_path_factory.mktemp("sim") / "games.jsonl"
    text = _seat_run("--games", str(GAMES), "--seed", "t", "--north", "heuristic",
                     "--east", "random", "--south", "heuristic", "--west", "random",
                     "--log", str(log))
    return text, log


def _count(text: str, label: str) -> int:
    m = re.search(rf"^{re.escape(label)}: (\d+)(?: \((\d+\.\d)%\))?$", text, re.M)
    assert m, f"no line {label!r} in:\n{text}"
    return int(m.group(1))


def test_seat_run_summary_lines(seat_run):
    text, _ = seat_run
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
    assert abs(pts[0] + pts[1] - 300) < 0.2
    assert abs(pts[2] + pts[3] - 300) < 0.2


def test_seat_run_log_records_replay(seat_run):
    text, log = seat_run
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
        assert record["version"] == 3
        assert record["bots"] == ["normal"] * 4  # heuristic is normal; random is no level
        assert record["result"]["reason"] == "normal"
        assert record["seed"] == game_seed("t", i)
        assert record["result"]["winner"] in (0, 1)
        assert record["result"]["abandoned_by"] is None
        assert 1 <= len(record["halves"]) <= 2
        for h in record["halves"]:
            assert sum(h["points"]) == 300
            assert h["end"] in ("A", "B")
            assert sorted(len(x) for x in h["hands"]) == [40, 40, 41, 41]
        states = from_record(record)  # raises if the record and its replay differ
        assert states[-1]["status"] == "over"
        assert states[-1]["result"]["winner"] == record["result"]["winner"]


def test_seat_run_records_each_seats_level():
    final = play_game("levels", ("beginner", "random", "beginner", "normal"))
    assert final["bots"] == ["beginner", "normal", "beginner", "normal"]


def test_seat_run_no_rotate_keeps_seats():
    text = _seat_run("--games", "4", "--seed", "nr", "--no-rotate")
    assert "seating fixed" in text
    assert _count(text, "wins, N–S policies (heuristic+heuristic)") == _count(
        text, "wins, N–S seats"
    )


def test_seat_run_bad_arguments():
    with pytest.raises(CommandError):
        call_command("botmatch", "--games", "0", stdout=StringIO())
    with pytest.raises(CommandError):
        call_command("botmatch", "--games", "2", "--north", "genius", stdout=StringIO())
    with pytest.raises(CommandError, match="exclude"):
        call_command("botmatch", "--games", "2", "--ladder", stdout=StringIO())
    with pytest.raises(CommandError, match="seat run"):
        call_command("botmatch", "--log", "x.jsonl", stdout=StringIO())
    with pytest.raises(ArgumentError):
        run(-1, 0, ("random",) * 4)
    with pytest.raises(ArgumentError):
        seating(("random",) * 3, 0)


def test_seat_run_is_reproducible_and_counts_by_policy_team():
    names = ("heuristic", "random", "random", "random")
    a, b = run(8, 5, names), run(8, 5, names)
    assert (a.policy_team_wins, a.seat_team_wins, a.actions, a.policy_team_points) == (
        b.policy_team_wins,
        b.seat_team_wins,
        b.actions,
        b.policy_team_points,
    )
    assert a.draws == 0
    assert sum(a.policy_team_wins) == 8
    assert seating(names, 1) == ("random", "heuristic", "random", "random")
    # game 1 alone: rotated one seat, the N–S-named pair sat E–W
    final = play_game(game_seed(5, 1), seating(names, 1))
    w = final["result"]["winner"]
    two = run(2, 5, names)
    first = play_game(game_seed(5, 0), names)["result"]["winner"]
    assert two.seat_team_wins == [[first, w].count(0), [first, w].count(1)]
    assert two.policy_team_wins == [[first, w ^ 1].count(0), [first, w ^ 1].count(1)]
