"""每日挑战: the daily duplicate challenge (RULES.md §12 "Daily challenge";
contests.challenge*)."""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.models import Notification, Profile
from contests import challenge, challenge_close, challenge_play
from contests.challenge_scores import matchpoints, standings
from contests.models import Achievement, ChallengeBoard, ChallengeDay, ChallengeEntry, TaskProgress
from games import engine, events, tables
from games.engine.bots import heuristic_policy
from shop.models import CoinEntry
from tests.helpers import listening, make_players, refused, start_game

pytestmark = pytest.mark.django_db(transaction=False)

ZONE = challenge.zone()
NOON = datetime(2026, 3, 10, 12, 0, tzinfo=ZONE)


def play_board(board: ChallengeBoard, user, now: datetime, seed: int = 0) -> ChallengeBoard:
    """Play the user's board to its end with the normal bot's choices in seat 2."""
    while board.status != ChallengeBoard.DONE:
        state = board.state
        action = heuristic_policy(engine.view(state, 2), random.Random(seed))
        board = challenge_play.act(board.pk, user, state["seq"], action, now=now)
    return board


def after_hands(board):
    """The four hands as dealt, as a closed board's frame shows them."""
    deal = engine.deal_half(board.state["seed"], 1)
    return [engine.sort_hand(h, deal.dao) for h in deal.hands]


def make_ranked(users, games: int = 10) -> None:
    Profile.objects.filter(user__in=users).update(rated_games=games, counted_games=games)


# --- 1. the day ------------------------------------------------------------------


def test_a_day_is_made_once_with_its_commitment_and_bot():
    day = challenge.get_day(date(2026, 3, 10))
    again = challenge.get_day(date(2026, 3, 10))
    assert again.pk == day.pk
    assert again.server_seed == day.server_seed
    assert len(day.server_seed) == 64
    assert day.commitment == hashlib.sha256(day.server_seed.encode()).hexdigest()
    assert day.bot_policy == "master"
    assert len(day.bot_version) == 16
    assert ChallengeDay.objects.count() == 1
    # Asia/Shanghai: 23:30 UTC on the 9th is already the 10th there
    assert challenge.local_date(datetime(2026, 3, 9, 23, 30, tzinfo=UTC)) == date(2026, 3, 10)
    assert challenge.today(NOON).pk == day.pk


def test_a_lost_race_to_make_the_day_reads_the_winners_row(monkeypatch):
    winner = challenge.get_day(date(2026, 3, 10))
    calls = []
    real = ChallengeDay.objects.filter

    def first_miss(*args, **kwargs):  # the first look finds nothing: a racing maker
        calls.append(1)
        return real(pk=-1) if len(calls) == 1 else real(*args, **kwargs)

    monkeypatch.setattr(ChallengeDay.objects, "filter", first_miss)
    assert challenge.get_day(date(2026, 3, 10)).pk == winner.pk


def test_each_board_is_the_engines_first_half_from_its_seed():
    day = challenge.get_day(date(2026, 3, 10))
    for number in (1, 8):
        seed = hashlib.sha256(f"{day.server_seed}:2026-03-10:{number}".encode()).hexdigest()
        deal = engine.deal_half(seed, 1)
        state = challenge.new_board_state(day, number)
        assert state["seed"] == seed
        assert sorted(state["hands"][2]) == sorted(deal.hands[2])
        assert state["dao"] == deal.dao
        assert state["indicator"] == deal.indicator
        assert state["first_dealt"] == deal.first_dealt
        assert state["bots"] == ["master", "master", None, "master"]
    with pytest.raises(ValueError, match="no board"):
        challenge.new_board_state(day, 9)


# --- 2. playing ------------------------------------------------------------------


def test_two_accounts_get_the_same_deal_and_the_same_bot_plays():
    a, b = make_players(2, "dup")
    board_a = challenge_play.start(a, now=NOON)
    board_b = challenge_play.start(b, now=NOON)
    assert board_a.number == board_b.number == 1
    assert board_a.state["dao"] == board_b.state["dao"]
    assert board_a.state["hands"][2] == board_b.state["hands"][2]
    assert board_a.state["actions"] == board_b.state["actions"]  # the bots before South
    done_a = play_board(board_a, a, NOON)
    done_b = play_board(board_b, b, NOON)
    # the same plays by South: the same bot plays, the same score
    assert done_a.state["halves"][0]["actions"] == done_b.state["halves"][0]["actions"]
    assert done_a.raw == done_b.raw is not None
    assert len(done_a.state["halves"][0]["actions"]) > 10


