"""The table page decides nothing by rules: it reads the view's hints
(games/seatview.py ``hint``). This checks that its one judgement on them,
``hintFor`` in static/js/state.js ("which hint is this selection, if any?"),
agrees with the engine (RULES.md §3): for random hands, table plays and
selections from the hand, a selection matches a hint exactly when the engine
would accept it as a play now, and the matched hint names the same play
(kind, rank, jokers). Runs the page's own module under Node.js.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from games.engine import beats, classify, legal_plays
from games.engine.cards import DISTINCT_CARDS, RANKS, SHOE
from games.seatview import hint

STATE_JS = Path(__file__).resolve().parent.parent / "static" / "js" / "state.js"
NODE = shutil.which("node") or shutil.which("nodejs")

# the static/js files are ES modules served as .js, which Node reads as CommonJS
# unless told otherwise
_JS = r"""
const {hintFor} = await import(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map((c) => {
  const h = hintFor(c.selection, c.hints);
  return h === null ? null : [h.kind, h.rank, h.jokers];
});
process.stdout.write(JSON.stringify(out));
"""


def _hand(rng: random.Random) -> list[str]:
    """10–30 cards from the shoe, often heavy in one or two ranks and jokers."""
    shoe = list(SHOE)
    rng.shuffle(shoe)
    hand = shoe[: rng.randint(10, 30)]
    for rank in rng.sample(RANKS, 2):
        pool = [c for c in SHOE if c[0] == rank or c[1] == "J"]
        hand += rng.sample(pool, rng.randint(0, 9))
    hand = [c for c in hand if hand.count(c) <= 3]  # at most three copies (three decks)
    return hand


def _table_play(rng: random.Random, dao: str):
    """A play on the table, or None (a lead)."""
    if rng.random() < 0.25:
        return None
    while True:
        shoe = list(SHOE)
        rank = rng.choice(RANKS)
        pool = [c for c in shoe if c[0] == rank] + ["RJ", "BJ"] * 3
        rng.shuffle(pool)
        cards = pool[: rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 8])]
        if rng.random() < 0.1:
            cards = [rng.choice(DISTINCT_CARDS)] * 3
        try:
            play = classify(cards, dao)
        except ValueError:
            continue
        if play is not None:
            return play


def _selections(rng: random.Random, hand: list[str], hints: list[dict]) -> list[list[str]]:
    """Picks a person might make: the hints themselves, the same ranks with other
    suits, one rank's cards with jokers, and random handfuls."""
    out = [h["cards"] for h in hints[:6]]
    jokers = [c for c in hand if c[1] == "J"]
    for _ in range(12):
        rank = rng.choice(RANKS)
        same = [c for c in hand if c[0] == rank and c[1] != "J"]
        rng.shuffle(same)
        pick = same[: rng.randint(1, max(1, len(same)))]
        pick += rng.sample(jokers, rng.randint(0, min(2, len(jokers))))
        if pick:
            out.append(pick)
    for _ in range(4):
        out.append(rng.sample(hand, rng.randint(1, min(4, len(hand)))))
    return out


def _legal(selection: list[str], table, dao: str):
    try:
        play = classify(selection, dao)
    except ValueError:
        return None
    if play is None or (table is not None and not beats(play, table)):
        return None
    return play


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_selection_matches_a_hint_exactly_when_the_engine_accepts_it():
    rng = random.Random(20261201)
    cases, expected = [], []
    while len(cases) < 6000:
        dao = rng.choice(RANKS)
        hand = _hand(rng)
        table = _table_play(rng, dao)
        hints = [hint(p) for p in legal_plays(hand, table, dao)]
        for selection in _selections(rng, hand, hints):
            play = _legal(selection, table, dao)
            cases.append({"selection": selection, "hints": hints})
            expected.append(None if play is None else [play.kind, play.rank, play.jokers])
    run = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=commonjs", "-e",
         f"(async () => {{ {_JS} }})()", str(STATE_JS)],
        input=json.dumps(cases), capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    bad = [(c["selection"], e, g) for c, e, g in zip(cases, expected, got, strict=True) if e != g]
    assert not bad, f"{len(bad)} of {len(cases)} disagree, e.g. {bad[:3]}"
    legal = [e for e in expected if e is not None]
    # the cases reach every kind, and both verdicts
    assert {e[0] for e in legal} == {"single", "pair", "triple", "bomb", "atom", "hydrogen"}
    assert len(legal) > 1000
    assert len(cases) - len(legal) > 1000


