"""Provably fair deals (docs/fairness.md): the deal seed combines the
server seed with each seat's seed from ``ready``; the view carries only the
commitment while the game runs and the server seed once it is over; a game's
check passes from its record and fails when one card of a hand is changed."""

from __future__ import annotations

import copy
import hashlib

import pytest

from games import fairness, play, tables
from games.adapters import handlers
from games.models import Game
from games.plugins import SocketContext
from games.seatview import view_for
from tests.helpers import make_players
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


def _game_with_seeds(seeds):
    users = make_players(4)
    table = tables.create_table(users[0])
    for i, u in enumerate(users):
        tables.sit(table.pk, u, i)
    for u, seed in zip(users, seeds, strict=True):
        handlers._ready(SocketContext(u, table.pk, "c"), {"type": "ready", "ready": True,
                                                         **({"seed": seed} if seed else {})})
    return Game.objects.get(table=table), users


def test_the_deal_seed_combines_the_server_seed_with_the_players_seeds():
    game, _ = _game_with_seeds(["甲", "b" * 64, None, "d"])
    inputs = game.state["fairness"]
    assert inputs["player_seeds"][:2] == ["甲", "b" * 64]
    assert inputs["player_seeds"][3] == "d"
    assert len(inputs["player_seeds"][2]) == 16  # the server made one for the silent page
    expected = hashlib.sha256(
        f"{inputs['server_seed']}:{':'.join(inputs['player_seeds'])}".encode()).hexdigest()
    assert game.state["seed"] == expected
    assert inputs["commitment"] == hashlib.sha256(inputs["server_seed"].encode()).hexdigest()


def test_the_server_committed_to_its_seed_before_the_players_sent_theirs():
    """The next game's commitment is in the waiting table's snapshot before
    anyone readies (so the server cannot draw its seed after seeing the
    players' seeds until the deal suits it); the game is dealt from exactly
    that seed, and the one after from a new one, committed at once."""
    from games.models import Table
    from games.snapshots import table_snapshot

    users = make_players(4)
    table = tables.create_table(users[0])
    for i, u in enumerate(users):
        tables.sit(table.pk, u, i)
    before = table_snapshot(table.pk)
    committed = before["next_commitment"]
    assert len(committed) == 64
    secret = Table.objects.get(pk=table.pk).next_server_seed
    assert secret not in repr(before)
    for u in users:
        handlers._ready(SocketContext(u, table.pk, "c"), {"type": "ready", "ready": True,
                                                         "seed": u.username})
    game = Game.objects.get(table=table)
    assert game.state["fairness"]["commitment"] == committed
    assert game.state["fairness"]["server_seed"] == secret
    assert table_snapshot(table.pk)["next_commitment"] is None  # playing: nothing to promise
    play.escape(game.pk, users[1])  # the game ends, its seed is shown
    after = table_snapshot(table.pk)
    assert after["next_commitment"] not in (None, committed)
    assert Table.objects.get(pk=table.pk).next_server_seed != secret


def test_a_running_games_views_carry_the_commitment_never_the_server_seed():
    game, _ = _game_with_seeds(["a", "b", "c", "d"])
    server = game.state["fairness"]["server_seed"]
    for seat in (0, 1, 2, 3, None):
        view = view_for(game, seat)
        assert view["fairness"] == {"commitment": fairness.commitment(server),
                                    "player_seeds": ["a", "b", "c", "d"]}
        assert server not in repr(view)
        assert game.state["seed"] not in repr(view)


def test_a_finished_games_check_passes_and_fails_for_one_changed_card():
    game, users = _game_with_seeds(["a", "b", "c", "d"])
    play.escape(game.pk, users[1])
    game = Game.objects.get(pk=game.pk)
    shown = view_for(game, None)["fairness"]
    assert shown["server_seed"] == game.state["fairness"]["server_seed"]
    assert fairness.check(game.record, shown) == []
    tampered = copy.deepcopy(game.record)
    hand = tampered["halves"][0]["hands"][2]
    hand[0] = "RJ" if hand[0] != "RJ" else "BJ"
    assert fairness.check(tampered, shown) == ["half 1: the hands are not the ones dealt"]
    wrong = {**shown, "server_seed": shown["server_seed"][::-1]}
    assert "the server seed does not match the commitment" in fairness.check(game.record, wrong)


def test_the_result_page_shows_the_check(client):
    game, users = _game_with_seeds(["a", "b", "c", "d"])
    play.escape(game.pk, users[1])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="fairness" data-ok="1"' in page
    assert game.state["fairness"]["server_seed"] in page
    assert client.get("/fairness/").status_code == 200


@pytest.mark.parametrize("seed", ["", "x" * 65, 7, ["a"], "a\nb"])
def test_a_bad_seed_is_refused(seed):
    users = make_players(1)
    table = tables.create_table(users[0])
    tables.sit(table.pk, users[0], 0)
    with pytest.raises(Refused) as e:
        handlers._ready(SocketContext(users[0], table.pk, "c"), {"type": "ready", "seed": seed})
    assert e.value.reason == "bad_message"


def test_the_script_in_docs_fairness_checks_a_game(tmp_path, monkeypatch):
    import json
    import re
    import runpy
    from pathlib import Path

    game, users = _game_with_seeds(["a", "b", "c", "d"])
    play.escape(game.pk, users[1])
    game = Game.objects.get(pk=game.pk)
    doc = (Path(__file__).resolve().parent.parent / "docs" / "fairness.md").read_text()
    script = tmp_path / "check.py"
    script.write_text(re.search(r"```python\n(.*?)```", doc, re.S).group(1))
    (tmp_path / "fairness.json").write_text(json.dumps(view_for(game, None)["fairness"]))
    monkeypatch.chdir(tmp_path)
    for record, code in ((game.record, 0), (_tampered(game.record), 1)):
        (tmp_path / "record.json").write_text(json.dumps(record))
        with pytest.raises(SystemExit) as e:
            runpy.run_path(str(script))
        assert e.value.code == code


def _tampered(record):
    out = copy.deepcopy(record)
    out["halves"][0]["hands"][0][0] = "RJ" if out["halves"][0]["hands"][0][0] != "RJ" else "BJ"
    return out
