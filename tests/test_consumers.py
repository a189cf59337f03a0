"""The websocket protocol (docs/protocol.md) against the real ASGI application:
whole games, refusals, reconnects, spectators, malformed frames, origins, the
lobby, seats, chat and escape through the sockets. The services behind them are
tested in their own files (test_tables.py, test_bot_seats.py, test_clock.py,
test_chat.py, test_finish.py; the engine in test_engine_*.py).

Every socket goes through ``yuanzi_site.asgi.application``: the Origin check
and the session-cookie ``AuthMiddlewareStack`` run as in production. Sessions
come from Django's test ``Client.force_login``. The tests are
``transaction=True`` because consumers reach the database from other threads
and the broadcasts are sent from ``transaction.on_commit``.

No browser tests here (NOTES.md: pytest-asyncio after Playwright breaks).
"""

from __future__ import annotations

import contextlib
import random
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client

from accounts.models import Profile, RatingEntry
from games import engine, play, seatview, tables
from games.engine.cards import DISTINCT_CARDS
from games.models import ChatMessage, Game, GameEvent, Seat, Table
from tests.ws_checks import check_frames, choose, states_by_seq
from yuanzi_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://localhost")
TIMEOUT = 5  # seconds to wait for one frame


@pytest.fixture(autouse=True)
def _site(settings):
    """Per test: a private cache (rate-limit counters), no Celery publishing,
    generous action limits (a whole game is played in seconds)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"consumers-{uuid.uuid4()}",
        }
    }
    settings.GAMES_SCHEDULER = "none"  # nothing here needs a clock: tests call sweep_due
    settings.GAMES_ACTION_RATE = (100_000, 5)
    settings.GAMES_BOT_DELAY_SECONDS = 0


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    name = django_settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


# --- a socket that remembers everything it received -------------------------------


class Sock:
    """One websocket client: every frame it receives is kept in ``frames``."""

    def __init__(self, comm: WebsocketCommunicator, seat: int | None = None) -> None:
        self.comm = comm
        self.seat = seat
        self.frames: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        msg = await self.comm.receive_json_from(timeout=timeout)
        self.frames.append(msg)
        if msg["type"] == "game":
            self.view = msg["view"]
        return msg

    async def until(self, pred, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Receive until a frame satisfies ``pred``; return it."""
        for _ in range(1000):
            msg = await self.recv(timeout)
            if pred(msg):
                return msg
        raise AssertionError("no matching frame in 1000")

    async def until_seq(self, seq: int) -> dict[str, Any]:
        return await self.until(lambda m: m["type"] == "game" and m["view"]["seq"] >= seq)

    async def error(self) -> dict[str, Any]:
        return await self.until(lambda m: m["type"] == "error")

    async def send(self, msg: Any) -> None:
        await self.comm.send_json_to(msg)

    async def quiet(self, timeout: float = 0.2) -> None:
        """Take in whatever arrives within ``timeout`` (table updates and such)."""
        while not await self.comm.receive_nothing(timeout):
            await self.recv()


async def _open(table_id: int, user=None, origin=ORIGIN, seat=None) -> Sock:
    headers = [origin] if origin else []
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(_cookie)(user)))
    comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert connected, f"refused with {code}"
    sock = Sock(comm, seat)
    assert (await sock.recv())["type"] == "table"
    assert (await sock.recv())["type"] == "chat_history"
    return sock


@pytest.fixture
async def socks():
    """Every Sock a test opens is closed at its end."""
    opened: list[Sock] = []
    yield opened
    for s in opened:
        with contextlib.suppress(Exception):  # already closed by the server
            await s.comm.disconnect()


async def _connect_all(table, players, socks) -> list[Sock]:
    for seat, user in enumerate(players):
        socks.append(await _open(table.pk, user, seat=seat))
    return socks[:4]


def _db(fn):
    return database_sync_to_async(fn)


@_db
def _game(table_id: int) -> Game:
    return Game.objects.get(pk=Table.objects.get(pk=table_id).current_game_id)


