"""战绩: a player's finished games (filters, paging, Beijing dates, coins only
for their owner), the rating graph with the level thresholds, the statistics
on a hand-built set of games, constant queries over 10,000 seat rows, and the
profile's rated counts (social/history.py, social/rating_graph.py,
social/history_views.py; docs/api.md "History")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Profile, RatingEntry
from games.models import Game, GameSeat, Table
from shop.models import GameWager
from social import history, rating_graph

T0 = datetime(2026, 3, 1, 16, 30, tzinfo=UTC)  # 2026-03-02 00:30 in Beijing


def _state(*, winner, seat_points, firsts, clamp=False, abandoned_by=None, reason="normal",
           changes=(0, 0, 0, 0)):
    """A finished game's state as the finisher leaves it (the keys history reads)."""
    halves = [{"half": i + 1, "points": list(p), "finish_order": [f]}
              for i, (p, f) in enumerate(zip(seat_points, firsts, strict=True))]
    totals = [sum(h["points"][t] for h in halves) for t in (0, 1)]
    return {"version": 2, "status": "over", "halves": halves,
            "result": {"winner": winner, "double_clamp": clamp, "abandoned_by": abandoned_by,
                       "reason": reason, "totals": totals, "stake": 1,
                       "rating_changes": list(changes)}}


def _game(table, people, *, at, practice=False, name="", **state):
    """A finished game at ``table`` with ``people`` in seats 0–3 (``None``: a bot)."""
    reason = state.get("reason", "normal")
    g = Game.objects.create(table=table, table_name=name or table.name, status=Game.OVER,
                            practice=practice, end_reason=reason, ended_at=at,
                            settled=True, state=_state(**state))
    GameSeat.objects.bulk_create([
        GameSeat(game=g, index=i, user=u, username=u.username if u else "",
                 bot="" if u else "normal") for i, u in enumerate(people)])
    return g


@pytest.fixture
def hand_built(players, table):
    """owner's seven games (N owner, E opponent, S partner, W rival unless said):

    1. win, double clamp after one half (300:0), owner 上游, +2, wager 10
    2. loss, two halves (100:200, 150:150), partner 上游 then owner, −1
    3. win (owner in seat 1, partner seat 3), 200:100 + 160:140, rival 上游 twice, +1
    4. owner escaped (seat 0) in the second half, 120:180 over the first, −20
    5. the opponent escaped, owner neither wins nor loses
    6. practice with bots: loss, double clamp suffered (0:300), owner 上游
    7. moderator_close: nothing
    """
    owner, opponent, partner, rival = players
    at = [T0 + timedelta(hours=i) for i in range(7)]
    g = [
        _game(table, players, at=at[0], winner=0, clamp=True, seat_points=[(300, 0)],
              firsts=[0], changes=(2, -2, 2, -2)),
        _game(table, players, at=at[1], winner=1, seat_points=[(100, 200), (150, 150)],
              firsts=[2, 0], changes=(-1, 1, -1, 1)),
        _game(table, [opponent, owner, rival, partner], at=at[2], winner=1,
              seat_points=[(100, 200), (140, 160)], firsts=[2, 2], changes=(-1, 1, -1, 1)),
        _game(table, players, at=at[3], winner=None, reason="escape", abandoned_by=0,
              seat_points=[(120, 180)], firsts=[3], changes=(-20, 0, 0, 0)),
        _game(table, players, at=at[4], winner=None, reason="escape", abandoned_by=1,
              seat_points=[], firsts=[], changes=(0, -20, 0, 0)),
        _game(table, [owner, None, None, None], at=at[5], practice=True, winner=1, clamp=True,
              seat_points=[(0, 300)], firsts=[0], name="练习桌"),
        _game(table, players, at=at[6], winner=None, reason="moderator_close",
              seat_points=[(150, 150)], firsts=[1]),
    ]
    GameWager.objects.create(game=g[0], wager=10, coin_changes=[20, -20, 20, -20])
    return g