def test_boards_go_in_order_once_each():
    (user,) = make_players(1, "order")
    first = challenge_play.start(user, now=NOON)
    assert challenge_play.start(user, now=NOON).pk == first.pk  # continue, not a new one
    play_board(first, user, NOON)
    second = challenge_play.start(user, now=NOON)
    assert second.number == 2
    for _ in range(7):
        play_board(challenge_play.start(user, now=NOON), user, NOON)
    assert ChallengeBoard.objects.filter(user=user, status="done").count() == 8
    refused("challenge_done", challenge_play.start, user, NOON)
    # no "next board" on a finished board's page once all eight are dealt
    client = Client()
    client.force_login(user)
    strings = json.loads(re.search(r'id="ch-strings"[^>]*>(.*?)</script>', client.get(
        f"/challenge/{second.day.date.isoformat()}/3/").content.decode()).group(1))
    assert strings["more"] == "0"


def test_a_finished_board_offers_the_next_while_boards_remain():
    (user,) = make_players(1, "more")
    board = play_board(challenge_play.start(user, now=NOON), user, NOON)
    client = Client()
    client.force_login(user)
    page = client.get(f"/challenge/{board.day.date.isoformat()}/1/").content.decode()
    strings = json.loads(re.search(r'id="ch-strings"[^>]*>(.*?)</script>', page).group(1))
    assert strings["more"] == "1"


def test_a_stale_or_illegal_move_changes_nothing():
    (user,) = make_players(1, "stale")
    board = challenge_play.start(user, now=NOON)
    seq = board.state["seq"]
    refused("stale", challenge_play.act, board.pk, user, seq + 5, {"type": "pass"}, NOON)
    refused("bad_action", challenge_play.act, board.pk, user, seq, {"type": "escape"}, NOON)
    other = next(c for c in engine.SHOE if c not in board.state["hands"][2])
    refused("not_in_hand", challenge_play.act, board.pk, user, seq,
            {"type": "play", "cards": [other]}, NOON)
    (stranger,) = make_players(1, "stranger")
    refused("no_board", challenge_play.act, board.pk, stranger, seq, {"type": "pass"}, NOON)
    assert ChallengeBoard.objects.get(pk=board.pk).state["seq"] == seq


def test_the_clock_runs_only_while_connected_and_resumes_after_a_reload():
    (user,) = make_players(1, "clock")
    board = challenge_play.start(user, now=NOON)
    assert engine.to_act(board.state) == 2
    t = NOON
    board = challenge_play.sync(board.pk, user, t + timedelta(seconds=5))
    assert board.clock_ms == 5000
    # away for a minute (page closed, server restarted): no time counted
    board = challenge_play.sync(board.pk, user, t + timedelta(seconds=65))
    assert board.clock_ms == 5000
    assert board.status == "playing"
    # back (a reload): it counts again from where it was
    board = challenge_play.sync(board.pk, user, t + timedelta(seconds=67))
    assert board.clock_ms == 7000
    seq = board.state["seq"]
    # connected past the turn's 30 s: a timeout acts for them (§8)
    for s in range(72, 100, 5):
        board = challenge_play.sync(board.pk, user, t + timedelta(seconds=s))
    assert board.timeouts == 1
    assert board.state["seq"] > seq
    assert board.state["halves"][0]["actions"][0] if board.state["halves"] else True