@_db
def _start_game(table, players) -> Game:
    """Seat the four players and make them ready through games.tables."""
    for seat, user in enumerate(players):
        tables.sit(table.pk, user, seat)
    game = None
    for user in players:
        game = tables.set_ready(table.pk, user)
    assert game is not None
    return game


async def _play_through_sockets(socks: list[Sock], seed: int = 7) -> dict[str, Any]:
    """Play to the end: the seat to act picks with ``heuristic_policy`` from its own
    latest received view and sends it; every socket waits for the next seq."""
    rngs = [random.Random(f"{seed}:{i}") for i in range(4)]
    for _ in range(2000):
        view = socks[0].view
        if view["status"] == engine.OVER:
            return view
        turn = view["turn"]
        me = socks[turn]
        assert me.view["seq"] == view["seq"]
        assert me.view["seat"] == turn
        await me.send(choose(me.view, rngs[turn]))
        for s in socks:
            await s.until_seq(view["seq"] + 1)
    raise AssertionError("the game did not end in 2000 actions")


# --- a complete game through the consumers -------------------------------------------


async def test_four_players_play_a_complete_game_through_sockets(table, players, outsider,
                                                                 socks):
    seats = await _connect_all(table, players, socks)
    watcher = await _open(table.pk, outsider)
    socks.append(watcher)
    for s in seats:
        await s.send({"type": "sit", "seat": s.seat})
    await seats[3].until(lambda m: m["type"] == "table"
                         and all(x["player"] for x in m["table"]["seats"]))
    for s in seats:
        await s.send({"type": "ready"})
    for s in [*seats, watcher]:
        await s.until_seq(0)
    assert [s.view["seat"] for s in seats] == [0, 1, 2, 3]
    assert watcher.view["hand"] is None

    final = await _play_through_sockets(seats)
    await watcher.until(lambda m: m["type"] == "game" and m["view"]["status"] == "over")

    game = await _game(table.pk)
    assert game.status == Game.OVER
    assert game.settled
    assert game.seq == final["seq"]
    states = await _db(states_by_seq)(game)
    assert states[game.seq] == game.state
    for s in seats:
        assert check_frames(s.frames, states, s.seat) >= game.seq
        assert s.view["status"] == "over"
        assert s.view["hands"] == game.state["hands"]
        assert s.view["seed"] == game.state["seed"]
    assert check_frames(watcher.frames, states, None) >= game.seq

    result = game.state["result"]
    assert result["winner"] in (0, 1)
    assert not game.practice
    stake = result["stake"]
    assert stake == (2 if result["double_clamp"] else 1)  # four 科员: stake 1 (§7)

    @_db
    def standings():
        return (
            [Profile.objects.get(user=u) for u in players],
            {e.user_id: e.delta for e in RatingEntry.objects.filter(game=game)},
            Table.objects.get(pk=table.pk),
        )

    profiles, entries, tbl = await standings()
    for seat, (user, profile) in enumerate(zip(players, profiles, strict=True)):
        expected = stake if engine.team_of(seat) == result["winner"] else -stake
        assert profile.rating_points == expected == entries[user.pk]
        assert profile.games_played == 1
        assert profile.games_won == int(expected > 0)
    assert tbl.status == Table.WAITING


# --- refusals leave everything as it was ------------------------------------------------


def _other_single(hand: list[str], dao: str, table_play) -> str | None:
    for card in hand:
        if not engine.beats(engine.classify([card], dao), table_play):
            return card
    return None