def test_rows_newest_first_from_the_players_seat(hand_built, owner, client):
    client.force_login(owner)
    body = client.get("/api/me/games").json()
    rows = body["games"]
    assert body["next"] is None
    assert [r["game_id"] for r in rows] == [g.pk for g in reversed(hand_built)]
    newest, *_, third, _, first = rows
    assert first["ended_at"] == "2026-03-02T00:30:00+08:00"  # Beijing time
    assert first["table"] == {"id": hand_built[0].table_id, "name": "测试桌"}
    assert first | {"ended_at": None, "table": None} == {
        "game_id": hand_built[0].pk, "ended_at": None, "table": None, "seat": 0,
        "partner": {"username": "partner"}, "result": "win", "reason": "normal",
        "points": [300, 0], "rating_change": 2, "coin_change": 20}
    # seat 1: points and result from the E–W side
    assert (third["seat"], third["points"], third["result"], third["rating_change"]) == (
        1, [360, 240], "win", 1)
    assert third["partner"] == {"username": "partner"}
    assert third["coin_change"] is None
    assert (newest["result"], newest["reason"], newest["rating_change"]) == (
        "abandoned", "moderator_close", 0)
    practice = rows[1]
    assert practice["partner"] is None
    assert practice["rating_change"] is None
    assert practice["table"]["name"] == "练习桌"  # as played
    assert (rows[3]["result"], rows[3]["reason"], rows[3]["rating_change"]) == (
        "abandoned", "escape", -20)


def test_filters(hand_built, owner, client):
    client.force_login(owner)

    def ids(query):
        return [r["game_id"] for r in client.get("/api/me/games" + query).json()["games"]]

    g = hand_built
    assert ids("?kind=practice") == [g[5].pk]
    assert ids("?kind=rated") == [x.pk for x in reversed(g) if x is not g[5]]
    assert ids("?wager=1") == [g[0].pk]
    assert ids("?wager=0") == ids("")
    assert ids("?partner=partner&kind=rated") == [x.pk for x in reversed(g) if x is not g[5]]
    assert ids("?partner=rival") == []  # rival sat across only from the opponent
    assert ids("?partner=nobody") == []
    for bad in ("?kind=fun", "?wager=yes", "?partner=" + "x" * 151):
        r = client.get("/api/me/games" + bad)
        assert r.status_code == 400
        assert r.json()["reason"] == "bad_message"


def test_statistics_of_a_hand_built_set(hand_built, owner):
    s = history.stats(owner.pk)
    assert (s.total.games, s.total.played_out, s.total.wins) == (7, 4, 2)
    assert s.total.win_rate == 50
    assert (s.clamps_won, s.clamps_suffered, s.escapes) == (1, 1, 1)
    # halves: 1 + 2 + 2 + 1 + 0 + 1 = 7 (not game 7's: a moderator ended it);
    # 上游: games 1, 2 (second half), 6
    assert (s.halves, s.firsts, s.first_rate) == (7, 3, 43)
    # ours: 300 + 250 + 360 + 120 + 0 + 0 = 1030 over 7 halves
    assert (s.half_points, s.points_per_half) == (1030, 147.1)
    assert [(t.games, t.wins) for t in s.seats] == [(6, 1), (1, 1), (0, 0), (0, 0)]
    assert s.partners == [("partner", history.Tally(6, 3, 2))]  # the practice game had a bot
    rated = history.stats(owner.pk, history.Filters(kind="rated"))
    assert (rated.total.games, rated.clamps_suffered) == (6, 0)
    assert history.stats(owner.pk, history.Filters(flags=("wager",))).total.games == 1


