"""static/js/rules.js is a faithful port of the engine's classify/beats (RULES.md §3).

Random card sets (biased to one rank, atoms, hydrogen bombs and jokers) under
every dao are classified by both, and every pair of legal plays compared with
``beats``; the browser's answer must equal the engine's. Needs Node.js.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from games.engine import beats, classify
from games.engine.cards import DISTINCT_CARDS, RANKS

RULES_JS = Path(__file__).resolve().parent.parent / "static" / "js" / "rules.js"

NODE = shutil.which("node") or shutil.which("nodejs")

_JS = r"""
const R = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
function enc(cards, dao) {
  try {
    const p = R.classify(cards, dao);
    return p === null ? null : [p.kind, p.rank, p.size, p.jokers, p.strength, p.isDao];
  } catch (e) { return "ERR"; }
}
const out = cases.map(c => {
  const a = enc(c.a, c.dao), b = enc(c.b, c.dao);
  const bt = Array.isArray(a) && Array.isArray(b)
    ? R.beats(R.classify(c.a, c.dao), R.classify(c.b, c.dao)) : null;
  return [a, b, bt];
});
process.stdout.write(JSON.stringify(out));
"""


def _random_set(rng: random.Random) -> list[str]:
    roll = rng.random()
    if roll < 0.25:
        return [rng.choice(DISTINCT_CARDS) for _ in range(rng.randint(0, 12))]
    if roll < 0.4:
        return [rng.choice(DISTINCT_CARDS)] * 3
    rank = rng.choice(RANKS)
    if roll < 0.5:
        return [rank + s for s in "SHCD"] * 2
    pool = [rank + s for s in "SHCD"] * 3 + ["RJ", "BJ"] * 3
    rng.shuffle(pool)
    return pool[: rng.choice([1, 2, 3, 3, 4, 5, 6, 8, 9, 12])]


def _engine(cards: list[str], dao: str):
    try:
        p = classify(cards, dao)
    except ValueError:
        return "ERR", None
    if p is None:
        return None, None
    return [p.kind, p.rank, p.size, p.jokers, p.strength, p.is_dao], p


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_rules_js_matches_the_engine():
    rng = random.Random(20261130)
    cases, expected = [], []
    for _ in range(6000):
        dao = rng.choice(RANKS)
        a, b = _random_set(rng), _random_set(rng)
        ea, pa = _engine(a, dao)
        eb, pb = _engine(b, dao)
        bt = beats(pa, pb) if pa is not None and pb is not None else None
        cases.append({"dao": dao, "a": a, "b": b})
        expected.append([ea, eb, bt])
    run = subprocess.run(
        [NODE, "-e", _JS, str(RULES_JS)], input=json.dumps(cases),
        capture_output=True, text=True, timeout=60, check=True,
    )
    got = json.loads(run.stdout)
    bad = [(c, e, g) for c, e, g in zip(cases, expected, got, strict=True) if e != g]
    assert not bad, f"{len(bad)} mismatches, e.g. {bad[:3]}"
    kinds = {e[0][0] for e in expected if isinstance(e[0], list)}
    assert kinds == {"single", "pair", "triple", "bomb", "atom", "hydrogen"}