async def test_illegal_plays_and_stale_seq_are_refused_and_change_nothing(table, players,
                                                                          socks):
    game = await _start_game(table, players)
    seats = await _connect_all(table, players, socks)
    st = game.state
    turn = st["turn"]
    me = seats[turn]
    hand = st["hands"][turn]
    missing = next(c for c in DISTINCT_CARDS if c not in hand)
    refusals = [
        ({"type": "play", "seq": 0, "cards": [missing]}, "not_in_hand"),
        ({"type": "play", "seq": 0, "cards": ["10S"]}, "bad_card"),
        ({"type": "play", "seq": 0, "cards": [["7S"]]}, "bad_card"),
        ({"type": "play", "seq": 0, "cards": {"7S": 1}}, "bad_card"),
        ({"type": "play", "seq": 0, "cards": []}, "not_a_combination"),
        ({"type": "pass", "seq": 0}, "must_lead"),
        ({"type": "play", "seq": 1, "cards": [hand[0]]}, "stale"),
        ({"type": "play", "seq": "1", "cards": [hand[0]]}, "stale"),  # ASCII digits: a number
        ({"type": "play", "seq": -1, "cards": [hand[0]]}, "bad_message"),  # no whole number
        ({"type": "play", "seq": "０", "cards": [hand[0]]}, "bad_message"),
        ({"type": "play", "seq": " 0", "cards": [hand[0]]}, "bad_message"),
        ({"type": "play", "cards": [hand[0]]}, "bad_message"),
        # more copies than any hand holds: real cards, not in the hand
        ({"type": "play", "seq": 0, "cards": [hand[0]] * 50}, "not_in_hand"),
    ]
    mixed = [c for c in hand if engine.classify([hand[0], c], st["dao"]) is None]
    if mixed:
        refusals.append(({"type": "play", "seq": 0, "cards": [hand[0], mixed[0]]},
                         "not_a_combination"))
    for msg, reason in refusals:
        await me.send({**msg, "ref": reason})
        err = await me.error()
        assert (err["reason"], err["ref"]) == (reason, reason), msg
        assert err["message"]
    other = seats[(turn + 1) % 4]
    await other.send({"type": "play", "seq": 0, "cards": [st["hands"][other.seat][0]]})
    assert (await other.error())["reason"] == "not_your_turn"

    after = await _game(table.pk)
    assert (after.seq, after.state) == (0, st)
    assert not await _db(GameEvent.objects.filter(game=game).exists)()

    # a play on the table, then a follower's single that does not beat it
    strongest = max((p for p in engine.legal_plays(hand, None, st["dao"]) if p.size == 1),
                    key=lambda p: p.strength)
    await me.send({"type": "play", "seq": 0, "cards": list(strongest.cards)})
    for s in seats:
        await s.until_seq(1)
    nxt = seats[seats[0].view["turn"]]
    st1 = (await _game(table.pk)).state
    card = _other_single(st1["hands"][nxt.seat], st1["dao"], strongest)
    assert card is not None
    await nxt.send({"type": "play", "seq": 1, "cards": [card]})
    err = await nxt.error()
    assert err["reason"] == "does_not_beat"
    assert err["message"].startswith("规则 §3")  # the rule, as the tutorial says it
    # `why` asks the same without playing: the same reason and sentence, nothing moves
    await nxt.send({"type": "why", "cards": [card]})
    why = await nxt.until(lambda m: m["type"] == "why")
    assert why == {"type": "why", "cards": [card], "seq": 1, "legal": False,
                   "reason": "does_not_beat", "message": err["message"]}
    beats = engine.legal_plays(st1["hands"][nxt.seat], strongest, st1["dao"])
    if beats:
        await nxt.send({"type": "why", "cards": list(beats[0].cards)})
        why = await nxt.until(lambda m: m["type"] == "why")
        assert (why["legal"], why["reason"], why["message"]) == (True, None, "")
    await nxt.send({"type": "why", "cards": "7S"})
    assert (await nxt.error())["reason"] == "bad_card"
    assert (await _game(table.pk)).seq == 1
    await nxt.send({"type": "play", "seq": 0, "cards": [card]})  # the old seq: stale
    assert (await nxt.error())["reason"] == "stale"
    # the same move sent twice: the second is stale, never applied twice
    await nxt.send({"type": "pass", "seq": 1})
    await nxt.send({"type": "pass", "seq": 1})
    seen: set = set()
    while seen != {"moved", "stale"}:
        m = await nxt.recv()
        if m["type"] == "game" and m["view"]["seq"] == 2:
            seen.add("moved")
        elif m["type"] == "error":
            assert m["reason"] == "stale"
            seen.add("stale")
    after = await _game(table.pk)
    assert after.seq == 2
    assert await _db(GameEvent.objects.filter(game=game).count)() == 2


