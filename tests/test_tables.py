"""Tables and seats through their services (``games.tables``; RULES.md §12 "one
seat per person"): sitting, moving and standing, adding and removing bots, ready
and the start once four are seated and ready, and seats frozen while the game
runs. The same rules through the socket are in tests/test_consumers.py."""

from __future__ import annotations

import pytest

from games import play, tables
from games.models import Game, GameSeat, Seat
from tests.helpers import refused

pytestmark = pytest.mark.django_db


def test_seat_rules_through_services(table, owner, partner, opponent, outsider, rival):
    t = table.pk
    tables.sit(t, owner, 0)
    tables.sit(t, owner, 0)  # sitting where one sits is a no-op
    refused("seat_taken", tables.sit, t, partner, 0)
    tables.sit(t, owner, 1)  # moving: never two seats at one table
    assert list(Seat.objects.filter(table=table, user=owner).values_list("index", flat=True)) \
        == [1]
    tables.sit(t, partner, 0)
    for bad in (-1, 4, "１", " 1", None, True, 1.0):  # "1" is a seat (Input rules)
        refused("bad_seat", tables.sit, t, outsider, bad)
    refused("not_seated", tables.stand, t, outsider)
    refused("not_seated", tables.set_ready, t, outsider)
    refused("no_table", tables.sit, 999999, owner, 0)

    refused("not_owner", tables.add_bot, t, partner, 2)
    refused("seat_taken", tables.add_bot, t, owner, 0)
    tables.add_bot(t, owner, 2)
    refused("seat_taken", tables.sit, t, outsider, 2)
    refused("not_owner", tables.remove_bot, t, partner, 2)
    refused("no_bot", tables.remove_bot, t, owner, 3)
    tables.remove_bot(t, owner, 2)
    assert Seat.objects.get(table=table, index=2).empty

    # no start until four are seated and ready
    tables.sit(t, opponent, 2)
    assert tables.set_ready(t, owner) is None
    assert tables.set_ready(t, partner) is None
    assert tables.set_ready(t, opponent) is None
    tables.set_ready(t, opponent, False)
    tables.sit(t, rival, 3)
    assert tables.set_ready(t, rival) is None
    assert Game.objects.count() == 0
    game = tables.set_ready(t, opponent)
    assert game is not None
    assert not game.practice
    names = [r.username for r in GameSeat.objects.filter(game=game)]
    assert names == ["partner", "owner", "opponent", "rival"]

    # while it runs the seats are frozen
    refused("game_running", tables.sit, t, outsider, 0)
    refused("game_running", tables.stand, t, owner)
    refused("game_running", tables.add_bot, t, owner, 0)
    refused("game_running", tables.remove_bot, t, owner, 0)
    refused("game_running", tables.set_ready, t, owner)
    refused("not_seated", play.act, game.pk, outsider, 0, {"type": "pass"})
    refused("bad_action", play.act, game.pk, owner, 0, {"type": "escape"})
    refused("bad_action", play.act, game.pk, owner, 0, "pass")
