"""Game endings and their reasons: ``abandon`` beside the escape action, and bot
policies in the state (RULES.md §7, §11, §12; docs/record.md). Pure Python, no Django.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    END_REASONS,
    POLICIES,
    EngineError,
    IllegalAction,
    RecordError,
    abandon,
    apply,
    bot_policy,
    escape_penalty,
    from_record,
    new_game,
    random_policy,
    record_actions,
    to_record,
    view,
)

RATED_LEVELS = (9, 10, 11, 12)  # stake 200: any rating change would show


def played(seed, n, levels=RATED_LEVELS, bots=(None,) * 4, rng_seed=0):
    """``seed``'s game after ``n`` heuristic actions (or at its end)."""
    s = new_game(seed, levels=levels, bots=bots)
    rng = random.Random(rng_seed)
    for _ in range(n):
        if s["status"] != "playing":
            break
        seat = s["turn"]
        s, _ = apply(s, seat, POLICIES["heuristic"](view(s, seat), rng))
    return s


def second_half(seed="ab", levels=RATED_LEVELS):
    """A rated game some actions into its second half."""
    for i in range(30):
        s = played(f"{seed}-{i}", 400, levels=levels, rng_seed=i)
        if not s["result"]["double_clamp"]:
            n = len(s["halves"][0]["actions"]) + 6
            return played(f"{seed}-{i}", n, levels=levels, rng_seed=i)
    raise AssertionError("no two-half game in the sample")


@pytest.mark.parametrize(("reason", "seat"), [("moderator_close", None), ("moderator_kick", 1),
                                         ("suspension", 2), ("moderator_kick", 0)])
@pytest.mark.parametrize("half", [1, 2])
def test_site_endings_change_no_rating(reason, seat, half):
    """§12: a moderator who closes the table, kicks a player or suspends one ends the
    game with no rating change for anyone (winner None); abandoned_by names the
    kicked or suspended player; the input is not changed."""
    s = played("site", 21) if half == 1 else second_half()
    assert s["status"] == "playing"
    assert s["half"] == half
    assert not s["practice"]
    before = copy.deepcopy(s)
    s2, events = abandon(s, reason, seat)
    assert s == before
    assert s2["status"] == "over"
    assert s2["turn"] is None
    assert s2["seq"] == s["seq"] + 1
    r = s2["result"]
    assert r["reason"] == reason
    assert r["winner"] is None
    assert r["double_clamp"] is False
    assert r["abandoned_by"] == seat
    assert r["rating_changes"] == [0, 0, 0, 0]
    assert r["stake"] == s["stake"] == 200
    assert [e["type"] for e in events] == ["abandon", "game_end"]
    assert events[0] == {"type": "abandon", "reason": reason, "seat": seat}
    assert {k: v for k, v in events[1].items() if k != "type"} == r
    # the hands, the trick and the log of the unfinished half stay as they were
    for key in ("hands", "trick", "actions", "halves", "captured", "finish_order"):
        assert s2[key] == s[key]
    assert view(s2, seat)["result"] == r


def test_escape_through_abandon_is_the_escape_action():
    """abandon(state, "escape", seat) is apply(state, seat, {"type": "escape"}): the
    escaper pays max(2 × stake, 20 / 10) (§7), the others keep their points."""
    for s in (played("esc", 9), second_half("esc2")):
        for seat in range(4):
            a = abandon(s, "escape", seat)
            b = apply(s, seat, {"type": "escape"})
            assert a == b
            r = a[0]["result"]
            assert r["reason"] == "escape"
            assert r["abandoned_by"] == seat
            assert r["winner"] is None
            penalty = escape_penalty(s["stake"], s["half"])
            assert r["rating_changes"] == [-penalty if x == seat else 0 for x in range(4)]
            assert a[1][0] == {"type": "escape", "seat": seat, "penalty": penalty}


def test_practice_escape_costs_nothing():
    s = played("practice", 5, bots=(None, "expert", None, None))
    s2, events = abandon(s, "escape", 0)
    assert s2["result"]["rating_changes"] == [0, 0, 0, 0]
    assert events[0]["penalty"] == 0


def test_every_ending_by_play_is_normal():
    s = played("normal", 1000)
    assert s["status"] == "over"
    assert s["result"]["reason"] == "normal"
    assert s["result"]["abandoned_by"] is None
    assert s["result"]["winner"] in (0, 1)


def _refused(call, reason, state):
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as e:
        call()
    assert e.value.reason == reason, str(e.value)
    assert isinstance(e.value, EngineError)
    assert isinstance(e.value, ValueError)
    assert state == before


def test_bad_reasons_seats_and_finished_games_are_refused():
    """Refused with a reason code and nothing changed: an unknown reason or
    ``normal`` (bad_reason), a missing or bad seat where one is needed and a seat
    for a closed table (bad_seat), a game already over (game_over)."""
    s = played("bad", 13)
    for reason in ("normal", "dance", "", None, 3, "ESCAPE"):
        _refused(lambda r=reason: abandon(s, r, 0), "bad_reason", s)
    for reason in ("escape", "moderator_kick", "suspension"):
        for seat in (None, 4, -1, True, "1", 1.0):
            _refused(lambda r=reason, x=seat: abandon(s, r, x), "bad_seat", s)
    for seat in (0, 3):
        _refused(lambda x=seat: abandon(s, "moderator_close", x), "bad_seat", s)
    over, _ = abandon(s, "moderator_close")
    for reason, seat in (("moderator_close", None), ("escape", 1), ("suspension", 2)):
        _refused(lambda r=reason, x=seat: abandon(over, r, x), "game_over", over)
    finished = played("bad", 1000)
    _refused(lambda: abandon(finished, "moderator_kick", 0), "game_over", finished)
    _refused(lambda: apply(over, 0, {"type": "escape"}), "game_over", over)