@pytest.mark.parametrize("kept", [True, False])
async def test_sync_gives_the_databases_view_from_the_last_broadcast_or_the_database(
        table, players, socks, monkeypatch, kept):
    """With one process (the in-memory layer) a ``sync`` is answered from the
    views last broadcast (games.adapters.lastview), else from the database:
    either way what the database would give, the clock recomputed."""
    from games.adapters import lastview

    monkeypatch.setattr(lastview, "enabled", kept)
    await _start_game(table, players)
    game = await _game(table.pk)
    turn = game.state["turn"]
    action = engine.heuristic_policy(await _db(seatview.view_for)(game, turn), random.Random(1))
    await _db(play.act)(game.pk, players[turn], 0, action)  # broadcast: kept if enabled
    me = await _open(table.pk, players[turn], seat=turn)
    watcher = await _open(table.pk, None)
    socks.extend([me, watcher])
    game = await _game(table.pk)
    for sock, seat in ((me, turn), (watcher, None)):
        await sock.until(lambda m: m["type"] == "game")
        assert (lastview.view(table.pk, players[turn].pk if seat is not None else None)
                is not None) is kept
        await sock.send({"type": "sync"})
        got = (await sock.until(lambda m: m["type"] == "game"))["view"]
        want = await _db(seatview.view_for)(game, seat)
        assert abs(want["time_left_ms"] - got["time_left_ms"]) <= 60_000  # read apart in time
        got.pop("time_left_ms"), want.pop("time_left_ms")
        assert got == want
        assert got["seq"] == 1
        assert bool(got.get("hand")) is (seat is not None)


def test_lastview_keeps_a_tables_newest_game_and_defers_a_paused_clock(monkeypatch):
    """An earlier game's late change never replaces the table's newer one; a
    view kept while the clock was paused is left to the database; a closed
    table's views are dropped; the clock runs down from the due time."""
    from datetime import timedelta

    from django.utils import timezone

    from games.adapters import lastview

    monkeypatch.setattr(lastview, "enabled", True)
    due = timezone.now() + timedelta(seconds=20)
    new = lastview.Kept(7, {1: {"seq": 3, "time_left_ms": 30_000, "clock_paused": False}},
                        {"seq": 3, "time_left_ms": 30_000, "clock_paused": False}, due)
    lastview.keep(99, new)
    lastview.keep(99, lastview.Kept(6, {}, {"seq": 9}, None))  # a late change of game 6
    mine = lastview.view(99, 1)
    assert mine is not None
    assert mine["seq"] == 3
    assert 0 < mine["time_left_ms"] <= 20_000
    assert lastview.view(99, None)["seq"] == 3  # not seated: the spectators' view
    assert lastview.view(99, 2)["seq"] == 3
    lastview.keep(99, lastview.Kept(8, {}, {"seq": 0, "time_left_ms": 5, "clock_paused": True},
                                    due))
    assert lastview.view(99, None) is None
    lastview.forget(99)
    assert lastview.view(99, 1) is None


