"""复盘: the engine's review of one seat's decisions (RULES.md §4–§5, §11, §12).

Pure Python, no Django (run with ``-p no:django``): a re-run gives the identical
review, a hand-built position where one play is clearly best is labelled, the
thresholds and the summary.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.engine import SHOE, ArgumentError, bot_view, new_game, to_record
from games.engine.botmatch import play_game
from games.engine.record import record_actions
from games.engine.review import (
    Judgement,
    Thresholds,
    choices_of,
    judge,
    review_game,
    summarize,
)


@pytest.fixture(scope="module")
def record():
    """A whole game played by the normal bot (short and quick to review)."""
    return to_record(play_game("review-test", ["normal"] * 4))


def test_a_rerun_gives_the_identical_review(record):
    kw = {"samples": 3, "width": 2, "playout": "normal", "budget": 400}
    first = review_game(record, 1, **kw)
    again = review_game(record, 1, **kw)
    assert first.judgements, "the game gives seat 1 decisions to judge"
    assert first == again
    steps = record_actions(record)
    assert all(steps[j.index][0] == 1 and j.choices >= 2 for j in first.judgements)
    assert [j.index for j in first.judgements] == sorted(j.index for j in first.judgements)


def test_excluded_actions_are_not_judged(record):
    kw = {"samples": 2, "width": 1, "playout": "normal", "budget": None}
    full = review_game(record, 2, **kw)
    skip = {full.judgements[0].index}
    cut = review_game(record, 2, exclude=skip, **kw)
    assert [j.index for j in cut.judgements] == [j.index for j in full.judgements[1:]]


def _endgame_lead():
    """North leads holding a pair of aces, its partner South already out (dao 8);
    every other card was played earlier in the half, so East and West hold
    exactly two dao 8s and eight 2s between them, and have captured 120 points.
    The pair goes out at once and ends the half (§4 A, §5: North–South take the
    120); after a single ace North never plays again (every card left beats an
    ace), East and West go out and take all."""
    state = new_game("rv0")  # dao 8, North leads the first half
    assert state["dao"] == "8"
    assert state["turn"] == 0
    hands = [["AS", "AH"], ["8H", "2S", "2S", "2H", "2H"], [], ["8S", "2C", "2C", "2D", "2D"]]
    rest = Counter(SHOE)
    for h in hands:
        rest.subtract(h)
    by_rank: dict[str, list[str]] = {}
    for card in sorted(rest.elements()):
        by_rank.setdefault("J" if card[1] == "J" else card[0], []).append(card)
    state["hands"] = hands
    state["finish_order"] = [2]
    state["captured"] = [0, 60, 0, 60]
    state["actions"] = [[2, cards] for cards in by_rank.values()]
    return bot_view(state, 0)


@pytest.mark.parametrize("playout", ["normal", "expert"])
def test_a_clearly_best_play_is_good_and_the_other_a_blunder(playout):
    view = _endgame_lead()
    assert choices_of(view) == 2  # a single ace, the pair
    rng = random.Random
    out = judge(view, {"type": "play", "cards": ["AS", "AH"]}, rng(1), samples=8,
                playout=playout)
    assert out.label == "good"
    assert out.loss == 0.0
    assert out.best == out.made
    single = judge(view, {"type": "play", "cards": ["AS"]}, rng(1), samples=8, playout=playout)
    assert single.label == "blunder", single
    assert sorted(single.best["cards"]) == ["AH", "AS"]  # type: ignore[typeddict-item]
    assert single.best_points > single.made_points + 50


def test_thresholds_label_by_points_lost():
    t = Thresholds(inexact=5, mistake=20, blunder=60)
    assert [t.label(x) for x in (0, 4.9, 5, 19.9, 20, 59.9, 60, 300)] == [
        "good", "good", "inexact", "inexact", "mistake", "mistake", "blunder", "blunder"]
    with pytest.raises(ArgumentError):
        Thresholds(inexact=20, mistake=10, blunder=30)
    with pytest.raises(ArgumentError):
        Thresholds(inexact=0, mistake=10, blunder=30)


def _j(index: int, loss: float, label: str) -> Judgement:
    act = {"type": "pass"}
    return Judgement(index, 1, 2, act, act, 100.0 - loss, 100.0, loss, label)  # type: ignore[arg-type]


def test_summary_counts_good_decisions_and_the_three_costliest():
    js = [_j(0, 0.0, "good"), _j(3, 30.0, "mistake"), _j(5, 80.0, "blunder"),
          _j(7, 12.0, "inexact"), _j(9, 30.0, "mistake")]
    r = summarize(0, js)
    assert r.accuracy == pytest.approx(1 / 5)
    assert [j.index for j in r.costliest] == [5, 3, 9]
    assert summarize(0, []).accuracy == 1.0


def test_review_refuses_a_seat_that_does_not_exist(record):
    with pytest.raises(ArgumentError):
        review_game(record, 4)


def test_a_good_decision_is_never_among_the_costliest():
    """好 with a loss the deals do not show clearly is not a costly moment."""
    r = summarize(0, [_j(2, 5.6, "good"), _j(4, 30.0, "mistake"), _j(6, 0.0, "good")])
    assert [j.index for j in r.costliest] == [4]
    assert summarize(0, [_j(2, 5.6, "good")]).costliest == []