def test_leaving_stops_the_clock_and_frees_the_player_at_once(client):
    """暂时离开 (and the page closing): the time so far counts, then nothing
    until the next sign of life, and a table's seat is not refused meanwhile."""
    (user,) = make_players(1, "leaver")
    board = challenge_play.start(user, now=timezone.now())
    t = board.seen_at
    table = tables.create_table(user)
    refused("seated_elsewhere", tables.sit, table.pk, user, 0)  # the board holds them
    board = challenge_play.leave(board.pk, user, t + timedelta(seconds=4))
    assert (board.clock_ms, board.seen_at, board.status) == (4000, None, "playing")
    tables.sit(table.pk, user, 0)  # at once, not after the 10 s gap
    tables.stand(table.pk, user)
    # back 8 s later (inside the gap): the time away does not count
    board = challenge_play.sync(board.pk, user, t + timedelta(seconds=12))
    assert board.clock_ms == 4000
    board = challenge_play.sync(board.pk, user, t + timedelta(seconds=14))
    assert board.clock_ms == 6000
    # over HTTP, as the button and the page's closing send it; not another's board
    client.force_login(user)
    r = client.post(f"/api/challenge/board/{board.pk}/leave")
    assert r.status_code == 200
    assert r.json()["board"]["status"] == "playing"
    assert ChallengeBoard.objects.get(pk=board.pk).seen_at is None
    (other,) = make_players(1, "intruder")
    client.force_login(other)
    assert client.post(f"/api/challenge/board/{board.pk}/leave").json()["reason"] == "no_board"
    assert ChallengeBoard.objects.get(pk=board.pk).clock_ms == board.clock_ms


def test_two_timeouts_in_a_row_pause_the_board_until_resumed():
    (user,) = make_players(1, "pause")
    board = challenge_play.start(user, now=NOON)
    t = NOON
    for s in range(5, 200, 5):
        board = challenge_play.sync(board.pk, user, t + timedelta(seconds=s))
        if board.status != "playing":
            break
    assert board.status == "paused"
    assert board.timeouts == 2
    seq = board.state["seq"]
    board = challenge_play.sync(board.pk, user, t + timedelta(seconds=s + 40))
    assert board.state["seq"] == seq  # paused: no clock
    board = challenge_play.resume(board.pk, user, t + timedelta(seconds=s + 41))
    assert board.status == "playing"
    assert board.timeouts == 0
    assert board.clock_ms == 0


def test_one_seat_per_person():
    users = make_players(4, "seat")
    game = start_game(users)
    why = refused("seated_elsewhere", challenge_play.start, users[0], NOON)
    assert why.params == {"table_id": game.table_id}
    # over HTTP: the page's script gets the table to link back to, the form
    # without JavaScript a message with the link
    client = Client()
    client.force_login(users[0])
    r = client.post("/api/challenge/today/start", HTTP_ACCEPT="application/json")
    assert r.status_code == 400
    assert r.json()["params"] == {"table_id": game.table_id}
    page = client.post("/api/challenge/today/start", follow=True).content.decode()
    assert f'<a href="/tables/{game.table_id}/">' in page
    assert not ChallengeBoard.objects.exists()
    # the page says so beside a disabled 开始, with the way back
    page = client.get("/challenge/").content.decode()
    assert 'id="ch-start" disabled' in page
    assert f'<a href="/tables/{game.table_id}/">' in page.split('id="ch-busy"')[1]
    (player,) = make_players(1, "boarder")
    challenge_play.start(player)  # now: its sign of life is fresh
    table = tables.create_table(users[0] if False else player)
    refused("seated_elsewhere", tables.sit, table.pk, player, 0)
    assert game.pk


def test_starting_a_board_leaves_a_waiting_seat_but_a_refusal_does_not(
        table, django_capture_on_commit_callbacks):
    (user,) = make_players(1, "waiting")
    tables.sit(table.pk, user, 1)
    with listening(events.Notice) as told, django_capture_on_commit_callbacks(execute=True):
        board = challenge_play.start(user, now=NOON)
    assert not table.seats.filter(user=user).exists()
    # the table's page says why the seat is free (not "your connection was lost")
    assert [(n.user_id, n.notice["code"], n.notice["params"]) for n in told] == [
        (user.pk, "challenge_left_seat", {"table_id": table.pk, "table": table.name})]
    # a paused board holds no seat: they sit down; a refused move leaves them there
    ChallengeBoard.objects.filter(pk=board.pk).update(status="paused", seen_at=None)
    tables.sit(table.pk, user, 1)
    refused("stale", challenge_play.act, board.pk, user, -1, {"type": "pass"}, NOON)
    assert table.seats.filter(user=user).exists()
    assert ChallengeBoard.objects.get(pk=board.pk).status == "paused"
    challenge_play.resume(board.pk, user, NOON)  # back to the board: the seat is left
    assert not table.seats.filter(user=user).exists()


