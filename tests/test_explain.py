"""Why a play is refused, in the rule's words (games/explain.py, RULES.md
§3–§4): the sentences the tutorial and the table share, and the table's
read-only ``why`` (games.play.why) against the engine's own check."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import engine, explain, play
from tests.helpers import make_players, refused, start_game, user_at

DAO = "2"


@pytest.mark.parametrize(("hand", "table", "cards", "zh", "en"), [
    (["7S", "7H", "9C"], None, ["7S", "9C"], "规则 §3：这些牌不成牌型",
     "Rules §3: these cards are no play"),
    (["7S"], None, [], "规则 §4：领出的人必须出牌", "Rules §4: the leader must play"),
    (["7S"], None, ["8S"], "这些牌不全在你手里", "Those cards are not all in your hand"),
    (["7S"], ["9D"], ["7S"], "规则 §3：同一牌型要点数更大：单张 7 不比单张 9 大",
     "Rules §3: the same kind must be of a higher rank: a single 7 is not above a single 9"),
    (["9S", "9H", "9C", "9D"], ["6S", "6H", "6C", "6D", "6S"], ["9S", "9H", "9C", "9D"],
     "规则 §3：炸弹先比张数：4 张 9 的炸弹小于 5 张 6 的炸弹",
     "Rules §3: among bombs more cards win first: a 4-card bomb of 9s loses to a 5-card bomb"),
    (["BJ"], ["4D"], ["BJ"], "规则 §3：单出的王算 3", "Rules §3: jokers alone are 3s"),
])
def test_a_refused_selection_names_its_rule(hand, table, cards, zh, en):
    assert explain.refusal(hand, table, DAO, cards, "zh").startswith(zh)
    assert explain.refusal(hand, table, DAO, cards, "en").startswith(en)


def test_a_legal_play_or_pass_has_no_refusal():
    assert explain.refusal(["7S", "7H"], None, DAO, ["7S", "7H"], "zh") is None
    assert explain.refusal(["9S"], ["7H"], DAO, ["9S"], "zh") is None
    assert explain.refusal(["3S"], ["7H"], DAO, [], "en") is None  # a follower may pass
    with pytest.raises(ValueError, match="ZZ"):
        explain.refusal(["7S"], None, DAO, ["ZZ"], "zh")


def test_lang_of_maps_djangos_codes():
    assert [explain.lang_of(c) for c in ("zh-hans", "zh", None, "en", "en-us")] == \
        ["zh", "zh", "zh", "en", "en"]


@pytest.mark.django_db
def test_why_agrees_with_the_engine_and_changes_nothing():
    """Every single of the leader's hand and one mixed pair: ``why`` says legal
    exactly when the engine would take the play; the game is untouched."""
    game = start_game(make_players())
    st = game.state
    seat = st["turn"]
    user = user_at(game, seat)
    hand = st["hands"][seat]
    tries = [[c] for c in sorted(set(hand))]
    mixed = next((c for c in hand if engine.classify([hand[0], c], st["dao"]) is None), None)
    if mixed:
        tries.append([hand[0], mixed])
    with translation.override("en"):
        for cards in tries:
            answer = play.why(game.pk, user, cards)
            try:
                engine.apply(st, seat, {"type": "play", "cards": cards})
                legal = True
            except engine.IllegalAction:
                legal = False
            assert answer["legal"] is legal, cards
            assert (answer["seq"], answer["cards"]) == (0, cards)
            if not legal:
                assert answer["message"].startswith("Rules §3"), answer
        # not this seat's turn: the engine's sentence, no rule
        other = user_at(game, (seat + 1) % 4)
        answer = play.why(game.pk, other, [st["hands"][(seat + 1) % 4][0]])
        assert (answer["legal"], answer["reason"]) == (False, "not_your_turn")
        assert answer["message"] == "It is not your turn."
    refused("not_seated", play.why, game.pk, make_players(1, "watcher")[0], ["7S"])
    refused("no_game", play.why, 10**9, user, ["7S"])
    game.refresh_from_db()
    assert (game.seq, game.state) == (0, st)