def test_a_follower_answers_only_while_it_provably_missed_no_version():
    """The Redis stack's sync (lastview.Follower): the last view sent answers
    while every version since the database read arrived, in any order, and the
    counter still says the newest; a gap, a message still on its way, an
    unknown version or a paused clock leave it to the database."""
    from games.adapters import lastview
    from games.adapters.lastview import Follower

    f = Follower()
    f.read(None, {"seq": 0})  # the greeting, the table never versioned
    assert f.answer(None) is None
    assert f.answer(5) is None  # a change since, of which nothing is known
    f.read(5, {"seq": 0, "time_left_ms": 20_000})  # the database, read at version 5
    got = f.answer(5)
    assert got is not None
    assert got["seq"] == 0
    assert 19_000 < got["time_left_ms"] <= 20_000  # the clock runs down from when it was sent
    f.sent(7, {"seq": 2})  # 6 not here yet
    assert f.answer(7) is None
    f.sent(6, {"seq": 1})  # late: the gap closes, the newest view stays
    assert f.answer(7) == {"seq": 2}
    assert f.answer(8) is None  # 8 lost or on its way: the database decides
    f.sent(None, {"seq": 9})  # an unversioned message (one process) changes nothing
    assert f.answer(7) == {"seq": 2}
    f.read(8, {"seq": 3, "clock_paused": True})
    assert f.answer(8) is None  # a paused clock: the database says how long it stands
    f.read(9, {"seq": 4})
    assert f.answer(9) == {"seq": 4}
    f.read(10, {"game_id": 2, "seq": 0})
    f.sent(11, {"game_id": 1, "seq": 80})  # a late change of the table's earlier game
    assert f.answer(11) is None  # not what the table shows now: the database decides
    assert f.answer(3) is None  # the counter expired and started afresh
    f.read(20, {"seq": 5})
    for v in range(22, 22 + lastview.AHEAD_LIMIT + 1):  # 21 never came
        f.sent(v, {"seq": 6})
    assert f.base is None  # a gap kept no longer: unknown until the database is read
    assert not f.ahead


# --- reconnects, second tabs, spectators --------------------------------------------


async def test_reconnect_and_second_tab_get_the_same_view(table, players, socks):
    await _start_game(table, players)
    first = await _open(table.pk, players[1], seat=1)
    view = (await first.until(lambda m: m["type"] == "game"))["view"]
    await first.comm.disconnect()
    again = await _open(table.pk, players[1], seat=1)
    tab = await _open(table.pk, players[1], seat=1)
    socks.extend([again, tab])
    for s in (again, tab):
        v = (await s.until(lambda m: m["type"] == "game"))["view"]
        assert (v["seq"], v["hand"], v["seat"]) == (view["seq"], view["hand"], 1)
    await again.send({"type": "sync"})
    v = (await again.until(lambda m: m["type"] == "game"))["view"]
    assert (v["seq"], v["hand"]) == (view["seq"], view["hand"])

    # a move made elsewhere reaches both tabs
    game = await _game(table.pk)
    turn = game.state["turn"]
    action = engine.heuristic_policy(await _db(seatview.view_for)(game, turn), random.Random(1))
    await _db(play.act)(game.pk, players[turn], 0, action)
    for s in (again, tab):
        v = (await s.until_seq(1))["view"]
        assert v["seat"] == 1
        assert v["hand"] == (await _game(table.pk)).state["hands"][1]


async def test_spectators_get_views_without_a_hand(table, players, outsider, socks):
    game = await _start_game(table, players)
    watcher = await _open(table.pk, outsider)
    anonymous = await _open(table.pk, None)
    socks.extend([watcher, anonymous])
    for s in (watcher, anonymous):
        v = (await s.until(lambda m: m["type"] == "game"))["view"]
        assert v["hand"] is None
        assert v["seat"] is None
        assert "hints" not in v
        assert "hands" not in v
        assert "seed" not in v
        assert v["counts"] == [len(h) for h in game.state["hands"]]
    await anonymous.send({"type": "play", "seq": 0, "cards": ["3S"]})
    assert (await anonymous.error())["reason"] == "login_required"
    await watcher.send({"type": "play", "seq": 0, "cards": ["3S"]})
    assert (await watcher.error())["reason"] == "not_seated"
    await watcher.send({"type": "ready"})
    assert (await watcher.error())["reason"] == "game_running"

    turn = game.state["turn"]
    action = engine.heuristic_policy(await _db(seatview.view_for)(game, turn),
                                     random.Random(2))  # contributions may query
    await _db(play.act)(game.pk, players[turn], 0, action)
    for s in (watcher, anonymous):
        v = (await s.until_seq(1))["view"]
        assert v["hand"] is None
        assert "hints" not in v
    states = await _db(states_by_seq)(await _game(table.pk))
    assert check_frames(watcher.frames, states, None) == 2
    assert check_frames(anonymous.frames, states, None) == 2


