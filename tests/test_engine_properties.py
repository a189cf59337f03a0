"""Hypothesis properties of whole games and of legal_plays (RULES.md §2–§7, §10, §11),
plus the engine's doctests. Pure Python, no Django.
"""

from __future__ import annotations

import copy
import doctest
import importlib
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    END_REASONS,
    SHOE,
    IllegalAction,
    abandon,
    apply,
    beats,
    classify,
    from_record,
    legal_plays,
    new_game,
    random_policy,
    replay,
    table_play,
    to_record,
    view,
)
from tests.test_engine_legal_plays import check_against_reference

MAX_ACTIONS = 2 * 4 * 162  # each play removes a card; at most 3 passes between plays
CARD_TOKEN = re.compile(r'"([3-9TJQKA2][SHCD]|RJ|BJ)"')
RANKS = "3456789TJQKA2"


def played_cards(actions):
    return Counter(c for _, cards in actions for c in cards)


def check_conservation(s):
    """§2: all 162 cards are somewhere exactly once: hands + cards played this half."""
    here = Counter(c for h in s["hands"] for c in h) + played_cards(s["actions"])
    assert here == Counter(SHOE)


def check_views(s, secret):
    """Views carry no other seat's hand (only counts) and never the seed."""
    public = Counter()
    for _, cards in s["trick"]["plays"]:
        public.update(cards)
    if s["trick"]["last"] is not None:  # the last play is shown twice: in plays and as last
        public.update(s["trick"]["last"][1])
    allowed_extra = {s["indicator"]} | {h["indicator"] for h in s["halves"]}
    for seat in (0, 1, 2, 3, None):
        v = view(s, seat)
        dump = json.dumps(v, ensure_ascii=False)
        assert secret not in dump
        assert "seed" not in v
        assert "hands" not in v
        assert v["counts"] == [len(h) for h in s["hands"]]
        own = Counter(s["hands"][seat]) if seat is not None else Counter()
        assert v["hand"] == (s["hands"][seat] if seat is not None else None)
        shown = Counter(CARD_TOKEN.findall(dump))
        for card, n in shown.items():
            if card in allowed_extra:
                continue
            assert n <= own[card] + public[card], (seat, card, n)


def check_plays(s, rng):
    """Every play legal_plays returns is accepted by classify/beats and by apply; a
    player to act always has a legal action."""
    seat = s["turn"]
    hand = s["hands"][seat]
    table = table_play(s)
    plays = legal_plays(hand, table, s["dao"])
    if table is None:
        assert plays, "a leader always has a play"
    for p in plays:
        again = classify(list(p.cards), s["dao"])
        assert (again.kind, again.rank, again.size) == (p.kind, p.rank, p.size)
        if table is not None:
            assert beats(again, table)
    for p in rng.sample(plays, min(4, len(plays))):
        apply(s, seat, {"type": "play", "cards": list(p.cards)})
    if table is not None:
        apply(s, seat, {"type": "pass"})


def run_random_game(seed_n, rng_seed, escape_at=None):
    secret = f"hyp-{seed_n:010d}-secret"
    s = new_game(secret)
    rng = random.Random(rng_seed)
    states = [s]
    actions = []
    while s["status"] == "playing":
        assert len(actions) <= MAX_ACTIONS, "every game ends"
        check_conservation(s)
        if len(actions) % 3 == 0:
            check_views(s, secret)
            check_plays(s, rng)
        seat = s["turn"]
        if escape_at is not None and len(actions) == escape_at:
            action = {"type": "escape"}
            seat = rng.randrange(4)
        else:
            action = random_policy(view(s, seat), rng)
        s, _ = apply(s, seat, action)
        states.append(s)
        actions.append((seat, action))
    return secret, states, actions


GAME_SETTINGS = settings(max_examples=30, deadline=None,
                         suppress_health_check=[HealthCheck.too_slow])


@GAME_SETTINGS
@given(seed_n=st.integers(0, 10**9), rng_seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(seed_n, rng_seed):
    """§2/§4/§5/§6/§11: over random seeds and random legal play: cards conserved,
    plays valid, views secret, each half's teams total 300, the game ends, replay
    rebuilds identical states and the record round-trips through JSON."""
    secret, states, actions = run_random_game(seed_n, rng_seed)
    final = states[-1]
    assert final["status"] == "over"
    assert final["result"]["winner"] in (0, 1)
    assert len(final["halves"]) == (1 if final["result"]["double_clamp"] else 2)
    for h in final["halves"]:
        assert sum(h["points"]) == 300
        left = Counter(c for hand in h["left"] for c in hand)
        assert left + played_cards(h["actions"]) == Counter(SHOE)
    # §6 winner
    t1 = final["halves"][0]["finish_order"][0] % 2
    if not final["result"]["double_clamp"]:
        totals = [sum(h["points"][t] for h in final["halves"]) for t in (0, 1)]
        assert final["result"]["winner"] == (t1 if totals[t1] >= 300 else 1 - t1)
    else:
        h = final["halves"][0]
        assert h["end"] == "A" or min(h["points"]) < 60
    # replay and the record
    again = replay(secret, actions)
    assert again == states
    rec = json.loads(json.dumps(to_record(final), ensure_ascii=False))
    assert from_record(rec)[-1] == final


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed_n=st.integers(0, 10**9), rng_seed=st.integers(0, 2**32 - 1),
       escape_at=st.integers(0, 250))