# --- 3. scoring ------------------------------------------------------------------


def test_matchpoints_by_hand():
    assert matchpoints(120, []) == 50.0  # n = 1
    assert matchpoints(120, [100, 100, 200]) == pytest.approx(100 * 4 / 6)
    assert matchpoints(100, [100, 100]) == 50.0  # all tied
    assert matchpoints(300, [0, 0, 0]) == 100.0
    assert matchpoints(-100, [0]) == 0.0


def _done_board(day, user, number, raw, ranked=True):
    entry, _ = ChallengeEntry.objects.get_or_create(day=day, user=user, defaults={"ranked": ranked})
    # a finished board's row with its raw score (the state: its seed only)
    state = {"seed": challenge.board_seed(day.server_seed, day.date, number), "halves": []}
    return ChallengeBoard.objects.create(entry=entry, day=day, user=user, number=number,
                                         state=state, status="done", raw=raw)


def test_standings_rank_the_ranked_and_show_the_unranked_where_they_would_stand():
    day = challenge.get_day(date(2026, 3, 10))
    a, b, c, newbie = make_players(4, "mp")
    for n in range(1, 9):
        _done_board(day, a, n, 200)
        _done_board(day, b, n, 150 if n <= 4 else 200)  # ties with a on 5–8
        _done_board(day, c, n, 100)
        _done_board(day, newbie, n, 250, ranked=False)
    table = {s.username: s for s in standings(day)}
    # board 1: a beat b and c -> 100; b beat c -> 50; c -> 0; board 5: a, b tie -> 75
    assert table["mp0"].points[1] == 100.0
    assert table["mp1"].points[1] == 50.0
    assert table["mp0"].points[5] == 75.0
    assert table["mp1"].points[5] == 75.0
    assert table["mp0"].result == pytest.approx(87.5)
    assert table["mp0"].place == 1
    assert table["mp1"].place == 2
    assert table["mp2"].place == 3
    # the unranked player is scored against the ranked field but is in nobody's
    assert table["mp3"].points[1] == 100.0
    assert table["mp3"].place == 1
    assert not table["mp3"].ranked
    # one ranked player alone on a board: 50 %
    _done_board(challenge.get_day(date(2026, 3, 11)), a, 1, 10)
    assert standings(ChallengeDay.objects.get(date=date(2026, 3, 11)))[0].points[1] == 50.0


def test_after_a_board_the_player_sees_its_provisional_matchpoints_and_the_field():
    (user, other) = make_players(2, "after")
    make_ranked([other])
    board = play_board(challenge_play.start(user, now=NOON), user, NOON)
    _done_board(board.day, other, 1, board.raw - 5)
    client = Client()
    client.force_login(user)
    frame = client.get(f"/api/challenge/board/{board.pk}").json()["board"]
    assert frame["field"] == [board.raw - 5]
    assert frame["matchpoints"] == 100.0
    assert frame["raw"] == board.raw


def test_a_raw_score_with_a_double_clamp_says_how_it_is_made():
    """A tester read "Your score (North–South): -65" and nothing more: 35
    card points less 100 for the double clamp suffered (RULES.md §12)."""
    from django.utils import translation

    from contests.challenge_show import raw_why

    with translation.override("en"):
        assert raw_why(35, -65) == "35 card points − 100 for the double clamp suffered"
        assert raw_why(300, 400) == "300 card points + 100 for the double clamp inflicted"
        assert raw_why(120, 120) is None
    with translation.override("zh-hans"):
        assert raw_why(35, -65) == "得分 35，被双夹 −100"