def test_a_game_a_moderator_ended_counts_in_no_rate(owner, mod, client):
    """A tester's practice game, closed by a moderator after a half they went
    out first in, raised their 上游 rate while the win rate and the points per
    half left it out: every figure leaves out the halves of a game a moderator
    ended (``history.VOIDED``), so the rates are over the same games."""
    from moderation import actions
    from tests.helpers import start_game, state_in_second_half

    state = state_in_second_half()
    first = state["halves"][0]["finish_order"][0]
    game = start_game([owner], bots=[i for i in range(4) if i != first])  # owner went out first
    state["practice"] = True
    Game.objects.filter(pk=game.pk).update(state=state, seq=state["seq"])
    actions.close_table(mod, game.table_id, "测试关桌")
    game.refresh_from_db()
    assert (game.end_reason, game.practice, len(game.state["halves"])) == (
        "moderator_close", True, 1)
    s = history.stats(owner.pk)
    assert (s.total.games, s.total.played_out, s.total.win_rate) == (1, 0, None)
    assert (s.halves, s.firsts, s.first_rate) == (0, 0, None)
    assert (s.half_points, s.points_per_half) == (0, None)
    client.force_login(owner)
    page = client.get("/history/").content.decode()
    for figure in ("win-rate", "first-rate", "points-per-half"):
        assert f'<dd class="stat-{figure}">—</dd>' in page, figure


def test_partners_below_five_games_are_not_listed(players, table):
    owner, opponent, partner, rival = players
    for i in range(5):
        _game(table, players, at=T0 + timedelta(minutes=i), winner=i % 2,
              seat_points=[(200, 100)], firsts=[0])
    for i in range(4):
        _game(table, [owner, partner, rival, opponent], at=T0 - timedelta(minutes=i + 1),
              winner=0, seat_points=[(200, 100)], firsts=[0])
    s = history.stats(owner.pk)
    assert s.partners == [("partner", history.Tally(5, 5, 3))]


def test_paging_by_fifty_with_next(players, table, client):
    owner = players[0]
    for i in range(120):
        _game(table, players, at=T0 + timedelta(minutes=i), winner=0,
              seat_points=[(200, 100)], firsts=[0])
    client.force_login(owner)
    first = client.get("/api/me/games?kind=rated").json()
    assert len(first["games"]) == 50
    assert first["next"] == "/api/me/games?kind=rated&page=2"
    second = client.get(first["next"]).json()
    third = client.get(second["next"]).json()
    assert len(third["games"]) == 20
    assert third["next"] is None
    ended = [r["ended_at"] for p in (first, second, third) for r in p["games"]]
    assert ended == sorted(ended, reverse=True)
    assert len(set(ended)) == 120


def test_others_see_no_coins(hand_built, owner, outsider, client):
    client.force_login(outsider)
    rows = client.get("/api/users/owner/games").json()["games"]
    assert len(rows) == 7
    assert all("coin_change" not in r for r in rows)
    page = client.get("/u/owner/history/")
    assert page.status_code == 200
    assert b'class="history-coins"' not in page.content
    assert b"history-row" in page.content
    client.force_login(owner)  # even one's own public page shows none
    assert b'class="history-coins"' not in client.get("/u/owner/history/").content
    own = client.get("/history/")
    assert b'class="history-coins"' in own.content
    assert b"2026-03-02 00:30" in own.content  # Beijing time on the page too
    # the double clamp is 双夹 everywhere (RULES.md §1), in the stats as in the list
    text = own.content.decode()
    assert "双夹胜" in text
    assert "被双夹" in text
    assert "双扣" not in text


