"""Version-1 states and records, written by the engine before version 2, read by
today's engine (RULES.md §11 as amended in docs/record.md). Pure Python, no Django.

The fixtures (tests/fixtures/README.md) are real: ``json.dump`` of what the engine of
commit 648cda4 returned, the form in which ``Game.state`` is stored. The server loads
that JSON and calls engine functions on it, so every entry point must read it.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from games.engine import (
    RECORD_VERSION,
    STATE_VERSION,
    IllegalAction,
    RecordError,
    abandon,
    apply,
    from_record,
    heuristic_policy,
    legal_plays,
    new_game,
    record_actions,
    replay,
    table_play,
    timeout_action,
    to_act,
    to_record,
    upgrade,
    upgrade_record,
    view,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load(name):
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def actions_of(state):
    """The (seat, action) log of a state: finished halves, then the current one."""
    halves = [h["actions"] for h in state["halves"]]
    if state["status"] == "playing" or not state["halves"] or (
            state["halves"][-1]["half"] != state["half"]):
        halves.append(state["actions"])
    return [(seat, {"type": "play", "cards": cards} if cards else {"type": "pass"})
            for actions in halves for seat, cards in actions]


def test_fixtures_are_version_1():
    """The fixtures stand for stored games: version 1, boolean bots, no result.reason."""
    for name in ("state_v1_midgame", "state_v1_finished", "state_v1_escaped"):
        s = load(name)
        assert s["version"] == 1
        assert all(isinstance(b, bool) for b in s["bots"])
        assert s["result"] is None or "reason" not in s["result"]
    for name in ("record_v1_finished", "record_v1_escaped"):
        r = load(name)
        assert r["version"] == 1
        assert "reason" not in r["result"]
    assert STATE_VERSION == 2
    assert RECORD_VERSION == 3  # version 3: the daily challenge mark


def test_upgrade_midgame_state():
    """v1 → v2: bots become policy names (True was today's heuristic: "normal"),
    version 2; everything else as it was; the input is not changed."""
    old = load("state_v1_midgame")
    before = copy.deepcopy(old)
    new = upgrade(old)
    assert old == before
    assert new["version"] == 2
    assert new["bots"] == [None, "normal", None, "normal"]
    assert new["practice"] is True
    assert new["result"] is None
    assert {k: v for k, v in new.items() if k not in ("version", "bots")} == {
        k: v for k, v in old.items() if k not in ("version", "bots")}


def test_upgrade_finished_and_escaped_states():
    """v1 → v2: result.reason is "normal" for a game played out, "escape" for one
    with abandoned_by; winner, rating changes, totals as they were."""
    fin = upgrade(load("state_v1_finished"))
    assert fin["bots"] == [None] * 4
    assert fin["result"] == {**load("state_v1_finished")["result"], "reason": "normal"}
    esc = upgrade(load("state_v1_escaped"))
    assert esc["result"]["reason"] == "escape"
    assert esc["result"]["abandoned_by"] == 1
    assert esc["result"]["rating_changes"] == [0, -20, 0, 0]


def test_current_state_is_returned_as_it_is():
    s = new_game("v2")
    assert upgrade(s) is s


def test_midgame_v1_state_plays_on_to_the_end():
    """A stored running game continues under the new engine, through the calls the
    server makes (to_act, view, heuristic_policy, legal_plays, table_play,
    timeout_action, apply), and ends as the same game replayed from scratch."""
    s = load("state_v1_midgame")
    seat = to_act(s)
    assert seat == s["turn"]
    v = view(s, seat)
    assert v["hand"] == s["hands"][seat]
    assert v["bots"] == [None, "normal", None, "normal"]
    table = table_play(s)
    assert table is not None  # the fixture stops mid-trick
    for p in legal_plays(s["hands"][seat], table, s["dao"]):
        assert not Counter(p.cards) - Counter(s["hands"][seat])
    assert timeout_action(s, random.Random(1)) == {"type": "pass"}
    log = actions_of(s)
    assert len(log) == s["seq"] == 46
    rng = random.Random(7)
    first = True
    while to_act(s) is not None:
        seat = to_act(s)
        action = heuristic_policy(view(s, seat), rng)
        s, _events = apply(s, seat, action)
        if first:
            assert s["version"] == 2
            assert s["bots"] == [None, "normal", None, "normal"]
            first = False
        log.append((seat, action))
    assert s["status"] == "over"
    assert s["result"]["reason"] == "normal"
    assert s["result"]["rating_changes"] == [0, 0, 0, 0]  # practice: bots in seats 1, 3
    again = replay("v1-mid", log, levels=[3, 5, 2, 4], bots=[False, True, False, True])
    assert again[-1] == s
    assert again[46] == upgrade(load("state_v1_midgame"))


def test_midgame_v1_state_can_be_abandoned():
    s = load("state_v1_midgame")
    s2, _events = abandon(s, "moderator_kick", 2)
    assert s2["version"] == 2
    assert s2["result"]["reason"] == "moderator_kick"
    assert s2["result"]["abandoned_by"] == 2
    assert s2["seq"] == 47
    s3, _ = apply(s, 3, {"type": "escape"})
    assert s3["result"]["reason"] == "escape"


def test_finished_v1_state_is_read_everywhere():
    """view, to_act, to_record of a stored finished game; no action is accepted."""
    s = load("state_v1_finished")
    assert to_act(s) is None
    v = view(s, None)
    assert v["result"]["reason"] == "normal"
    assert v["seed"] == "v1-finished-0"
    with pytest.raises(IllegalAction) as e:
        apply(s, 0, {"type": "pass"})
    assert e.value.reason == "game_over"
    with pytest.raises(IllegalAction) as e:
        abandon(s, "moderator_close")
    assert e.value.reason == "game_over"
    with pytest.raises(IllegalAction):
        timeout_action(s, random.Random(0))
    rec = to_record(s)
    assert rec == upgrade_record(load("record_v1_finished"))
    assert rec["version"] == 3
    assert rec["result"]["reason"] == "normal"


def test_escaped_v1_state_record():
    s = load("state_v1_escaped")
    rec = to_record(s)
    assert rec == upgrade_record(load("record_v1_escaped"))
    assert rec["result"] == {"winner": None, "double_clamp": False, "abandoned_by": 1,
                             "reason": "escape"}
    assert [h["half"] for h in rec["halves"]] == [1, 2]
    assert rec["halves"][1]["end"] is None


@pytest.mark.parametrize(("state", "record"), [("state_v1_finished", "record_v1_finished"),
                                          ("state_v1_escaped", "record_v1_escaped")])
def test_v1_records_replay_to_the_upgraded_states(state, record):
    """from_record reads a version-1 record; its replay ends in the stored state, upgraded."""
    old = load(record)
    before = copy.deepcopy(old)
    states = from_record(old)
    assert old == before
    assert states[-1] == upgrade(load(state))
    assert json.loads(json.dumps(to_record(states[-1]))) == upgrade_record(old)
    # the v2 record the new engine writes round-trips too
    assert from_record(to_record(states[-1]))[-1] == states[-1]
    assert record_actions(old) == record_actions(upgrade_record(old))


def test_upgrade_record_v1():
    old = load("record_v1_escaped")
    new = upgrade_record(old)
    assert new["version"] == 3
    assert new["challenge"] is None  # v2 -> v3: every older record is a game's
    assert new["bots"] == [None] * 4
    assert new["result"]["reason"] == "escape"
    assert upgrade_record(new) is new


def test_v1_record_without_levels_or_bots():
    """The §11 shape of RULES.md (version 1) has no levels or bots: four level-0 humans."""
    old = load("record_v1_finished")
    del old["bots"]
    new = upgrade_record(old)
    assert new["bots"] == [None] * 4
    assert new["levels"] == load("record_v1_finished")["levels"]
    del old["levels"]
    assert upgrade_record(old)["levels"] == [0, 0, 0, 0]


@pytest.mark.parametrize("version", [0, 4, None, "1", True])
def test_unknown_versions_are_refused(version):
    s = load("state_v1_midgame")
    s["version"] = version
    for call in (upgrade, lambda x: view(x, 0), to_act,
                 lambda x: apply(x, 0, {"type": "pass"})):
        with pytest.raises(RecordError) as e:
            call(s)
        assert e.value.reason == "bad_version"
    r = load("record_v1_finished")
    r["version"] = version
    with pytest.raises(RecordError) as e:
        from_record(r)
    assert e.value.reason == "bad_version"


@pytest.mark.parametrize("bad", [[1, 0, 0, 0], [True, False], "none", None])
def test_malformed_v1_bots_are_refused(bad):
    s = load("state_v1_midgame")
    s["bots"] = bad
    with pytest.raises(RecordError) as e:
        upgrade(s)
    assert e.value.reason == "bad_record"


@pytest.mark.parametrize("bad", [None, [], "state", 7])
def test_non_states_are_refused(bad):
    with pytest.raises(RecordError) as e:
        upgrade(bad)
    assert e.value.reason == "bad_record"
    with pytest.raises(RecordError):
        upgrade_record(bad)


def test_fixture_seeds_still_deal_the_same():
    """The deal did not change with the version: replaying a v1 log with today's
    engine gives the stored v1 position (upgraded)."""
    s = load("state_v1_escaped")
    log = actions_of(s)
    again = replay(s["seed"], log, levels=s["levels"], bots=s["bots"])
    escaped, _ = apply(again[-1], 1, {"type": "escape"})
    assert escaped == upgrade(s)