@pytest.mark.parametrize(("reason", "seat"), [("moderator_close", None), ("moderator_kick", 3),
                                         ("suspension", 0), ("escape", 2)])
def test_abandoned_records_round_trip(reason, seat):
    """§11 version 2: result.reason and abandoned_by; the unfinished half is kept;
    from_record replays the ending (an escape as its action, the others by abandon)."""
    for s in (played("rec", 31), second_half("rec2")):
        s2, _ = abandon(s, reason, seat)
        rec = json.loads(json.dumps(to_record(s2)))
        assert rec["version"] == 3
        assert rec["result"] == {"winner": None, "double_clamp": False, "abandoned_by": seat,
                                 "reason": reason}
        assert rec["halves"][-1]["half"] == s["half"]
        assert rec["halves"][-1]["end"] is None
        assert len(rec["halves"][-1]["actions"]) == len(s["actions"])
        steps = record_actions(rec)
        if reason == "escape":
            assert steps[-1] == (seat, {"type": "escape"})
        else:
            assert all(a["type"] in ("play", "pass") for _, a in steps)
        assert from_record(rec)[-1] == s2


def test_record_with_a_changed_reason_is_refused():
    s2, _ = abandon(played("tamper", 17), "moderator_kick", 1)
    rec = to_record(s2)
    # another ending, told consistently, is another game's record: it replays
    other = copy.deepcopy(rec)
    other["result"]["reason"] = "suspension"
    assert from_record(other)[-1]["result"]["reason"] == "suspension"
    # an ending that does not fit the log
    for reason, by, code in (("normal", 1, "record_mismatch"), ("normal", None, "record_mismatch"),
                             ("escape", None, "record_mismatch"),
                             ("moderator_kick", None, "bad_record"),
                             ("moderator_close", 1, "bad_record")):
        bad = copy.deepcopy(rec)
        bad["result"]["reason"], bad["result"]["abandoned_by"] = reason, by
        with pytest.raises(RecordError) as e:
            from_record(bad)
        assert e.value.reason == code, (reason, by, str(e.value))
    bad = copy.deepcopy(rec)
    bad["result"]["reason"] = "dance"
    with pytest.raises(RecordError) as e:
        from_record(bad)
    assert e.value.reason == "bad_record"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed_n=st.integers(0, 10**9), at=st.integers(0, 300),
       reason=st.sampled_from([r for r in END_REASONS if r != "normal"]), seat=st.integers(0, 3))
def test_abandon_any_time_round_trips(seed_n, at, reason, seat):
    """§11/§12: any ending at any moment: no rating change but an escaper's; the
    record round-trips through JSON."""
    s = new_game(f"ab-{seed_n}", levels=RATED_LEVELS)
    rng = random.Random(seed_n)
    for _ in range(at):
        if s["status"] != "playing":
            break
        seat_to_act = s["turn"]
        s, _ = apply(s, seat_to_act, random_policy(view(s, seat_to_act), rng))
    if s["status"] != "playing":
        return
    who = None if reason == "moderator_close" else seat
    s2, _ = abandon(s, reason, who)
    changes = s2["result"]["rating_changes"]
    if reason == "escape":
        assert changes[seat] == -escape_penalty(s["stake"], s["half"])
        assert sum(changes) == changes[seat]
    else:
        assert changes == [0, 0, 0, 0]
    rec = json.loads(json.dumps(to_record(s2)))
    assert from_record(rec)[-1] == s2


# --- bot policies in the state (version 2) ------------------------------------------


def test_bots_are_policy_names():
    """Each seat's bot policy is in the state, the view and the record; any bot
    makes a practice game (§7)."""
    s = new_game("bots", bots=["expert", None, "beginner", "normal"])
    assert s["bots"] == ["expert", None, "beginner", "normal"]
    assert s["practice"] is True
    assert view(s, 1)["bots"] == s["bots"]
    assert view(s, None)["bots"] == s["bots"]
    s2, _ = abandon(s, "moderator_close")
    assert to_record(s2)["bots"] == ["expert", None, "beginner", "normal"]
    assert from_record(to_record(s2))[-1] == s2
    assert new_game("humans")["bots"] == [None] * 4
    assert new_game("humans")["practice"] is False


def test_boolean_bots_still_accepted():
    """The server before version 2 passes booleans: True is "normal", False a human."""
    s = new_game("bools", bots=[False, True, False, True])
    assert s["bots"] == [None, "normal", None, "normal"]
    assert s["practice"] is True
    assert new_game("bools", bots=[False] * 4)["practice"] is False
    assert bot_policy(True) == "normal"
    assert bot_policy(False) is None


@pytest.mark.parametrize("bad", ["heuristic", "Expert", "", 1, 0, [], "random"])
def test_unknown_bot_policies_are_refused(bad):
    with pytest.raises(EngineError) as e:
        new_game("bad", bots=[None, bad, None, None])
    assert e.value.reason == "bad_bot"
    assert isinstance(e.value, ValueError)
