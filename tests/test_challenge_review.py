"""复盘 of daily challenge boards (contests/challenge_review.py through the
games app's review, games/reviews.py; RULES.md §12 "Daily challenge"): a
board is reviewed only after its day closes, by the same queue, limits,
worker, cache and page as a game's; only its player sees it, and it shows
only their own hand and the public plays.

The review is made cheap here, as in tests/test_review_site.py."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from contests import challenge_close, challenge_play
from contests.challenge_show import record as board_record
from contests.models import ChallengeBoard
from games import engine, reviews
from games.engine.bots import heuristic_policy
from games.engine.record import record_actions
from games.engine.review import LABELS, review_game
from games.models import Game, GameReview
from tests import helpers

pytestmark = pytest.mark.django_db

KIND = "challenge"


@pytest.fixture(autouse=True)
def _cheap_reviews(settings):
    helpers.cheap_reviews(settings)


def _finish(board: ChallengeBoard, user, now) -> ChallengeBoard:
    """Play the user's board to its end with the normal bot's choices in seat 2."""
    while board.status != ChallengeBoard.DONE:
        state = board.state
        action = heuristic_policy(engine.view(state, 2), random.Random(0))
        board = challenge_play.act(board.pk, user, state["seq"], action, now=now)
    return board


@pytest.fixture
def played(db):
    """Today's board 1 of one player, finished; its first turn went to the clock
    (a timeout, §8). The day is still open."""
    (user,) = helpers.make_players(1, "reviewer")
    t = timezone.now()
    board = challenge_play.start(user, now=t)
    s = 0
    while board.timeouts == 0:  # connected past the turn's time: the clock acts
        s += 5
        board = challenge_play.sync(board.pk, user, t + timedelta(seconds=s))
    board = _finish(board, user, t + timedelta(seconds=s + 1))
    assert "clock" in board.moves_by.values()
    return user, board


def _close(board: ChallengeBoard) -> ChallengeBoard:
    assert challenge_close.close_day(board.day_id)
    return ChallengeBoard.objects.select_related("day").get(pk=board.pk)


def _page(board: ChallengeBoard) -> str:
    return reverse("review", args=[KIND, board.pk])


def _api(board: ChallengeBoard) -> str:
    return reverse("review_api", args=[KIND, board.pk])


def _day(board: ChallengeBoard) -> str:
    return reverse("challenge_day", args=[board.day.date.isoformat()])


def _board_page(board: ChallengeBoard) -> str:
    return reverse("challenge_board", args=[board.day.date.isoformat(), board.number])


def test_before_the_close_it_is_refused_and_nothing_is_queued(played, client):
    user, board = played
    e = helpers.refused("challenge_open", reviews.request, KIND, board.pk, user)
    assert "当天结算" in str(e)  # says why, in the default language
    client.force_login(user)
    r = client.post(_api(board))
    assert r.status_code == 400
    assert r.json()["reason"] == "challenge_open"
    assert client.get(_api(board)).json() == {
        "ok": True, "status": "none", "done": 0, "total": 0, "position": None,
        "ask_again": False}
    r = client.post(_page(board))  # the page's form: refused, the reason on the page
    assert r.status_code == 302
    page = client.get(_page(board)).content.decode()
    assert 'id="review-not-yet"' in page
    assert 'data-status="not_yet"' in page
    assert "review-ask" not in page
    assert not GameReview.objects.exists()
    # no button on the day's page nor on the board's
    assert "ch-review-btn" not in client.get(_day(board)).content.decode()
    assert "ch-review-btn" not in client.get(_board_page(board)).content.decode()
    # nor a record for the worker to read: a row forced in would fail, not leak
    with pytest.raises(ValueError, match="closed"):
        board_record(board)


def test_after_the_close_it_queues_runs_and_shows_the_players_decisions(played, client):
    user, board = played
    board = _close(board)
    client.force_login(user)
    day = client.get(_day(board)).content.decode()
    assert f'action="{_page(board)}"' in day
    assert "ch-review-btn" in day
    assert f'action="{_page(board)}"' in client.get(_board_page(board)).content.decode()

    r = client.post(_page(board))
    assert r.status_code == 302
    assert r.url == _page(board)
    row = GameReview.objects.get()
    assert (row.kind, row.ref, row.game_id, row.seat, row.user_id, row.status) == (
        KIND, board.pk, None, 2, user.pk, GameReview.QUEUED)
    assert client.get(_api(board)).json()["position"] == 1
    assert "<progress" in client.get(_page(board)).content.decode()
    assert "See the review" in client.get(_day(board), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert reviews.run_next()  # the worker's step (games.tasks.run_review / reviewworker)
    row.refresh_from_db()
    assert row.status == GameReview.DONE
    progress = client.get(_api(board)).json()
    assert progress["status"] == "done"
    assert progress["done"] == progress["total"] == len(row.result["judged"]) > 0
    rec = board_record(board)
    actions = record_actions(rec)
    judged = {j["index"] for j in row.result["judged"]}
    assert all(actions[i][0] == 2 for i in judged)  # seat 2's own decisions only
    clocked = {int(i) for i, by in board.moves_by.items() if by == "clock"}
    assert clocked
    assert not judged & clocked  # not the clock's move

    html = client.get(_page(board)).content.decode()
    assert 'id="review-summary"' in html
    m = re.search(r'<script id="review-data" type="application/json">(.*?)</script>', html, re.S)
    assert m
    steps = json.loads(m.group(1))
    assert len(steps) == len(actions)
    labelled = [s for s in steps if "judgement" in s]
    assert {s["i"] for s in labelled} == judged
    assert all(s["seat"] == 2 and s["judgement"]["label"] in LABELS for s in labelled)
    assert {steps[i]["by"] for i in clocked} == {"clock"}
    assert {s["by"] for s in steps if s["seat"] != 2} == {"bot"}
    # nothing but the player's own hand and the public plays (RULES.md §12)
    dealt = Counter(rec["halves"][0]["hands"][2])
    states = engine.from_record(rec)
    hand = None
    for i, s in enumerate(steps):
        hand = s.get("hand", hand)
        assert hand == states[i]["hands"][2]
        assert not Counter(hand) - dealt
    public = Counter(c for _, cards in rec["halves"][0]["actions"] for c in cards)
    assert not Counter(c for s in steps for c in s["cards"]) - public
    assert '"hands"' not in html
    assert rec["seed"] not in html
    assert board.day.server_seed not in html
    # asking again shows the stored review: one row, nothing queued
    assert client.post(_api(board)).json()["status"] == "done"
    assert GameReview.objects.count() == 1
    assert not reviews.run_next()
    again = client.get(_board_page(board), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "See my review" in again


def test_only_the_boards_player_sees_its_review(played, client):
    user, board = played
    board = _close(board)
    reviews.request(KIND, board.pk, user)
    assert reviews.run_next()
    (other,) = helpers.make_players(1, "nosy")
    helpers.refused("no_board", reviews.request, KIND, board.pk, other)
    client.force_login(other)
    assert client.get(_page(board)).status_code == 404
    assert client.post(_page(board)).status_code == 404
    r = client.get(_api(board))
    assert r.status_code == 404
    assert r.json()["reason"] == "no_board"
    assert client.get(reverse("review", args=["nothing", board.pk])).status_code == 404
    # the closed board is public to replay, but its review and button are not
    other_view = client.get(_board_page(board) + f"?user={user.username}").content.decode()
    assert "ch-review-btn" not in other_view
    client.logout()
    assert client.get(_api(board)).status_code == 401
    assert client.get(_page(board)).status_code == 302
    assert GameReview.objects.count() == 1


def test_a_rerun_is_identical_and_is_the_engines_judge(played):
    user, board = played
    board = _close(board)
    row = reviews.request(KIND, board.pk, user)
    assert reviews.run(row.pk)
    first = GameReview.objects.get(pk=row.pk).result
    GameReview.objects.filter(pk=row.pk).update(status=GameReview.QUEUED, result=None)
    assert reviews.run(row.pk)
    assert GameReview.objects.get(pk=row.pk).result == first
    # the same judge as a game's, on the board's record (seeded by its seed)
    rec, by = reviews.load(GameReview.objects.get(pk=row.pk))
    direct = review_game(rec, 2, reviews.thresholds(), samples=2, width=2, playout="normal",
                         budget=None, exclude={i for i in by if record_actions(rec)[i][0] == 2})
    assert [j.index for j in direct.judgements] == [j["index"] for j in first["judged"]]
    assert direct.accuracy == first["accuracy"]


def test_the_same_queue_limits_as_games(played, settings):
    user, board = played
    board = _close(board)
    others = helpers.make_players(3, "limits")
    game = helpers.start_game([user, *others])
    Game.objects.filter(pk=game.pk).update(status=Game.OVER)
    reviews.request_review(game.pk, user)
    # one queued or running review per player, whatever it is of
    helpers.refused("review_pending", reviews.request, KIND, board.pk, user)
    # the site-wide bound counts both kinds
    GameReview.objects.all().delete()
    settings.GAMES_REVIEW_QUEUE_MAX = 1
    reviews.request_review(game.pk, others[0])
    e = helpers.refused("review_queue_full", reviews.request, KIND, board.pk, user)
    assert e.params == {"limit": 1}
    assert GameReview.objects.count() == 1


def test_the_closes_play_out_is_not_judged(db):
    (user,) = helpers.make_players(1, "leaver")
    board = challenge_play.start(user)
    state = board.state
    action = heuristic_policy(engine.view(state, 2), random.Random(0))
    board = challenge_play.act(board.pk, user, state["seq"], action)  # one move, then away
    board = _close(board)
    assert board.status == ChallengeBoard.DONE
    assert board.by_bot
    auto = {int(i) for i, by in board.moves_by.items() if by == "auto"}
    assert auto
    row = reviews.request(KIND, board.pk, user)
    assert reviews.run(row.pk)
    judged = {j["index"] for j in GameReview.objects.get().result["judged"]}
    assert not judged & auto
    assert all(record_actions(board_record(board))[i][0] == 2 for i in judged)
