"""Every error the engine raises is an ``EngineError`` (a ``ValueError``, RULES.md §10)
with a reason code, as python-chess's errors are ``ValueError``s. Pure Python, no Django.
"""

from __future__ import annotations

import pickle
import random

import pytest

from games import engine
from games.engine import (
    REASONS,
    ArgumentError,
    CardError,
    EngineError,
    IllegalAction,
    RecordError,
    abandon,
    apply,
    beats,
    classify,
    dao_rank,
    deal_half,
    first_dealt_seat,
    from_record,
    game_stake,
    heuristic_policy,
    legal_plays,
    new_game,
    parse_card,
    parse_cards,
    random_policy,
    timeout_action,
    to_record,
    view,
)

S = new_game("errors")
OVER, _ = abandon(S, "moderator_close")

CASES = [
    # (call, error class, reason)
    (lambda: parse_card("10S"), CardError, "bad_card"),
    (lambda: parse_card(["7S"]), CardError, "bad_card"),
    (lambda: parse_cards("7S"), CardError, "bad_card"),
    (lambda: parse_cards(["7S"] * 4), CardError, "too_many_copies"),
    (lambda: classify(["ts"], "7"), CardError, "bad_card"),
    (lambda: classify(["RJ"] * 4, "7"), CardError, "too_many_copies"),
    (lambda: classify(["7S"], "X"), ArgumentError, "bad_dao"),
    (lambda: classify(["7S"], 7), ArgumentError, "bad_dao"),
    (lambda: legal_plays(["7S"], None, "1"), ArgumentError, "bad_dao"),
    (lambda: legal_plays(["7X"], None, "7"), CardError, "bad_card"),
    (lambda: beats(classify(["7S"], "7"), classify(["8S"], "8")), ArgumentError,
     "dao_mismatch"),
    (lambda: dao_rank("7S", half=3), ArgumentError, "bad_half"),
    (lambda: dao_rank("7Z", half=1), CardError, "bad_card"),
    (lambda: first_dealt_seat("Z"), ArgumentError, "bad_dao"),
    (lambda: deal_half("x", 2), ArgumentError, "needs_first_out"),
    (lambda: deal_half("x", 5, 0), ArgumentError, "bad_half"),
    (lambda: game_stake([0, 0, 0, 17]), ArgumentError, "bad_level"),
    (lambda: game_stake([-1, 0, 0, 0]), ArgumentError, "bad_level"),
    (lambda: game_stake([]), ArgumentError, "bad_level"),
    (lambda: new_game("x", levels=[0, 0, 0]), ArgumentError, "bad_seats"),
    (lambda: new_game("x", bots=[None] * 5), ArgumentError, "bad_seats"),
    (lambda: new_game("x", levels=[0, 0, "1", 0]), ArgumentError, "bad_level"),
    (lambda: new_game("x", bots=[None, "grandmaster", None, None]), ArgumentError, "bad_bot"),
    (lambda: view(S, 4), ArgumentError, "bad_seat"),
    (lambda: view(S, True), ArgumentError, "bad_seat"),
    (lambda: random_policy(view(S, None), random.Random(0)), ArgumentError, "bad_seat"),
    (lambda: heuristic_policy(view(S, None), random.Random(0)), ArgumentError, "bad_seat"),
    (lambda: apply(S, 9, {"type": "pass"}), IllegalAction, "bad_seat"),
    (lambda: apply(S, 0, "pass"), IllegalAction, "bad_action"),
    (lambda: apply(OVER, 0, {"type": "pass"}), IllegalAction, "game_over"),
    (lambda: abandon(S, "normal"), IllegalAction, "bad_reason"),
    (lambda: timeout_action(OVER, random.Random(0)), IllegalAction, "game_over"),
    (lambda: to_record(S), RecordError, "game_running"),
    (lambda: from_record({"version": 99}), RecordError, "bad_version"),
    (lambda: from_record({"version": 2, "seed": "x"}), RecordError, "bad_record"),
    (lambda: from_record([]), RecordError, "bad_record"),
    (lambda: view({"version": 7}, 0), RecordError, "bad_version"),
]


@pytest.mark.parametrize(("call", "cls", "reason"), CASES)
def test_every_engine_error_is_an_engine_error_with_a_reason(call, cls, reason):
    with pytest.raises(cls) as e:
        call()
    err = e.value
    assert isinstance(err, EngineError)
    assert isinstance(err, ValueError)
    assert err.reason == reason
    assert reason in REASONS
    assert str(err)
    assert err.message == str(err)


def test_the_hierarchy():
    """One base; the two errors that existed keep their names (and their reasons)."""
    for cls in (CardError, IllegalAction, ArgumentError, RecordError):
        assert issubclass(cls, EngineError)
    assert issubclass(EngineError, ValueError)
    assert engine.cards.CardError is CardError
    assert engine.match.IllegalAction is IllegalAction


def test_engine_errors_pickle_with_their_reason():
    err = IllegalAction("must_lead", "the leader must play")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is IllegalAction
    assert (again.reason, str(again)) == ("must_lead", "the leader must play")


def test_reasons_registry_holds_the_codes_clients_see():
    assert {"not_your_turn", "does_not_beat", "must_lead", "bad_card", "game_over",
            "bad_reason", "bad_bot", "bad_version"} <= REASONS


@pytest.mark.parametrize("bad", [["7S"], {"7S": 1}, 7, None, b"7S"])
def test_parse_card_refuses_non_strings_with_a_card_error(bad):
    # regression: a list or dict in a client's "cards" raised TypeError (unhashable)
    # out of the engine, through games.play, killing the websocket consumer
    with pytest.raises(engine.CardError):
        engine.parse_cards([bad])
    state = engine.new_game("x")
    with pytest.raises(engine.IllegalAction) as e:  # the seat to act, so the cards are read
        engine.apply(state, state["turn"], {"type": "play", "cards": [bad]})
    assert e.value.reason == "bad_card"