async def test_snapshot_counts_spectators_and_online_players(table, players, outsider, socks):
    await _db(tables.sit)(table.pk, players[0], 0)
    me = await _open(table.pk, players[0], seat=0)
    socks.append(me)
    socks.append(await _open(table.pk, outsider))
    msg = await me.until(lambda m: m["type"] == "table" and m["table"]["spectators"] == 1)
    assert msg["table"]["seats"][0]["online"] is True
    await me.send({"type": "ping"})
    assert (await me.until(lambda m: m["type"] == "pong"))["type"] == "pong"


# --- malformed messages and foreign origins ----------------------------------------------


async def test_malformed_messages_get_an_error_and_change_nothing(table, players, socks):
    game = await _start_game(table, players)
    me = await _open(table.pk, players[game.state["turn"]], seat=game.state["turn"])
    socks.append(me)
    await me.until(lambda m: m["type"] == "game")
    await me.comm.send_to(text_data="this is not json")
    assert (await me.error())["reason"] == "bad_message"
    await me.comm.send_input({"type": "websocket.receive", "text": ""})
    assert (await me.error())["reason"] == "bad_message"
    await me.comm.send_to(bytes_data=b'{"type": "sync"}')
    assert (await me.error())["reason"] == "bad_message"
    for bad in ([1, 2, 3], "play", 5, None, {"no": "type"}, {"type": 5}, {"type": "dance"},
                {"type": "PLAY", "seq": 0}):
        await me.send(bad)
        assert (await me.error())["reason"] == "bad_message", bad
    for bad in ({"type": "sit", "seat": "0"}, {"type": "sit", "seat": [0]},
                {"type": "add_bot", "seat": 9}):
        await me.send(bad)
        assert (await me.error())["reason"] in ("bad_seat", "game_running", "not_owner")
    after = await _game(table.pk)
    assert (after.seq, after.state) == (0, game.state)
    # the connection survived all of it
    await me.send({"type": "sync"})
    assert (await me.until(lambda m: m["type"] == "game"))["view"]["seq"] == 0


@pytest.mark.parametrize("origin", [b"http://evil.example", b"https://localhost.evil.example",
                                    None])
async def test_foreign_or_missing_origin_is_rejected(table, owner, origin):
    headers = [(b"cookie", await database_sync_to_async(_cookie)(owner))]
    if origin:
        headers.append((b"origin", origin))
    comm = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert not connected
    await comm.disconnect()


async def test_unknown_table_is_refused(owner):
    comm = WebsocketCommunicator(application, "/ws/table/999999/",
                                 headers=[ORIGIN, (b"cookie", await _db(_cookie)(owner))])
    # accepted, then closed with 4404: a close before accept would reach a
    # browser as an HTTP 403 handshake refusal (code 1006), never as 4404
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    closed = await comm.receive_output(timeout=TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4404}
    await comm.disconnect()


async def test_lobby_lists_tables_and_streams_changes(table, owner):
    comm = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN])
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    try:
        first = await comm.receive_json_from(timeout=TIMEOUT)
        assert first["type"] == "tables"
        assert [t["id"] for t in first["tables"]] == [table.pk]
        await _db(tables.sit)(table.pk, owner, 2)
        row = await comm.receive_json_from(timeout=TIMEOUT)
        assert row["type"] == "table"
        assert row["table"]["seats"][2]["player"]["username"] == "owner"
    finally:
        await comm.disconnect()


# --- seats and bots through the socket --------------------------------------------------


