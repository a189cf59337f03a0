"""Overload degrades, never collapses (games/adapters/overload.py; docs/protocol.md
close code 4503): while a process is saturated, a seated player of a running game
still connects (a reconnect storm is absorbed) and their moves flow, while a
spectator, a visitor, the lobby and ``/ws/me/`` are accepted and closed with
4503; saturation is the loop's lag held past the limit, or too many sockets."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.adapters import overload
from tests.helpers import make_players, start_game
from tests.test_robustness import ORIGIN, _cookie
from yuanzi_site.asgi import application

TIMEOUT = 5


def test_saturation_is_lag_held_past_the_limit_or_too_many_sockets(settings, monkeypatch):
    settings.GAMES_SATURATION_LAG_MS, settings.GAMES_SATURATION_SECONDS = 200, 2
    monkeypatch.setattr(overload, "_lagging_since", None)
    overload.note_lag(0.5, now=100.0)
    assert not overload.lag_saturated(now=101.0)  # late, but not for 2 s yet
    overload.note_lag(0.3, now=101.5)
    assert overload.lag_saturated(now=102.0)
    overload.note_lag(0.05, now=102.1)  # one prompt wake-up ends it
    assert not overload.lag_saturated(now=103.0)
    assert not overload.saturated()
    settings.GAMES_MAX_SOCKETS = 0
    monkeypatch.setattr(overload.drain, "open_sockets", lambda: 1)
    assert overload.saturated()


def test_a_lag_measured_on_a_closed_loop_refuses_nothing_on_the_next(settings):
    # one event loop per test: a lag seen as one ends must not close the
    # next test's (or a restarted loop's) sockets 2 s later
    settings.GAMES_SATURATION_LAG_MS = 200

    async def blocked() -> float | None:
        overload.watch()
        await asyncio.sleep(0.15)
        time.sleep(0.3)  # a blocking call on the loop: the watcher wakes late
        await asyncio.sleep(0.05)
        return overload._lagging_since

    assert asyncio.run(blocked()) is not None
    assert overload._lagging_since is None
    assert not overload.lag_saturated(now=time.monotonic() + 60)


async def _connect(path: str, user=None) -> WebsocketCommunicator:
    headers = [ORIGIN]
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(_cookie)(user)))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected  # accepted first, so the page can tell "busy" from a refusal
    return comm


async def _closed_with(comm: WebsocketCommunicator) -> int | None:
    while True:
        out = await comm.receive_output(TIMEOUT)
        if out["type"] == "websocket.close":
            return out.get("code")


@pytest.mark.django_db(transaction=True)
async def test_saturated_a_running_games_players_get_in_and_everyone_else_gets_4503(
        monkeypatch):
    players = await database_sync_to_async(make_players)(4, "busy")
    outsider = (await database_sync_to_async(make_players)(1, "watcher"))[0]
    game = await database_sync_to_async(start_game)(players)
    monkeypatch.setattr(overload, "saturated", lambda: True)
    table = f"/ws/table/{game.table_id}/"

    player = await _connect(table, players[0])
    assert (await player.receive_json_from(TIMEOUT))["type"] == "table"
    assert (await player.receive_json_from(TIMEOUT))["type"] == "chat_history"
    view = (await player.receive_json_from(TIMEOUT))["view"]
    assert view["seat"] == 0
    await player.send_json_to({"type": "sync"})  # and it keeps working
    assert (await player.receive_json_from(TIMEOUT))["type"] == "game"

    for comm in (await _connect(table, outsider), await _connect(table),
                 await _connect("/ws/lobby/"), await _connect("/ws/me/", outsider)):
        assert await _closed_with(comm) == overload.BUSY_CODE
    await player.disconnect()