def test_board_moves_share_the_tables_action_rate_limit(settings):
    """A tester sent 772 moves in 32 s over HTTP, all processed: moves and
    resumes now count against ``GAMES_ACTION_RATE`` as a table's actions do."""
    import time

    from django.core.cache import cache

    settings.GAMES_ACTION_RATE = (3, 60)
    (user,) = make_players(1, "spam")
    # the counter lives in the cache (Redis in CI, shared across runs and ids)
    cache.delete(f"rl:act:{user.pk}:{int(time.time() // 60)}")
    board = challenge_play.start(user)
    client = Client()
    client.force_login(user)
    act = f"/api/challenge/board/{board.pk}/act"
    answers = [client.post(act, {"seq": -1, "action": "pass"}, content_type="application/json")
               for _ in range(4)]
    assert all(a.status_code == 400 for a in answers[:3])  # refused, but counted
    assert answers[3].status_code == 429
    assert answers[3].json()["reason"] == "rate_limited"
    board.refresh_from_db()
    assert board.state["seq"] == challenge_play.start(user).state["seq"]  # nothing moved
    # a sign of life is not an action
    assert client.post(f"/api/challenge/board/{board.pk}/sync").json()["ok"]


# --- 4. the close ----------------------------------------------------------------


def test_the_close_pays_the_top_ten_percent_once_and_reveals_the_seed():
    day = challenge.get_day(date(2026, 3, 10))
    players = make_players(21, "field")
    make_ranked(players)
    raws = {p.pk: 10 * i for i, p in enumerate(players)}
    raws[players[18].pk] = raws[players[19].pk]  # a tie at the boundary (places 2 and 2)
    for p in players:
        for n in range(1, 9):
            _done_board(day, p, n, raws[p.pk])
    (late,) = make_players(1, "late")
    unfinished = challenge_play.start(late, now=NOON)
    assert unfinished.status != "done"
    before = {p.pk: Profile.objects.get(user=p).coins for p in players}
    after_close = challenge.close_time(day.date) + timedelta(minutes=1)
    assert challenge_close.close_due(after_close - timedelta(minutes=2)) == 0
    assert challenge_close.close_due(after_close) == 1
    day.refresh_from_db()
    assert day.closed
    paid = {e.user_id: e.prize for e in ChallengeEntry.objects.filter(day=day, prize__gt=0)}
    # 21 ranked -> ⌈2.1⌉ = 3 places; places 1, 2, 2 (tie), and place 4 unpaid
    assert paid == {players[20].pk: 500, players[19].pk: 300, players[18].pk: 300}
    for user_id, prize in paid.items():
        rewards = sum(Achievement.objects.filter(user_id=user_id, paid=True)
                      .values_list("reward", flat=True))  # challenge_top10's coins
        assert Profile.objects.get(user_id=user_id).coins == before[user_id] + prize + rewards
        assert CoinEntry.objects.filter(user_id=user_id, reason="challenge", amount=prize).exists()
        assert Notification.objects.filter(user_id=user_id, kind="challenge_prize").exists()
    # 成就: a paid place is a day in the top 10 %
    assert set(Achievement.objects.filter(code="challenge_top10")
               .values_list("user_id", flat=True)) == set(paid)
    # the late board was played out by the bot and scored
    unfinished.refresh_from_db()
    assert unfinished.status == "done"
    assert unfinished.by_bot
    assert unfinished.raw is not None
    assert ChallengeBoard.objects.filter(day=day, matchpoints__isnull=True).count() == 0
    # idempotent: a second close pays nothing
    assert challenge_close.close_day(day.pk, after_close) is False
    assert CoinEntry.objects.filter(reason="challenge").count() == 3
    out = StringIO()
    call_command("check_ledger", stdout=out)
    # the seed hashes to the commitment, and the check script re-derives the boards
    assert hashlib.sha256(day.server_seed.encode()).hexdigest() == day.commitment
    out = StringIO()
    call_command("check_challenge", "2026-03-10", stdout=out)
    assert "commitment ok" in out.getvalue()
    assert "board 1" in out.getvalue()
    assert "mismatch" not in out.getvalue()


def test_a_small_day_pays_nobody():
    day = challenge.get_day(date(2026, 3, 10))
    players = make_players(19, "small")
    make_ranked(players)
    for i, p in enumerate(players):
        for n in range(1, 9):
            _done_board(day, p, n, i)
    assert challenge_close.close_day(day.pk)
    assert not CoinEntry.objects.filter(reason="challenge").exists()