def test_unknown_user_and_visitors(client, owner):
    r = client.get("/api/users/nobody/games")
    assert r.status_code == 404
    assert r.json()["reason"] == "no_user"
    assert client.get("/u/nobody/history/").status_code == 404
    r = client.get("/api/me/games")
    assert r.status_code == 401
    assert r.json()["reason"] == "login_required"
    assert client.get("/history/").status_code == 302  # to the log-in page
    assert client.get("/api/users/owner/games").json() == {"games": [], "next": None}
    client.force_login(owner)  # a new player: an empty list, a flat graph, no figures
    page = client.get("/history/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "No finished games here." in page
    assert "No rating changes yet" in page
    assert '<dd class="stat-win-rate">—</dd>' in page


def test_the_rating_graph_has_the_thresholds(owner, client):
    for i, delta in enumerate((30, 40, -10)):
        e = RatingEntry.objects.create(user=owner, delta=delta, reason=RatingEntry.GAME)
        RatingEntry.objects.filter(pk=e.pk).update(created_at=T0 + timedelta(days=i))
    Profile.objects.filter(user=owner).update(rating_points=60)
    g = rating_graph.graph(owner.pk, "zh")
    # 0 → 30 → 70 → 60: from the 科员 line (0) up to 副科 (100)
    assert [(t.points, t.label) for t in g.thresholds] == [
        (0, "科员 0"), (50, "助科 50"), (100, "副科 100")]
    ys = [float(p.split(",")[1]) for p in g.line.split()]
    assert len(ys) == 4
    assert ys[0] == rating_graph.BOTTOM
    assert min(ys) == ys[2]
    assert g.thresholds[1].y > ys[2] > g.thresholds[2].y  # 70: between the 50 and 100 lines
    client.force_login(owner)
    page = client.get("/history/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<svg id="rating-graph-svg"' in page
    assert ">Assistant Section Chief 50</text>" in page
    assert 'data-points="100"' in page
    assert ">2026-03-02</text>" in page
    assert ">2026-03-04</text>" in page


def test_profile_counts_rated_games(players, table, client):
    owner = players[0]
    Profile.objects.filter(user=owner).update(games_played=9, games_won=7, rated_games=2,
                                              rated_wins=1)
    client.force_login(players[1])
    page = client.get("/accounts/profile/owner/").content.decode()
    assert '<dd class="rated-games">2</dd>' in page
    assert '<dd class="rated-wins">1</dd>' in page
    assert "/u/owner/history/" in page
    client.force_login(owner)
    assert 'href="/history/"' in client.get("/accounts/profile/").content.decode()


def _many_games(players, n_games: int) -> None:
    """``n_games`` finished games of ``players`` (four seat rows each), in bulk."""
    table = Table.objects.create(name="大桌", owner=players[0])
    games = Game.objects.bulk_create([
        Game(table=table, table_name="大桌", status=Game.OVER, practice=i % 3 == 0,
             end_reason="normal", ended_at=T0 + timedelta(minutes=i), settled=True,
             state=_state(winner=i % 2, seat_points=[(200, 100), (150, 150)], firsts=[i % 4, 0]))
        for i in range(n_games)])
    GameSeat.objects.bulk_create([
        GameSeat(game=g, index=i, user=u, username=u.username)
        for g in games for i, u in enumerate(players)])


def test_constant_queries_over_ten_thousand_seat_rows(players, client, settings):
    # the site notice's cache outlives the test (a loaded suite once let it
    # expire between the warm-up and the first count: 13 queries against 12)
    settings.MODERATION_NOTICE_CACHE_SECONDS = 3600
    _many_games(players, 2_500)
    assert GameSeat.objects.count() == 10_000
    owner = players[0]
    client.force_login(owner)

    def queries(url, sql=False):
        with CaptureQueriesContext(connection) as ctx:
            r = client.get(url)
        assert r.status_code == 200
        if sql:
            return len(ctx.captured_queries), r, [q["sql"][:150] for q in ctx.captured_queries]
        return len(ctx.captured_queries), r

    n1, r = queries("/api/me/games")
    assert len(r.json()["games"]) == 50
    n2, r = queries("/api/me/games?page=30&partner=partner")
    assert len(r.json()["games"]) == 50
    assert n1 == n2 <= 7  # constant: the plugins' recent-game keys batched
    queries("/history/")  # the site notice's cache, warm
    p1, _, c1 = queries("/history/", True)
    p2, page, c2 = queries("/history/?page=30&kind=rated", True)
    assert p1 == p2 <= 16, "\n".join([*c1, "----", *c2])
    assert page.content.count(b'class="history-row') == 50
    s = history.stats(owner.pk)
    assert (s.total.games, s.halves) == (2_500, 5_000)
    assert s.partners == [("partner", history.Tally(2_500, 2_500, 1_250))]


def seed_history(username: str) -> None:
    """For the browser test (run in the site's ``manage.py shell``): 60 games of
    ``username``'s with three long-named others at a long-named table, a
    wager, a practice game and rating movements (the graph crosses 50 and 100)."""
    from django.contrib.auth import get_user_model

    user_model = get_user_model()
    me = user_model.objects.get(username=username)
    others = [user_model.objects.create_user(username=n) for n in (
        "对家的名字特别特别长的一位玩家", "east_player_with_a_long_name", "west_player")]
    people = [me, others[1], others[0], others[2]]
    table = Table.objects.create(name="一张名字有四十个字的桌子" * 3, owner=me)
    for i in range(60):
        g = _game(table, people if i else [me, None, None, None], practice=not i,
                  at=T0 + timedelta(hours=i), winner=i % 2, clamp=i % 7 == 0,
                  seat_points=[(200, 100), (150, 150)], firsts=[i % 4, 0],
                  changes=(5, -5, 5, -5) if i % 2 == 0 else (-5, 5, -5, 5))
        if i == 59:
            GameWager.objects.create(game=g, wager=10240, coin_changes=[-51200, 51200] * 2)
    for i, delta in enumerate((30, 40, 50, -20)):
        e = RatingEntry.objects.create(user=me, delta=delta, reason=RatingEntry.GAME)
        RatingEntry.objects.filter(pk=e.pk).update(created_at=T0 + timedelta(days=i))
    Profile.objects.filter(user=me).update(rating_points=100)


def _label_box(t: rating_graph.Threshold) -> tuple[float, float, float, float]:
    """A drawn label's box at its largest size (rating_graph.LABEL_SIZE)."""
    width = rating_graph.text_width(t.label)
    left = t.label_x if t.anchor == "start" else t.label_x - width
    size = rating_graph.LABEL_SIZE
    top = t.label_y if t.below else t.label_y - size
    return left, top, left + width, top + size


def _line_points(g: rating_graph.Graph) -> list[tuple[float, float]]:
    """The rating line sampled every tenth of its segments."""
    coords = [tuple(map(float, p.split(","))) for p in g.line.split()]
    return [(ax + (bx - ax) * k / 10, ay + (by - ay) * k / 10)
            for (ax, ay), (bx, by) in pairwise(coords) for k in range(11)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_graph_labels_stay_off_the_rating_line(owner, lang):
    """A tester saw "Clerk 0" drawn over a new player's flat line at 0, and a
    label the rising line ran through: each label goes above or below its
    line, left or right, where the rating line is not."""
    flat = rating_graph.graph(owner.pk, lang)
    clerk = flat.thresholds[0]
    assert clerk.points == 0
    assert clerk.labelled
    assert clerk.below  # under the line the rating runs on
    assert clerk.label_y > clerk.y
    for i, delta in enumerate((30, 40, -10)):
        e = RatingEntry.objects.create(user=owner, delta=delta, reason=RatingEntry.GAME)
        RatingEntry.objects.filter(pk=e.pk).update(created_at=T0 + timedelta(days=i))
    Profile.objects.filter(user=owner).update(rating_points=60)
    for g in (flat, rating_graph.graph(owner.pk, lang)):
        points = _line_points(g)
        drawn = [t for t in g.thresholds if t.labelled]
        assert drawn
        for t in drawn:
            left, top, right, bottom = _label_box(t)
            assert not [(x, y) for x, y in points if left <= x <= right and top <= y <= bottom], t
            assert left >= 0, t
            assert right <= rating_graph.WIDTH, t


def test_a_real_escape_and_a_practice_game_as_the_finisher_leaves_them(players, client):
    from games import play
    from tests.helpers import start_game

    owner, opponent = players[0], players[1]
    rated = start_game(players)
    play.escape(rated.pk, opponent)  # seat 1 leaves: −20 for them, nothing for the owner
    practice = start_game([owner], bots=(1, 2, 3))
    play.escape(practice.pk, owner)
    client.force_login(opponent)
    mine = client.get("/api/me/games").json()["games"]
    assert [(r["game_id"], r["seat"], r["result"], r["reason"], r["rating_change"])
            for r in mine] == [(rated.pk, 1, "abandoned", "escape", -20)]
    assert mine[0]["partner"] == {"username": "rival"}
    assert mine[0]["ended_at"].endswith("+08:00")
    assert history.stats(opponent.pk).escapes == 1
    client.force_login(owner)
    rows = client.get("/api/me/games").json()["games"]
    assert [(r["game_id"], r["rating_change"], r["partner"]) for r in rows] == [
        (practice.pk, None, None), (rated.pk, 0, {"username": "partner"})]
    s = history.stats(owner.pk)
    # leaving the practice game cost nothing and is no escape (the dialog says so)
    assert (s.total.games, s.total.played_out, s.escapes) == (2, 0, 0)
    # nor is it called one: the history and the profile say the owner left it
    page = client.get("/history/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "你离开了（练习局，不罚）" in page
    assert "你逃跑了" not in page
    assert "每半局平均得分" in page  # the site's word is 半局, never 半场 (RULES.md glossary)
    assert "半场" not in page
    profile = client.get("/accounts/profile/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "离开（练习局）" in profile
    assert ">逃跑<" not in profile
    client.force_login(opponent)  # the rated escape is still one
    assert "你逃跑了" in client.get("/history/",
                                  HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


def test_someone_elses_leaving_a_practice_game_is_not_called_an_escape(players, client):
    """A tester's partner in a practice game (two people, two bots) read
    "有人逃跑" in their history when the other left: RULES.md §7, leaving a
    practice game is not an escape, whoever reads about it."""
    from tests.helpers import start_game

    owner, other = players[0], players[1]
    from games import play

    practice = start_game([owner, other], bots=(2, 3))
    play.escape(practice.pk, owner)
    client.force_login(other)
    page = client.get("/history/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "有人离开（练习局）" in page
    assert "逃跑" not in page.split('class="history-reason"', 1)[1].split("</span>", 1)[0]


def test_dates_are_beijing_time_whatever_the_sites_zone(players, table, client, settings):
    settings.TIME_ZONE = "UTC"
    _game(table, players, at=T0, winner=0, seat_points=[(200, 100)], firsts=[0])
    client.force_login(players[0])
    assert client.get("/api/me/games").json()["games"][0]["ended_at"] == (
        "2026-03-02T00:30:00+08:00")
    page = client.get("/history/").content.decode()
    assert 'datetime="2026-03-02T00:30:00+08:00"' in page
    assert ">2026-03-02 00:30</time>" in page


def test_a_bot_partner_is_named_by_its_level(owner, table, client):
    """A practice game's partner is a bot: the row says which (机器人（大师）),
    not "—" (a tester read "Partner: —" beside a bot who went out first)."""
    g = _game(table, [owner, None, None, None], at=datetime.now(UTC), practice=True,
              winner=0, seat_points=[(300, 0)], firsts=[2], clamp=True)
    GameSeat.objects.filter(game=g, index=2).update(bot="master")
    client.force_login(owner)
    zh = client.get("/history/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "机器人（大师）" in zh
    en = client.get("/history/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Bot (Master)" in en


def test_a_given_table_name_shows_in_the_readers_language(players, client):
    """The stored bilingual name of a table nobody named (``桌 N · Table N``)
    shows its page's half in the history's rows (games.names)."""
    from games import tables

    owner = players[0]
    table = tables.create_table(owner)
    _game(table, players, at=T0, winner=0, seat_points=[(300, 0)], firsts=[0])
    client.force_login(owner)
    zh = client.get("/history/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f'history-table-name">桌 {table.pk}</div>' in zh
    en = client.get("/history/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'history-table-name">Table {table.pk}</div>' in en