async def test_seat_rules_through_the_socket(table, owner, partner, socks):
    mine = await _open(table.pk, owner, seat=0)
    theirs = await _open(table.pk, partner, seat=2)
    socks.extend([mine, theirs])
    await mine.send({"type": "sit", "seat": 0})
    # two consumers' messages reach the database thread in no set order: wait
    await theirs.until(lambda m: m["type"] == "table" and m["table"]["seats"][0]["player"])
    await theirs.send({"type": "sit", "seat": 0})
    assert (await theirs.error())["reason"] == "seat_taken"
    await theirs.send({"type": "add_bot", "seat": 1})
    assert (await theirs.error())["reason"] == "not_owner"
    await mine.send({"type": "add_bot", "seat": 1})
    snap = await theirs.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["bot"])
    assert snap["table"]["seats"][0]["player"]["username"] == "owner"
    await theirs.send({"type": "remove_bot", "seat": 1})
    assert (await theirs.error())["reason"] == "not_owner"
    await theirs.send({"type": "sit", "seat": 2})
    await theirs.send({"type": "ready"})
    await mine.send({"type": "ready"})
    await mine.send({"type": "stand"})
    await mine.send({"type": "sit", "seat": 0})
    expected = [("owner", False, False), (None, True, True), ("partner", False, True),
                (None, False, False)]
    await theirs.until(lambda m: m["type"] == "table" and [
        ((x["player"] or {}).get("username"), x["bot"], x["ready"]) for x in m["table"]["seats"]
    ] == expected)
    seats = await _db(lambda: list(Seat.objects.filter(table=table).order_by("index")))()
    assert [(s.user_id, s.is_bot, s.ready) for s in seats] == [
        (owner.pk, False, False), (None, True, True), (partner.pk, False, True),
        (None, False, False),
    ]
    assert await _db(Game.objects.count)() == 0


# --- chat ---------------------------------------------------------------------------


async def test_chat_round_trips_raw_text_with_limits(table, owner, outsider, socks, settings):
    settings.GAMES_CHAT_RATE = (6, 60)  # refused lines count too
    me = await _open(table.pk, owner)
    other = await _open(table.pk, outsider)
    anonymous = await _open(table.pk, None)
    socks.extend([me, other, anonymous])
    text = "<script>alert('原子')</script> & \"quotes\" 你好"
    await me.send({"type": "chat", "text": text})
    line = (await other.until(lambda m: m["type"] == "chat"))["line"]
    assert line["user"] == "owner"
    assert line["text"] == text
    longest = "原" * 200
    await me.send({"type": "chat", "text": longest})
    assert (await other.until(lambda m: m["type"] == "chat"))["line"]["text"] == longest
    await me.send({"type": "chat", "text": "原" * 201})
    assert (await me.error())["reason"] == "too_long"
    await me.send({"type": "chat", "text": "   "})
    assert (await me.error())["reason"] == "empty"
    await me.send({"type": "chat", "text": ["not", "text"]})
    assert (await me.error())["reason"] == "empty"
    await me.send({"type": "chat", "text": "third"})
    await me.until(lambda m: m["type"] == "chat")
    await me.send({"type": "chat", "text": "fourth"})  # the 7th in the window
    assert (await me.error())["reason"] == "rate_limited"
    await anonymous.send({"type": "chat", "text": "hi"})
    assert (await anonymous.error())["reason"] == "login_required"

    stored = await _db(lambda: list(ChatMessage.objects.values_list("text", flat=True)))()
    assert stored == [text, longest, "third"]
    assert all(len(t) <= 200 for t in stored)
    late = await _open(table.pk, None)
    socks.append(late)
    history = next(f for f in late.frames if f["type"] == "chat_history")
    assert [line["text"] for line in history["lines"]] == stored


# --- escape through the socket ------------------------------------------------------------