def test_the_close_is_lazy_on_first_use_after_half_past_midnight(client):
    day = challenge.get_day(challenge.local_date() - timedelta(days=2))
    client.get("/api/challenge/today")
    day.refresh_from_db()
    assert day.closed


# --- 5. hidden until close -------------------------------------------------------


def test_nothing_hidden_leaves_the_server_before_the_close():
    (user,) = make_players(1, "hidden")
    client = Client()
    client.force_login(user)
    texts = []
    start = client.post("/api/challenge/today/start", HTTP_ACCEPT="application/json").json()
    board = ChallengeBoard.objects.get(pk=start["board"])
    texts.append(client.get(start["path"]).content.decode())
    while True:
        frame = client.post(f"/api/challenge/board/{board.pk}/sync").json()["board"]
        texts.append(json.dumps(frame))
        if frame["status"] == "done":
            break
        view = frame["view"]
        # 提示: only on the player's turn, and only cards of their own hand
        if view["turn"] == 2:
            # none only when nothing in the hand beats the table (a pass is left)
            assert frame["hints"] or view["trick"]["last"] is not None
            assert all(not Counter(h["cards"]) - Counter(view["hand"]) for h in frame["hints"])
        else:
            assert "hints" not in frame
        action = heuristic_policy(view, random.Random(0))
        r = client.post(f"/api/challenge/board/{board.pk}/act",
                        json.dumps({"seq": view["seq"], "action": action}),
                        content_type="application/json")
        texts.append(r.content.decode())
    texts.append(client.get(start["path"]).content.decode())
    texts.append(client.get("/challenge/").content.decode())
    texts.append(client.get(f"/api/challenge/{board.day.date.isoformat()}").content.decode())
    board.refresh_from_db()
    day = board.day
    deal = engine.deal_half(board.state["seed"], 1)
    others = [json.dumps(sorted(deal.hands[s])) for s in (0, 1, 3)]
    for text in texts:
        assert day.server_seed not in text
        assert board.state["seed"] not in text
        assert '"hands"' not in text
        assert '"left"' not in text
        assert '"record"' not in text
    final = json.loads(texts[-4])  # the last sync: the finished board
    assert final["status"] == "done"
    assert "hand" in final
    assert "hands" not in final
    assert sorted(final["hand"]) == sorted(deal.hands[2])
    assert all(json.dumps(sorted(final["hand"])) != o for o in others)
    # nobody else sees the board before the close
    (rival,) = make_players(1, "rival")
    other = Client()
    other.force_login(rival)
    assert other.get(f"/api/challenge/board/{board.pk}").status_code == 404
    assert other.get(f"{start['path']}?user=hidden0").status_code == 404
    best = play_board(challenge_play.start(rival), rival, timezone.now(), seed=7)
    # once closed, everything is shown, to anyone (a free replay), with the field's best
    challenge_close.close_day(day.pk)
    seen = other.get(f"/api/challenge/board/{board.pk}").json()["board"]
    assert seen["hands"] == after_hands(board)
    assert seen["player"] == "hidden0"
    assert seen["best"]["player"] == "rival0"
    assert seen["best"]["raw"] == best.raw
    assert other.get(seen["best"]["path"]).status_code == 200
    after = client.get(f"/api/challenge/board/{board.pk}").json()["board"]
    assert after["server_seed"] == day.server_seed
    assert len(after["hands"]) == 4
    assert after["record"]["challenge"] == {"date": day.date.isoformat(), "board": 1}
    # the record (§11, version 3) replays in the engine, and a changed card is caught
    states = engine.from_record(after["record"])
    assert states[-1]["halves"][0]["points"] == after["points"]
    forged = json.loads(json.dumps(after["record"]))
    ns, ew = forged["halves"][0]["points"]
    forged["halves"][0]["points"] = [ns + 5, ew - 5]
    with pytest.raises(engine.RecordError, match="does not match"):
        engine.from_record(forged)
    day_json = client.get(f"/api/challenge/{day.date.isoformat()}").json()
    assert day_json["server_seed"] == day.server_seed


# --- 6. pages and API ------------------------------------------------------------


