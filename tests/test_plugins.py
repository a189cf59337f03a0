"""The plugin seam (games.plugins, games.events; DESIGN.md "The plugin seam"):
``GAME_PLUGINS`` is the order (rating → wagers and holds → drops at a game's
end; a suspension refused before anything else at a seat); one finisher with
a reason and the §11 record (a failing hook refuses the ending move and leaves
nothing half-written); turn-timeout hooks, seat checks, view and snapshot
keys, socket messages, chat filters, after-commit events and the per-user
notice frame; one seat per person (RULES.md §12)."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

from accounts.models import Profile, RatingEntry
from games import chat, engine, events, play, plugins, presence, roster, seatview, snapshots, tables
from games.models import ChatMessage, Game, GameEvent, Seat, Table
from games.names import display_name
from tests.helpers import force_due, fresh, make_players, make_plugin, seat_row, start_game
from yuanzi_site.asgi import application
from yuanzi_site.refusals import Refused, register_reasons

ORIGIN = (b"origin", b"http://localhost")


@pytest.fixture(autouse=True)
def _quiet(settings):
    settings.GAMES_SCHEDULER = "none"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"plugins-{uuid.uuid4()}"}}


@pytest.fixture(autouse=True)
def _reasons():
    """Reason codes a test registers are gone after it (docs list only real ones)."""
    from yuanzi_site.refusals import REASONS

    before = dict(REASONS)
    yield
    REASONS.clear()
    REASONS.update(before)


@pytest.fixture
def register(plug):
    """``register(hook, fn, first=False)``: a test plugin whose ``hook`` is
    ``fn``, last in the list (or first)."""

    def add(hook, fn, first=False, **attributes):
        return plug(make_plugin(**{hook: fn}, **attributes), 0 if first else None)

    return add


def _play_to_the_end(game: Game, stop_before_last: bool = False) -> Game:
    """Every seat of ``game`` (four people) plays the heuristic policy until the
    game ends, or until the next action would end it."""
    import random

    while True:
        game = fresh(game)
        if game.status != Game.PLAYING:
            return game
        seat = game.state["turn"]
        action = engine.heuristic_policy(engine.view(game.state, seat), random.Random(game.seq))
        after, _ = engine.apply(game.state, seat, action)
        if stop_before_last and after["status"] == engine.OVER:
            return game
        play.act(game.pk, roster.seat_rows(game)[seat].user, game.seq, action)


# --- the finisher and game-end hooks ------------------------------------------------------


@pytest.mark.django_db
def test_game_end_hooks_run_in_the_lists_order_once_with_the_record(register):
    calls = []
    register("on_game_end", lambda end: calls.append(("late", end.reason)))
    register("on_game_end", lambda end: calls.append(("early", end.reason)), first=True)
    game = _play_to_the_end(start_game(make_players()))
    assert calls == [("early", "normal"), ("late", "normal")]
    assert game.end_reason == "normal"
    assert game.settled
    record = game.record
    assert record["version"] == 3
    assert record["result"]["reason"] == "normal"
    assert record == engine.to_record(game.state)
    assert play.finish(game) is False  # once per game, whatever path calls it again
    assert len(calls) == 2


@pytest.mark.django_db
def test_a_failing_hook_refuses_the_ending_move_and_nothing_is_half_written(register):
    game = _play_to_the_end(start_game(make_players(prefix="f")), stop_before_last=True)
    before = fresh(game)

    failing = [True]

    def broken(end):
        if failing[0]:
            Profile.objects.update(coins=0)  # a write the rollback must undo
            raise RuntimeError("a bug in a hook")

    register("on_game_end", broken)
    seat = before.state["turn"]
    import random

    action = engine.heuristic_policy(engine.view(before.state, seat), random.Random(before.seq))
    with pytest.raises(Refused) as refused:
        play.act(before.pk, seat_row(before, seat).user, before.seq, action)
    assert refused.value.reason == "game_end_failed"
    after = fresh(before)
    assert (after.status, after.seq, after.settled, after.record) == (
        Game.PLAYING, before.seq, False, None)
    assert not GameEvent.objects.filter(game=before, seq=before.seq + 1).exists()
    assert not RatingEntry.objects.filter(game=before).exists()
    assert set(Profile.objects.values_list("coins", flat=True)) == {2000}
    assert Table.objects.get(pk=before.table_id).status == Table.PLAYING
    # with the hook gone the same move ends the game
    failing[0] = False
    play.act(before.pk, seat_row(before, seat).user, before.seq, action)
    assert fresh(before).end_reason == "normal"


@pytest.mark.django_db
@pytest.mark.parametrize("reason", ["moderator_close", "moderator_kick", "suspension"])
def test_a_moderators_ending_changes_no_rating_and_stands_the_target_up(reason, register):
    ends = []
    register("on_game_end", ends.append)
    users = make_players(prefix=reason[:5])
    game = start_game(users)
    seat = None if reason == "moderator_close" else 1
    play.end_game(game.pk, reason, seat)
    game = fresh(game)
    assert game.end_reason == reason
    assert game.record["result"]["reason"] == reason
    assert game.state["result"]["rating_changes"] == [0, 0, 0, 0]
    assert [e.reason for e in ends] == [reason]
    assert not RatingEntry.objects.exists()
    assert Profile.objects.filter(rating_points=0).count() == 4
    event = GameEvent.objects.get(game=game, seq=game.seq)
    assert (event.by, event.seat) == ("moderator", seat)
    seated = set(Seat.objects.filter(table_id=game.table_id).exclude(user=None)
                 .values_list("user_id", flat=True))
    if seat is not None:
        assert users[seat].pk not in seated
    with pytest.raises(Refused) as again:
        play.end_game(game.pk, reason, seat)
    assert again.value.reason == "game_over"


@pytest.mark.django_db
def test_rated_wins_count_only_rated_games():
    users = make_players(prefix="w")
    game = _play_to_the_end(start_game(users))
    winners = [r.user_id for r in roster.seat_rows(game)
               if engine.team_of(r.index) == game.state["result"]["winner"]]
    assert set(Profile.objects.filter(rated_wins=1).values_list("user_id", flat=True)) == set(
        winners)


# --- turn-timeout hooks -------------------------------------------------------------------


@pytest.mark.django_db
def test_a_timeout_hook_extends_the_turn_instead_of_the_clock_action(register):
    game = start_game(make_players(prefix="t"))
    seat = game.state["turn"]
    asked = []

    def timer(g, s):
        asked.append(s)
        return timedelta(seconds=90) if len(asked) == 1 else None

    register("on_turn_timeout", timer)
    force_due(game)
    assert play.run_due(game.pk, game.seq) is True
    extended = fresh(game)
    assert extended.seq == game.seq
    assert asked == [seat]
    left = (extended.due_at - timezone.now()).total_seconds()
    assert 85 < left <= 90
    assert seat_row(extended, seat).timeouts == 0
    force_due(extended)
    assert play.run_due(game.pk, game.seq) is True  # the hook declines: the §8 action
    assert fresh(game).seq == game.seq + 1
    assert seat_row(game, seat).timeouts == 1


# --- seat policies, one seat per person ----------------------------------------------------


@pytest.mark.django_db
def test_a_seat_policy_refuses_a_seat_and_stands_up_before_a_start(register, settings):
    register_reasons({"test_refusal": "a test's seat policy"})
    users = make_players(prefix="p")
    banned = {users[3].pk}

    def policy(table, user, moment):
        if user is not None and user.pk in banned:
            raise Refused("test_refusal", f"no ({moment})")

    table = tables.create_table(users[0])
    for i in range(3):
        tables.sit(table.pk, users[i], i)
    register("check_seat", policy)
    with pytest.raises(Refused) as refused:
        tables.sit(table.pk, users[3], 3)
    assert refused.value.reason == "test_refusal"
    assert Seat.objects.get(table=table, index=3).user is None
    banned.clear()
    tables.sit(table.pk, users[3], 3)
    for u in users[:3]:
        tables.set_ready(table.pk, u)
    banned.add(users[3].pk)  # fell below before the start: stood up, the others stay ready
    assert tables.set_ready(table.pk, users[3]) is None
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert seats[3].user is None
    assert [s.ready for s in seats[:3]] == [True] * 3
    assert Table.objects.get(pk=table.pk).status == Table.WAITING


@pytest.mark.django_db
def test_one_seat_per_person_moves_from_a_waiting_table_and_refuses_from_a_running_one():
    users = make_players(prefix="s")
    a = tables.create_table(users[0], "A")
    b = tables.create_table(users[1], "B")
    tables.sit(a.pk, users[0], 0)
    tables.sit(b.pk, users[0], 2)  # A is waiting: the A seat empties
    assert list(Seat.objects.filter(user=users[0]).values_list("table_id", "index")) == [
        (b.pk, 2)]
    game = start_game(make_players(prefix="r"))
    runner = seat_row(game, 0).user
    with pytest.raises(Refused) as refused:
        tables.sit(a.pk, runner, 1)
    assert refused.value.reason == "seated_elsewhere"
    # the given name, in this language's half (games.names)
    assert display_name(Table.objects.get(pk=game.table_id).name) in str(refused.value)
    assert Seat.objects.filter(user=runner).count() == 1


@pytest.mark.django_db
def test_expired_presence_stands_a_player_up_from_a_waiting_seat(
        django_capture_on_commit_callbacks):
    user = make_players(1, prefix="gone")[0]
    table = tables.create_table(user)
    tables.sit(table.pk, user, 0)
    presence.touch_presence("chan-1", table.pk, user, at=time.time() - 3600)
    with django_capture_on_commit_callbacks(execute=True):
        presence.expire_presence()
    assert not Seat.objects.filter(user=user).exists()


@pytest.mark.django_db
def test_table_names_are_checked_not_cut(owner):
    for bad in (" " * 3 + "x" * 41, "a\x07b"):
        with pytest.raises(Refused) as refused:
            tables.create_table(owner, bad)
        assert refused.value.reason == "bad_name"
    assert Table.objects.count() == 0
    assert tables.create_table(owner, "  桌  ").name == "桌"
    assert tables.create_table(owner, "").name.endswith(str(Table.objects.latest("pk").pk))


@pytest.mark.django_db
def test_closing_idle_tables_keeps_one_someone_sat_at(settings, owner, partner):
    settings.GAMES_IDLE_TABLE_MINUTES = 1
    idle = tables.create_table(owner, "idle")
    taken = tables.create_table(owner, "taken")
    Table.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    tables.sit(taken.pk, partner, 0)
    assert tables.close_idle_tables() == 1
    assert Table.objects.get(pk=idle.pk).closed
    assert not Table.objects.get(pk=taken.pk).closed


# --- contributions, chat policies ------------------------------------------------------------


@pytest.mark.django_db
def test_view_and_snapshot_keys(register):
    game = start_game(make_players(prefix="v"))
    register("view_keys",
             lambda game_id, state, seat, user_id: {"extra_seat": seat, "extra_user": user_id})
    register("snapshot_keys",
             lambda ts, lobby: {t.pk: {"theme": f"t{t.pk}", "secret": 1} for t in ts},
             lobby_keys=("theme",))
    view = seatview.view_for(game, 2)
    assert (view["extra_seat"], view["extra_user"]) == (2, seat_row(game, 2).user_id)
    assert seatview.view_for(game, None)["extra_user"] is None
    snap = snapshots.table_snapshot(game.table_id)
    assert snap["theme"] == f"t{game.table_id}"
    assert snap["secret"] == 1
    [row] = [r for r in snapshots.lobby_rows() if r["id"] == game.table_id]
    assert row["theme"] == f"t{game.table_id}"
    assert "secret" not in row
    assert snapshots.lobby_row(snap)["theme"] == snap["theme"]
    assert "secret" not in (
        snapshots.lobby_row(snap))


@pytest.mark.django_db
def test_chat_policies_refuse_or_filter_and_the_raw_line_is_stored(
        register, owner, django_capture_on_commit_callbacks):
    register_reasons({"test_muted": "a test's mute"})
    table = tables.create_table(owner)
    sent = []
    register("filter_chat", lambda t, u, text: text.replace("坏", "*"))

    def listener(event):
        sent.append(event.line["text"])

    events.subscribe(events.ChatPosted, listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            chat.chat(table.pk, owner, "坏人")
        assert sent == ["*人"]  # sent filtered, after commit

        def mute(t, u, text):
            raise Refused("test_muted", "muted")

        register("filter_chat", mute, first=True)
        with pytest.raises(Refused):
            chat.chat(table.pk, owner, "hello")
    finally:
        events.unsubscribe(events.ChatPosted, listener)
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["坏人"]


# --- through the socket: registered messages, notices to every connection ----------------


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    name = django_settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


async def _open(path: str, user) -> WebsocketCommunicator:
    cookie = await database_sync_to_async(_cookie)(user)
    comm = WebsocketCommunicator(application, path, headers=[ORIGIN, (b"cookie", cookie)])
    connected, _ = await comm.connect(timeout=5)
    assert connected
    return comm


async def _drain(comm, seconds=0.3) -> list[dict]:
    frames = []
    while not await comm.receive_nothing(seconds):
        frames.append(await comm.receive_json_from())
    return frames


async def _until(comm, pred, limit=50):
    for _ in range(limit):
        msg = await comm.receive_json_from(timeout=5)
        if pred(msg):
            return msg
    raise AssertionError("no such frame")


@pytest.mark.django_db(transaction=True)
async def test_a_plugins_socket_message_and_a_notice_on_every_connection(owner, partner, plug):
    register_reasons({"test_code": "a test's notice"})
    one = await database_sync_to_async(tables.create_table)(owner, "one")
    two = await database_sync_to_async(tables.create_table)(partner, "two")

    def poke(ctx, msg):
        if not isinstance(msg.get("n"), int):
            raise Refused("bad_message", "n must be an integer")
        events.notify(ctx.user.pk, "test_code", "poked", {"n": msg["n"]})
        return {"type": "poked", "n": msg["n"]}

    plug(make_plugin(socket_messages=lambda: {"test_poke": plugins.SocketMessage(poke)}))
    a = await _open(f"/ws/table/{one.pk}/", owner)
    b = await _open(f"/ws/table/{two.pk}/", owner)  # the same person at another table
    other = await _open(f"/ws/table/{one.pk}/", partner)
    try:
        await a.send_json_to({"type": "test_poke", "n": "x", "ref": "r1"})
        error = await _until(a, lambda m: m["type"] == "error")
        assert (error["reason"], error["ref"]) == ("bad_message", "r1")
        await a.send_json_to({"type": "test_poke", "n": 7})
        assert (await _until(a, lambda m: m["type"] == "poked"))["n"] == 7
        for comm in (a, b):
            notice = await _until(comm, lambda m: m["type"] == "notice")
            assert notice == {"type": "notice", "code": "test_code", "message": "poked",
                              "params": {"n": 7}}
        assert not [m for m in await _drain(other) if m["type"] == "notice"]
    finally:
        for comm in (a, b, other):
            await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_ready_and_auto_play_take_json_booleans_only(owner):
    table = await database_sync_to_async(tables.create_table)(owner, "bools")
    await database_sync_to_async(tables.sit)(table.pk, owner, 0)
    comm = await _open(f"/ws/table/{table.pk}/", owner)
    try:
        for bad in ("false", 0, None, [], "true"):
            await comm.send_json_to({"type": "ready", "ready": bad})
            assert (await _until(comm, lambda m: m["type"] == "error"))["reason"] == "bad_message"
        seat = await database_sync_to_async(Seat.objects.get)(table=table, index=0)
        assert seat.ready is False
        await comm.send_json_to({"type": "ready"})  # missing: true
        snap = await _until(comm, lambda m: m["type"] == "table"
                            and m["table"]["seats"][0]["ready"])
        assert snap["table"]["seats"][0]["ready"] is True
        await comm.send_json_to({"type": "ready", "ready": False})
        await _until(comm, lambda m: m["type"] == "table" and not m["table"]["seats"][0]["ready"])
        await comm.send_json_to({"type": "auto_play", "on": "false"})
        assert (await _until(comm, lambda m: m["type"] == "error"))["reason"] == "bad_message"
        await comm.send_json_to({"type": "add_bot", "seat": 1, "bot": "grandmaster"})
        assert (await _until(comm, lambda m: m["type"] == "error"))["reason"] == "bad_bot"
        await comm.send_json_to({"type": "add_bot", "seat": 1, "bot": "expert"})
        snap = await _until(comm, lambda m: m["type"] == "table" and m["table"]["seats"][1]["bot"])
        assert snap["table"]["seats"][1]["bot_policy"] == "expert"
    finally:
        await comm.disconnect()


# --- what depends on GAME_PLUGINS's order --------------------------------------------------


@pytest.mark.django_db
def test_at_a_games_end_rating_then_wagers_and_holds_then_drops(monkeypatch, settings):
    """The wager reads the rating changes accounts settled and draws on the
    holds; the holds are released after it; drops come last."""
    from accounts import plugin as accounts_plugin
    from moderation import fairplay
    from shop import holds, ingame, wagers
    from tests.test_wagers import finish_with, finished_state, start, wager_table

    calls: list[str] = []

    def spy(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    for module, name in ((accounts_plugin, "settle_rating"), (wagers, "settle"),
                         (holds, "release"), (ingame, "drops"), (fairplay, "keep_addresses")):
        spy(module, name)
    four = make_players(4, "order")
    game = start(wager_table(four, 10), four)
    finish_with(game, finished_state("0"))
    ordered = [c for c in calls if c != "keep_addresses"]
    assert ordered == ["settle_rating", "settle", "release", "drops"]
    assert calls.count("keep_addresses") == 1  # fair play's, in any place


@pytest.mark.django_db
def test_at_a_seat_a_suspension_is_refused_before_anything_else_is_asked(owner, outsider):
    """The owner blocks the player and the table has a wager they cannot afford,
    but a suspended account hears only that it is suspended."""
    from moderation.models import Sanction
    from shop import wagers
    from social import blocks
    from tests.test_wagers import set_coins

    table = tables.create_table(owner, "顺序")
    wagers.set_wager(table.pk, owner, 10)
    blocks.block(owner, outsider)
    set_coins(outsider, 0)
    Sanction.objects.create(user=outsider, kind=Sanction.SUSPENSION, reason="test")
    with pytest.raises(Refused) as refused:
        tables.sit(table.pk, outsider, 1)
    assert refused.value.reason == "suspended"
    Sanction.objects.all().delete()
    with pytest.raises(Refused) as refused:  # then the owner's block, before the coins
        tables.sit(table.pk, outsider, 1)
    assert refused.value.reason == "blocked"
    blocks.unblock(owner, outsider)
    with pytest.raises(Refused) as refused:
        tables.sit(table.pk, outsider, 1)
    assert refused.value.reason == "not_enough_coins"


def test_game_plugins_is_the_one_list_and_each_entry_is_a_plugin():
    names = [type(p).__module__ for p in plugins.plugins()]
    assert names == [path.rsplit(".", 1)[0] for path in django_settings.GAME_PLUGINS]
    assert names[0] == "moderation.plugin"
    assert names.index("accounts.plugin") < names.index("shop.plugin")
    assert names.index("social.plugin") < names.index("shop.plugin")


def test_an_unknown_event_fails_and_a_payload_is_declared():
    with pytest.raises(TypeError):
        events.publish({"type": "table_changed"})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        events.TableChanged(table=1)  # type: ignore[call-arg]


def test_two_owners_of_one_socket_message_type_are_refused(plug):
    plug(make_plugin(socket_messages=lambda: {"sit": plugins.SocketMessage(lambda c, m: None)}))
    with pytest.raises(ValueError, match="two owners"):
        plugins.socket_message("sit")