async def test_escape_through_the_socket_abandons_the_game(table, players, socks):
    game = await _start_game(table, players)
    seats = await _connect_all(table, players, socks)
    await seats[2].send({"type": "escape"})
    for s in seats:
        v = (await s.until(lambda m: m["type"] == "game" and m["view"]["status"] == "over"))
        assert v["view"]["result"]["abandoned_by"] == 2
    profiles = await _db(lambda: [Profile.objects.get(user=u).rating_points for u in players])()
    assert profiles == [0, 0, -20, 0]  # max(2 × 1, 20) in the first half (§7)
    entry = await _db(RatingEntry.objects.get)(game=game)
    assert (entry.user_id, entry.delta, entry.reason) == (players[2].pk, -20, "escape")


def test_a_socket_speaks_its_pages_language():
    """A refusal's message reads in the page's language: the language cookie,
    else Accept-Language, else the site's default (what a tester met: Chinese
    errors on English pages)."""
    from games.adapters.consumers import scope_language

    def scope(*headers: tuple[bytes, bytes]) -> dict:
        return {"headers": list(headers)}

    assert scope_language(scope()) == "zh-hans"
    assert scope_language(scope((b"accept-language", b"en-US,en;q=0.9"))) == "en"
    assert scope_language(scope((b"cookie", b"django_language=en; sessionid=x"),
                                (b"accept-language", b"zh-CN"))) == "en"
    assert scope_language(scope((b"cookie", b"django_language=xx"),
                                (b"accept-language", b"fr, en;q=0.5"))) == "en"
    assert scope_language(scope((b"cookie", b"bad=\x00;;"))) == "zh-hans"


@pytest.mark.django_db(transaction=True)
async def test_a_refusal_comes_in_english_on_an_english_page(owner):
    from channels.db import database_sync_to_async

    from games import tables
    from tests.test_robustness import ORIGIN, _open

    table = await database_sync_to_async(tables.create_table)(owner, "English")
    comm = await _open(table.pk, owner, headers=(ORIGIN, (b"accept-language", b"en")))
    try:
        await comm.send_json_to({"type": "sit", "seat": 9})
        while (msg := await comm.receive_json_from(5))["type"] != "error":
            pass
        assert msg["reason"] == "bad_seat"
        assert msg["message"].isascii(), msg["message"]  # English words, not Chinese
        for frame in ("{bad json", "[]"):  # a tester's: these came back in Chinese
            await comm.send_to(text_data=frame)
            while (msg := await comm.receive_json_from(5))["type"] != "error":
                pass
            assert msg == {"type": "error", "reason": "bad_message",
                           "message": "Malformed message."}
    finally:
        await comm.disconnect()


async def test_a_frame_for_a_socket_that_closed_meanwhile_is_dropped_quietly():
    """Daphne's websocket raises ``Disconnected`` on a send after its close (a
    group message on its way while the page left): every socket's send is
    wrapped so it is dropped, no traceback; any other failure still raises."""
    from autobahn.exception import Disconnected

    from games.adapters.consumers import quiet

    async def closed(message):
        raise Disconnected("Attempt to send on a closed protocol")

    async def broken(message):
        raise OSError("something else")

    await quiet(closed)({"type": "websocket.send", "text": "{}"})  # no exception
    with pytest.raises(OSError, match="something else"):
        await quiet(broken)({"type": "websocket.send", "text": "{}"})


def test_frames_are_compact_json_that_means_what_json_dumps_means():
    """``games.wire.dumps`` (orjson) writes what ``json.dumps`` would mean:
    integer keys as strings, Chinese as itself; a value orjson cannot write
    goes through ``json``, and what is not JSON still raises ``TypeError``."""
    import doctest
    import json

    from games import wire

    assert doctest.testmod(wire).failed == 0
    frame = {"type": "game", "view": {"players": [{"username": "玩家"}], "captured": {0: 5},
                                      "hints": [{"cards": ["3H", "JK"], "exact": False}]}}
    assert json.loads(wire.dumps(frame)) == json.loads(json.dumps(frame))
    assert "玩家" in wire.dumps(frame)
    assert wire.dumps({"n": 2**70}) == '{"n":1180591620717411303424}'
    with pytest.raises(TypeError):
        wire.dumps({"s": {1, 2}})