_KEEP_JS = r"""
const store = await import(process.argv[1]);
const hand = ["3S", "4S", "5S", "5H"];
const view = (seq, turn, h = hand) =>
  ({game_id: 7, seq, turn, seat: 0, status: "playing", hand: h});
const out = [];
store.acceptView(view(10, 3));
store.toggleCard(0);
store.acceptView(view(11, 0));          // another seat played: my turn now
out.push(store.state.selected.length);
store.acceptView(view(12, 1));          // my turn went by, my hand the same: the clock passed
out.push(store.state.selected.length);
store.toggleCard(1);
store.acceptView(view(13, 2));          // another seat's move
out.push(store.state.selected.length);
store.acceptView(view(14, 3));
store.acceptView(view(15, 0));
store.acceptView(view(16, 1, ["3S", "5H"]));  // I played: a new hand
out.push(store.state.selected.length);
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_selection_outlives_the_others_moves_but_not_my_own_pass():
    """A selection made while others play stays for my turn; once my turn goes
    by without my hand changing (the pass button or the clock's pass), or I
    play, it is cleared."""
    run = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=commonjs", "-e",
         f"(async () => {{ {_KEEP_JS} }})()", str(STATE_JS)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [1, 0, 1, 0]


_EMPTIED_JS = r"""
const store = await import(process.argv[1]);
const seats = (n) => [0, 1, 2, 3].map((i) => ({index: i, player: i < n ? {id: i + 1} : null}));
const over = (seat) => ({game_id: 9, seq: 80, turn: 0, seat, status: "over", hand: []});
const out = [];
store.setTable({status: "waiting", seats: seats(2)});
store.acceptView(over(null));           // a spectator, two players still seated
out.push(store.state.view !== null);
store.setTable({status: "waiting", seats: seats(0)});  // the last one left
out.push(store.state.view !== null);
out.push(store.acceptView(over(null)) !== null);      // a sync brings it back: not taken
store.acceptView(over(2));              // a player of that game keeps its end
out.push(store.state.view !== null);
store.dismissResult();                  // and why they stood, after its result
out.push(store.state.view !== null);
store.setTable({status: "waiting", seats: seats(2)});
store.acceptView({...over(null), game_id: 10, status: "playing"});  // watched running
store.acceptView({...over(null), game_id: 10});
store.setTable({status: "waiting", seats: seats(0)});
out.push(store.state.view !== null);    // its end stays on the page that watched it
process.stdout.write(JSON.stringify(out));
"""


_SEATED_JS = r"""
const store = await import(process.argv[1]);
store.state.me = {id: 3};
const seats = (me) => [0, 1, 2, 3].map((i) => ({index: i, player: i === 2 && me ? {id: 3} : null}));
const out = [];
store.setTable({status: "waiting", seats: seats(false)});  // opened after I stood
out.push(store.state.sawSeated);
store.setTable({status: "waiting", seats: seats(true)});   // I sit
store.setTable({status: "waiting", seats: seats(false)});  // and am stood up
out.push(store.state.sawSeated);
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_page_tells_why_i_stand_only_if_it_saw_me_seated():
    """A page opened after its player left their seat (on purpose, an escape,
    a lost connection) cannot tell which: it says where they are (T.not_seated),
    not "you were stood up"; a page that saw them seated can (static/js/notices.js
    stoodUpText reads ``sawSeated``)."""
    run = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=commonjs", "-e",
         f"(async () => {{ {_SEATED_JS} }})()", str(STATE_JS)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [False, True]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_an_emptied_table_drops_its_last_board():
    """Once nobody sits at a waiting table, its last game's view (刀, scores,
    badges) goes from a page that did not see it running; a player of that
    game, or a page that watched it, keeps its end (the result, why one
    stood). games.snapshots.emptied and seatview.game_view on the server."""
    run = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=commonjs", "-e",
         f"(async () => {{ {_EMPTIED_JS} }})()", str(STATE_JS)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [True, False, False, True, True, True]


_PLAY_NAME_JS = r"""
const {T} = await import(process.argv[1] + "/i18n.js");
const {playName} = await import(process.argv[1] + "/cards.js");
Object.assign(T, JSON.parse(require("fs").readFileSync(0, "utf8")));
process.stdout.write(JSON.stringify([
  playName({kind: "single", rank: "3", jokers: 1}, ["BJ"]),
  playName({kind: "pair", rank: "3", jokers: 2}, ["RJ", "RJ"]),
  playName({kind: "single", rank: "T", jokers: 0}, ["TS"]),
  playName({kind: "pair", rank: "T", jokers: 1}, ["TS", "BJ"]),
  playName({kind: "bomb", rank: "K", jokers: 0}, ["KS", "KS", "KH", "KD"]),
]));
"""


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_lone_joker_is_named_as_the_joker_it_is():
    """A tester read "Single jokers" for one joker played (RULES.md §3: a joker
    alone is a single); it is named as its card, a group of jokers as jokers."""
    from django.utils import translation

    from games.ui import table_strings

    with translation.override("en"):
        strings = table_strings()
    run = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=commonjs", "-e",
         f"(async () => {{ {_PLAY_NAME_JS} }})()", str(STATE_JS.parent)],
        input=json.dumps(strings), capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    single, pair, ten, pair_of_tens, bomb = json.loads(run.stdout)
    assert single == strings["kinds"]["single"].replace("%(rank)s", "Small joker")
    assert pair == "Pair of jokers"
    assert ten.endswith("10")
    # a tester read "Pair of 10" where the lessons say "a pair of 10s"
    assert (pair_of_tens, bomb) == ("Pair of 10s", "4-card bomb of Ks")