def test_the_api_today_and_the_pages(client):
    (user,) = make_players(1, "api")
    anon = client.get("/api/challenge/today").json()
    day = challenge.today()
    assert anon == {"date": day.date.isoformat(), "commitment": day.commitment, "boards": 8,
                    "played": 0, "result": None}
    assert client.post("/api/challenge/today/start").status_code == 401
    client.force_login(user)
    assert client.get("/challenge/").status_code == 200
    # never from a cache: Back from a board must not show 开始 again (a tester's)
    assert "no-store" in client.get("/challenge/")["Cache-Control"]
    with_zh = client.get("/challenge/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert day.commitment in with_zh
    assert re.search(r"结算时间 \d{4}-\d\d-\d\d \d\d:\d\d。", with_zh)  # a Chinese full stop
    r = client.post("/api/challenge/today/start")  # the page's form without JavaScript
    assert r.status_code == 302
    assert r["Location"] == f"/challenge/{day.date.isoformat()}/1/"
    assert client.get(r["Location"]).status_code == 200
    assert client.get(f"/challenge/{day.date.isoformat()}/").status_code == 200
    assert client.get("/challenge/2001-01-01/").status_code == 404
    lobby = client.get("/")
    assert b'href="/challenge/"' in lobby.content


def test_the_days_table_pages_with_constant_queries(client, django_assert_max_num_queries):
    day = challenge.today()
    players = make_players(60, "many")
    make_ranked(players)
    for i, p in enumerate(players):
        _done_board(day, p, 1, i)
    with django_assert_max_num_queries(8):
        data = client.get(f"/api/challenge/{day.date.isoformat()}?page=2").json()
    assert data["pages"] == 2
    assert len(data["rows"]) == 10


# --- 8. fair play ----------------------------------------------------------------


def test_the_fair_play_page_shows_one_address_and_a_result_far_above_usual(mod):
    twin_a, twin_b, alone = make_players(3, "twin")
    for user, address in ((twin_a, "10.0.0.7"), (twin_b, "10.0.0.7"), (alone, "10.0.0.8")):
        c = Client(REMOTE_ADDR=address)
        c.force_login(user)
        assert c.post("/api/challenge/today/start", HTTP_ACCEPT="application/json").json()["ok"]
    assert "10.0.0.7" not in str(list(ChallengeBoard.objects.values_list("address_hash")))
    # a usual of 40 % over four closed days, then 90 %
    (lucky,) = make_players(1, "lucky")
    today = challenge.local_date()
    for back, result in ((5, 40.0), (4, 42.0), (3, 38.0), (2, 40.0), (1, 90.0)):
        day = challenge.get_day(today - timedelta(days=back))
        ChallengeDay.objects.filter(pk=day.pk).update(closed_at=timezone.now())
        ChallengeEntry.objects.create(day=day, user=lucky, ranked=True, result=result)
    client = Client()
    client.force_login(mod)
    page = client.get("/mod/flags/").content.decode()
    panel = page.split('id="challenge-fairplay"', 1)[1]
    assert "twin0" in panel
    assert "twin1" in panel
    assert "twin2" not in panel
    assert "lucky0" in panel
    assert "90.0" in panel


def test_the_periodic_job_opens_today_and_closes_the_days_due():
    from contests import challenge_tasks
    from yuanzi_site.jobs import PERIODIC_JOBS

    assert ("challenge-tick", "contests.challenge_tasks.tick", 60.0) in PERIODIC_JOBS
    old = challenge.get_day(challenge.local_date() - timedelta(days=3))
    assert not ChallengeDay.objects.filter(date=challenge.local_date()).exists()
    challenge_tasks.tick()  # what the embedded ticker runs (beat sends the same task)
    assert ChallengeDay.objects.filter(date=challenge.local_date(), closed_at=None).exists()
    old.refresh_from_db()
    assert old.closed


def test_the_pages_in_english(client):
    (user,) = make_players(1, "english")
    client.force_login(user)
    page = client.get("/challenge/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Daily challenge" in page
    assert "Start" in page
    zh = client.get("/challenge/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "每日挑战" in zh
    assert "开始" in zh
    # a finished board's score says what it is: points, and how they are counted
    _done_board(challenge.today(), user, 1, -100)
    page = client.get("/challenge/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<span class="ch-raw">-100 points</span>' in page
    assert "−100 for one you suffer" in page
    zh = client.get("/challenge/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<span class="ch-raw">-100 分</span>' in zh
    assert "被双夹减 100" in zh


def test_no_move_after_the_close():
    (user,) = make_players(1, "latecomer")
    board = challenge_play.start(user)
    seq = board.state["seq"]
    assert challenge_close.close_day(board.day_id)
    refused("challenge_closed", challenge_play.act, board.pk, user, seq, {"type": "pass"})
    refused("challenge_closed", challenge_play.resume, board.pk, user)
    board.refresh_from_db()
    assert board.status == "done"
    assert board.by_bot


def test_finishing_a_board_counts_on_todays_challenge_task(settings):
    """每日任务 "play today's challenge" moves when the player finishes a board
    (RULES.md §12: the challenge counts though it is unrated)."""
    from contests import quests

    settings.CONTESTS_TASK_POOL = [(code, "challenge", 1, 100)
                                   for code in ("challenge", "challenge_b", "challenge_c")]
    (user,) = make_players(1, "quest")
    today = quests.today(NOON)
    assert any(t.fact == "challenge" for t in quests.assigned(user.pk, today))
    board = play_board(challenge_play.start(user, now=NOON), user, NOON)
    assert board.status == ChallengeBoard.DONE
    row = TaskProgress.objects.get(user=user, day=today, code="challenge")
    assert row.progress == 1


def follow_a_dao_pair(board: ChallengeBoard) -> list[str]:
    """Rewrite the board so East has led a pair of the dao rank and South, to
    follow, holds three plain low cards and singles of other ranks: nothing
    beats the pair (a triple cannot, RULES.md §3; only an atom or a hydrogen
    bomb beats the dao's pair); returns those three
    (tests/test_browser_challenge.py uses it too)."""
    state = board.state
    dao = state["dao"]
    low = "4" if dao == "3" else "3"
    pair, triple = [dao + "S", dao + "H"], [low + "S", low + "H", low + "C"]
    singles = {c[0]: c for c in state["hands"][2]
               if c[0] not in (dao, low) and c not in ("RJ", "BJ")}
    state["hands"][2] = triple + list(singles.values())[:10]
    state["turn"] = 2
    state["trick"] = {"leader": 1, "plays": [[1, pair]], "last": [1, pair], "passes": 0,
                      "points": 0}
    board.state = state
    board.save()
    return triple


def test_a_play_that_does_not_beat_is_refused_with_its_message(client):
    """A well-formed play the rules refuse (a triple on a pair, RULES.md §3)
    answers 400 with its reason and the sentence the board page shows (a
    tester saw none); nothing changed."""
    (user,) = make_players(1, "triple")
    board = challenge_play.start(user)
    triple = follow_a_dao_pair(board)
    seq = board.state["seq"]
    client.force_login(user)
    r = client.post(f"/api/challenge/board/{board.pk}/act",
                    {"seq": seq, "action": {"type": "play", "cards": triple}},
                    content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    said = r.json()
    assert (said["ok"], said["reason"]) == (False, "does_not_beat")
    assert said["message"].startswith("规则 §3：对子只能被更大的对子"), said  # names the rule
    # `why` asks the same without moving (nor counting the clock)
    seen_at = ChallengeBoard.objects.get(pk=board.pk).seen_at
    why = f"/api/challenge/board/{board.pk}/why"
    r = client.post(why, {"action": {"type": "play", "cards": triple}},
                    content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.json() == {"ok": True, "why": {"seq": seq, "legal": False, "reason": "does_not_beat",
                                            "message": said["message"]}}
    r = client.post(why, {"action": {"type": "play", "cards": triple[:1]}},
                    content_type="application/json", HTTP_ACCEPT_LANGUAGE="en")
    assert r.json()["why"]["message"].startswith("Rules §3: a pair beats only a pair"), r.json()
    assert client.post(why, {"action": "x"}, content_type="application/json"
                       ).json()["reason"] == "bad_action"
    board.refresh_from_db()
    assert board.state["seq"] == seq
    assert board.seen_at == seen_at
    assert board.state["hands"][2][:3] == triple
