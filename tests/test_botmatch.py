"""Duplicate-deal matches (``games.engine.duplicate``, ``manage.py botmatch``).

Pure Python, no Django (run with ``-p no:django``); the command is run as a
subprocess, as a user would. Checks: each deal is two games with the same cards
and the teams swapped; a match is deterministic for its seed; swapping A and B
mirrors it exactly; a policy against itself with other random sources gives an
interval around 50 %; processes change nothing.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import ArgumentError, IllegalAction, heuristic_policy, new_game, random_policy
from games.engine.duplicate import mean_ci, percentile, play_deal, play_game, run_match

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
    assert len(d.point_diffs) >= 2 and d.wins in (0, 1, 2)
    hands = new_game("same-cards:0")["hands"]
    first_views = {(seat, hand) for seat, half, hand in seen if half == 1 and len(hand) >= 40}
    # the spy sat N–S in the first game and E–W in the second, on the same deal
    assert {seat for seat, _ in first_views} == {0, 1, 2, 3}
    for seat, hand in first_views:
        assert list(hand) == hands[seat]
    assert sum(d.double_clamps) <= 2 and 0 <= d.first_out_a <= 2
    assert len(d.times[0]) > 0 and len(d.times[1]) > 0


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
    assert same["a_win_rate"] == 0.5 and same["a_win_rate_ci"] == [0.5, 0.5]
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
    assert m == 0.625 and lo < m < hi
    assert hi - m == pytest.approx(1.959964 * 0.478714 / 2, rel=1e-4)
    assert mean_ci([1.0]) == (1.0, 1.0, 1.0)
    assert all(math.isnan(x) for x in mean_ci([]))
    xs = list(range(1, 101))
    assert percentile(xs, 99) == 99 and percentile(xs, 50) == 50 and percentile(xs, 100) == 100
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
    assert out.returncode != 0 and "--deals must be at least 1" in out.stderr
    out = _botmatch("--a", "grandmaster", "--deals", "1")
    assert out.returncode != 0 and "invalid choice" in out.stderr