def test_escape_any_time_round_trips(seed_n, rng_seed, escape_at):
    """§7/§11: an escape at any moment abandons the game; the record round-trips."""
    _secret, states, _actions = run_random_game(seed_n, rng_seed, escape_at)
    final = states[-1]
    assert final["status"] == "over"
    rec = json.loads(json.dumps(to_record(final)))
    assert from_record(rec)[-1] == final
    if final["result"]["abandoned_by"] is not None:
        assert final["result"]["winner"] is None
        changes = final["result"]["rating_changes"]
        assert sorted(changes)[1:] == [0, 0, 0]
        assert changes[final["result"]["abandoned_by"]] in (-20, -10)


@st.composite
def small_hand(draw):
    dao = draw(st.sampled_from(RANKS))
    ranks = draw(st.lists(st.sampled_from(RANKS), min_size=1, max_size=3, unique=True))
    pool = [c for c in SHOE if c[0] in ranks or c[1] == "J"]
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=12, unique=True))
    hand = [pool[i] for i in idx]
    tidx = draw(st.lists(st.integers(0, len(pool) - 1), max_size=6, unique=True))
    table = classify([pool[i] for i in tidx], dao) if tidx else None
    return hand, table, dao


@settings(max_examples=150, deadline=None)
@given(small_hand())
def test_legal_plays_equal_reference_on_random_hands(args):
    """§3: legal_plays lists every distinct play of the hand that beats the table,
    each accepted by classify/beats, no others."""
    hand, table, dao = args
    check_against_reference(hand, table, dao)


@settings(max_examples=150, deadline=None)
@given(small_hand())
def test_beats_is_never_symmetric(args):
    """§3: no two plays beat each other."""
    hand, table, dao = args
    if table is None:
        return
    for p in legal_plays(hand, None, dao):
        assert not (beats(p, table) and beats(table, p))


@settings(max_examples=60, deadline=None)
@given(seed_n=st.integers(0, 10**9))
def test_refused_action_leaves_state_unchanged(seed_n):
    """A refused action changes nothing (IllegalAction)."""
    s = new_game(f"hyp-{seed_n}")
    before = json.dumps(s, sort_keys=True)
    wrong = (s["turn"] + 1) % 4
    with pytest.raises(IllegalAction):
        apply(s, wrong, {"type": "play", "cards": [s["hands"][wrong][0]]})
    with pytest.raises(IllegalAction):
        apply(s, s["turn"], {"type": "pass"})
    assert json.dumps(s, sort_keys=True) == before


def mutate_everything(x, touched):
    """Change every list and dict reachable from ``x`` in place (children first, then
    the container itself); count them in ``touched``."""
    if isinstance(x, dict):
        for v in list(x.values()):
            mutate_everything(v, touched)
        for k in list(x):
            x[k] = "changed"
        x["added"] = ["x"]
        touched.append(1)
    elif isinstance(x, list):
        for v in x:
            mutate_everything(v, touched)
        x.reverse()
        x.append("changed")
        x[0] = "changed"
        touched.append(1)


def _containers(x):
    if isinstance(x, dict):
        return 1 + sum(_containers(v) for v in x.values())
    if isinstance(x, list):
        return 1 + sum(_containers(v) for v in x)
    return 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed_n=st.integers(0, 10**9), rng_seed=st.integers(0, 2**32 - 1),
       stops=st.lists(st.integers(0, 400), min_size=1, max_size=4),
       ending=st.sampled_from([None, *[r for r in END_REASONS if r != "normal"]]))
def test_views_are_fresh_data(seed_n, rng_seed, stops, ending):
    """A caller that changes its view never changes the game: every list and dict of
    every seat's view and the spectator's, at random moments of random games (running,
    finished, abandoned), mutated in place, leaves the state equal to a deep copy
    taken before (once trick.last, the cards of trick.plays and halves were shared)."""
    s = new_game(f"fresh-{seed_n}", levels=(3, 3, 3, 3))
    rng = random.Random(rng_seed)
    moments = []
    for n in range(max(stops) + 1):
        if n in stops or s["status"] != "playing":
            moments.append(s)
        if s["status"] != "playing":
            break
        seat = s["turn"]
        s, _ = apply(s, seat, random_policy(view(s, seat), rng))
    if s["status"] == "playing" and ending is not None:
        seat = None if ending == "moderator_close" else rng.randrange(4)
        moments.append(abandon(s, ending, seat)[0])
    for state in moments:
        snapshot = copy.deepcopy(state)
        for seat in (0, 1, 2, 3, None):
            v = view(state, seat)
            assert v == view(snapshot, seat)
            touched = []
            expected = _containers(v)
            mutate_everything(v, touched)
            assert len(touched) == expected
            assert state == snapshot, f"view({seat}) shares data with the state"
        assert view(state, 0) == view(snapshot, 0)


#: every module of the engine, read from its folder (a new or removed one needs no edit)
MODULES = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "games" / "engine")
                 .glob("*.py"))


def test_engine_doctests():
    """The `>>>` examples of every games.engine module run and pass."""
    attempted = 0
    for name in MODULES:
        mod = importlib.import_module("games.engine" if name == "__init__" else
                                      f"games.engine.{name}")
        result = doctest.testmod(mod, verbose=False, report=True)
        assert result.failed == 0, f"doctest failures in {mod.__name__}"
        attempted += result.attempted
    assert attempted >= 10
