"""复盘 on the site (games/reviews.py, games/review_views.py): asking for a review
of one's own decisions in a finished game, the queue and its limits, the
worker's step (directly, through the real Celery task, through the embedded
worker command), the cache, the page (only the player's own hand) and the
progress JSON. The review's judging itself is tests/test_review.py's.

The review is made cheap here (two sampled deals, two alternatives, the
normal bot's play-outs): what is tested is the site around it, not its figures.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from games import engine, play, reviews, tables
from games.engine.record import record_actions
from games.models import Game, GameEvent, GameReview
from tests import helpers

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cheap_reviews(settings):
    helpers.cheap_reviews(settings)


def _play_out(game: Game, clock_seat: int | None = None) -> Game:
    """Play ``game`` to its end: people play the heuristic move through
    ``play.act``, bots move when due; the first turn of ``clock_seat`` (a
    person) runs out instead, so the clock acts for them (RULES.md §8)."""
    clocked = False
    while helpers.fresh(game).status != Game.OVER:
        game = helpers.fresh(game)
        seat = game.state["turn"]
        row = helpers.seat_row(game, seat)
        if row.is_bot or row.auto_play:
            helpers.force_due(game)
            assert play.run_due(game.pk)
        elif seat == clock_seat and not clocked:
            helpers.force_due(game)
            assert play.run_due(game.pk)
            clocked = True
        else:
            helpers.play_human_turn(game)
    return helpers.fresh(game)


@pytest.fixture
def finished(players):
    """A rated game of four people played to its end; North lost one turn to the clock."""
    return _play_out(helpers.start_game(players), clock_seat=0)


def _review_json(client, game: Game) -> dict:
    r = client.get(reverse("game_review_api", args=[game.pk]))
    assert r.status_code == 200, r.content
    return r.json()


def test_a_player_asks_the_worker_makes_it_and_asking_again_shows_the_stored_one(
        finished, owner, client):
    client.force_login(owner)
    assert _review_json(client, finished) == {
        "ok": True, "status": "none", "done": 0, "total": 0, "position": None,
        "ask_again": False}
    r = client.post(reverse("game_review", args=[finished.pk]))
    assert r.status_code == 302
    assert r.url == reverse("game_review", args=[finished.pk])
    row = GameReview.objects.get()
    assert (row.game_id, row.seat, row.user_id, row.status) == (
        finished.pk, 0, owner.pk, GameReview.QUEUED)
    assert _review_json(client, finished) == {
        "ok": True, "status": "queued", "done": 0, "total": 0, "position": 1,
        "ask_again": False}
    page = client.get(reverse("game_review", args=[finished.pk])).content.decode()
    assert 'id="review-progress"' in page
    assert "<progress" in page

    assert reviews.run_next()
    assert not reviews.run_next()  # nothing else queued
    row.refresh_from_db()
    assert row.status == GameReview.DONE
    assert row.finished_at is not None
    progress = _review_json(client, finished)
    assert progress["status"] == "done"
    assert progress["done"] == progress["total"] > 0
    result = row.result
    assert result["seat"] == 0
    assert result["thresholds"] == [10.0, 25.0, 50.0]
    assert set(result["counts"]) == {"good", "inexact", "mistake", "blunder"}
    assert sum(result["counts"].values()) == len(result["judged"]) == progress["total"]
    assert 0 <= result["accuracy"] <= 1
    steps = record_actions(finished.record)
    assert all(steps[j["index"]][0] == 0 for j in result["judged"])

    # asking again (the button, the API) shows the stored review: still one row
    client.post(reverse("game_review", args=[finished.pk]))
    again = client.post(reverse("game_review_api", args=[finished.pk])).json()
    assert again["status"] == "done"
    assert GameReview.objects.count() == 1
    assert not reviews.run_next()


def test_the_clocks_moves_are_not_judged(finished, owner):
    clocked = list(GameEvent.objects.filter(game=finished, by="clock").values_list("seq", "seat"))
    assert clocked
    assert all(seat == 0 for _, seat in clocked)
    assert {seq - 1 for seq, _ in clocked} <= reviews.excluded(finished, finished.record)
    bots = GameEvent.objects.filter(game=finished).exclude(by="player").count()
    assert len(reviews.excluded(finished, finished.record)) == bots
    row = reviews.request_review(finished.pk, owner)
    assert reviews.run(row.pk)
    row.refresh_from_db()
    judged = {j["index"] for j in row.result["judged"]}
    assert judged
    assert not judged & {seq - 1 for seq, _ in clocked}


def test_only_the_games_players_each_their_own_seat(finished, players, outsider, client):
    helpers.refused("not_seated", reviews.request_review, finished.pk, outsider)
    helpers.refused("no_game", reviews.request_review, finished.pk + 999, players[0])
    client.force_login(outsider)
    assert client.get(reverse("game_review", args=[finished.pk])).status_code == 404
    assert client.post(reverse("game_review", args=[finished.pk])).status_code == 404
    r = client.get(reverse("game_review_api", args=[finished.pk]))
    assert r.status_code == 404
    assert r.json()["reason"] == "not_seated"
    assert not GameReview.objects.exists()
    # the result page offers the button to the players only
    assert 'id="review-btn"' not in client.get(
        reverse("game_result", args=[finished.pk])).content.decode()
    client.logout()
    assert client.get(reverse("game_review_api", args=[finished.pk])).status_code == 401
    r = client.get(reverse("game_review", args=[finished.pk]))
    assert r.status_code == 302
    assert "login" in r.url

    # each player gets their own seat's review, never another's
    seats = []
    for user in players:
        client.force_login(user)
        assert 'id="review-btn"' in client.get(
            reverse("game_result", args=[finished.pk])).content.decode()
        client.post(reverse("game_review", args=[finished.pk]))
        seats.append(GameReview.objects.get(user=user).seat)
    assert seats == [0, 1, 2, 3]  # players are seated in order (tests.helpers.start_game)


def test_not_while_the_game_runs(players, client):
    game = helpers.start_game(players)
    helpers.refused("game_running", reviews.request_review, game.pk, players[0])
    client.force_login(players[0])
    page = client.get(reverse("game_review", args=[game.pk])).content.decode()
    assert 'data-status="playing"' in page
    assert "review-ask" not in page
    client.post(reverse("game_review", args=[game.pk]))
    r = client.post(reverse("game_review_api", args=[game.pk]))
    assert r.status_code == 400
    assert r.json()["reason"] == "game_running"
    assert not GameReview.objects.exists()
    assert 'id="review-btn"' not in client.get(
        reverse("game_result", args=[game.pk])).content.decode()


def test_one_active_review_per_player_and_a_bounded_queue(finished, players, settings):
    # a second finished game of the same four
    second = _play_out(helpers.start_game(players))
    first = reviews.request_review(finished.pk, players[0])
    e = helpers.refused("review_pending", reviews.request_review, second.pk, players[0])
    assert "另一份复盘" in str(e)  # the message says why, in the default language
    # running counts as active too
    GameReview.objects.filter(pk=first.pk).update(status=GameReview.RUNNING,
                                                  beat_at=timezone.now())
    helpers.refused("review_pending", reviews.request_review, second.pk, players[0])
    # site-wide: two queued with a limit of two refuses a third, for anyone
    settings.GAMES_REVIEW_QUEUE_MAX = 2
    reviews.request_review(finished.pk, players[1])
    reviews.request_review(finished.pk, players[2])
    e = helpers.refused("review_queue_full", reviews.request_review, finished.pk, players[3])
    assert e.params == {"limit": 2}
    assert GameReview.objects.count() == 3
    # the stored ones are still shown while the queue is full
    assert reviews.request_review(finished.pk, players[1]).seat == 1


def test_a_worker_that_died_frees_its_player(finished, owner, settings):
    row = reviews.request_review(finished.pk, owner)
    assert reviews._claim(row.pk)  # a worker took it, then died
    stale = timezone.now() - timedelta(seconds=settings.GAMES_REVIEW_STALE_SECONDS + 1)
    GameReview.objects.filter(pk=row.pk).update(beat_at=stale)
    assert reviews.progress_of(GameReview.objects.get())["status"] == "failed"
    again = reviews.request_review(finished.pk, owner)  # asked again: queued anew
    assert again.pk == row.pk
    assert again.status == GameReview.QUEUED
    assert reviews.run(row.pk)
    assert GameReview.objects.get().status == GameReview.DONE


def test_a_review_that_fails_says_so_and_may_be_asked_again(finished, owner):
    row = reviews.request_review(finished.pk, owner)
    good = finished.record
    Game.objects.filter(pk=finished.pk).update(record={"version": 2, "seed": "x"})
    assert reviews.run(row.pk)
    row.refresh_from_db()
    assert row.status == GameReview.FAILED
    assert row.error
    Game.objects.filter(pk=finished.pk).update(record=good)
    assert reviews.request_review(finished.pk, owner).status == GameReview.QUEUED
    assert reviews.run(row.pk)
    assert GameReview.objects.get().status == GameReview.DONE


def test_the_celery_task_runs_on_the_review_queue(finished, owner, settings):
    from games import tasks
    from yuanzi_site.celery import app

    assert app.amqp.router.route({}, "games.tasks.run_review")["queue"].name == "review"
    assert app.amqp.router.route({}, "games.tasks.run_due")["queue"].name != "review"
    row = reviews.request_review(finished.pk, owner)
    assert tasks.run_review.apply(args=[row.pk]).get() is True  # the real task, eagerly
    assert GameReview.objects.get().status == GameReview.DONE
    assert tasks.run_review.apply(args=[row.pk]).get() is False  # done: nothing to do


def test_asking_sends_the_task_which_also_makes_what_else_is_queued(
        finished, players, settings, django_capture_on_commit_callbacks):
    from yuanzi_site.celery import app

    lost = reviews.request_review(finished.pk, players[1])  # runner none: nothing sent
    settings.GAMES_REVIEW_RUNNER = "celery"
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the real task, run where it is sent
    try:
        with django_capture_on_commit_callbacks(execute=True) as sent:
            reviews.request_review(finished.pk, players[0])
    finally:
        app.conf.task_always_eager = eager
    assert len(sent) == 1
    assert set(GameReview.objects.values_list("status", flat=True)) == {"done"}
    assert GameReview.objects.get(pk=lost.pk).result is not None


def test_a_long_queued_review_asked_again_is_sent_again(finished, owner, settings,
                                                         django_capture_on_commit_callbacks):
    settings.GAMES_REVIEW_RUNNER = "celery"
    with django_capture_on_commit_callbacks() as sent:
        row = reviews.request_review(finished.pk, owner)
    assert len(sent) == 1
    with django_capture_on_commit_callbacks() as sent:
        reviews.request_review(finished.pk, owner)
    assert sent == []  # just asked: its task is on its way
    GameReview.objects.filter(pk=row.pk).update(
        created_at=timezone.now() - reviews.RESEND - timedelta(seconds=1))
    with django_capture_on_commit_callbacks() as sent:
        assert reviews.request_review(finished.pk, owner).pk == row.pk
    assert len(sent) == 1
    assert GameReview.objects.count() == 1


def test_the_page_offers_asking_again_only_after_a_real_wait_and_says_starting(
        finished, owner, client):
    client.force_login(owner)
    client.post(reverse("game_review", args=[finished.pk]))
    row = GameReview.objects.get()

    def page() -> str:
        return client.get(reverse("game_review", args=[finished.pk])).content.decode()

    assert re.search(r'id="review-again-form"[^>]* hidden', page())
    assert _review_json(client, finished)["ask_again"] is False
    GameReview.objects.filter(pk=row.pk).update(
        created_at=timezone.now() - reviews.RESEND - timedelta(seconds=1))
    assert _review_json(client, finished)["ask_again"] is True
    assert not re.search(r'id="review-again-form"[^>]* hidden', page())
    # taken by the worker, not yet counted: one state, said the same everywhere
    GameReview.objects.filter(pk=row.pk).update(status=GameReview.RUNNING, total=0,
                                                beat_at=timezone.now())
    running = page()
    assert "开始中" in running
    assert "0 / 0" not in running
    assert "0 of 0" not in running
    assert _review_json(client, finished)["ask_again"] is False


def test_the_embedded_worker_command_makes_what_is_queued(finished, players):
    for user in players[:2]:
        reviews.request_review(finished.pk, user)
    call_command("reviewworker", "--once")
    assert list(GameReview.objects.values_list("status", flat=True)) == ["done", "done"]


def test_practice_games_are_reviewed_too(owner, client):
    table = tables.practice(owner, "normal")
    game = _play_out(Game.objects.get(pk=table.current_game_id))
    assert game.practice
    client.force_login(owner)
    client.post(reverse("game_review", args=[game.pk]))
    assert reviews.run_next()
    assert GameReview.objects.get().status == GameReview.DONE
    page = client.get(reverse("game_review", args=[game.pk])).content.decode()
    assert 'id="review-summary"' in page


def _steps(html: str) -> list[dict]:
    m = re.search(r'<script id="review-data" type="application/json">(.*?)</script>', html, re.S)
    assert m, "no step-through data on the page"
    return json.loads(m.group(1))


def test_the_page_shows_the_summary_and_only_the_players_own_hand(finished, players, client):
    seat = 1
    user = players[seat]
    reviews.request_review(finished.pk, user)
    assert reviews.run_next()
    client.force_login(user)
    html = client.get(reverse("game_review", args=[finished.pk])).content.decode()
    assert 'id="review-summary"' in html
    assert 'id="review-accuracy"' in html
    assert "10" in html
    assert "25" in html
    assert "50" in html
    row = GameReview.objects.get()
    assert html.count('<li data-step="') == len(row.result["costliest"]) <= 3
    steps = _steps(html)
    record = finished.record
    actions = record_actions(record)
    assert len(steps) == len(actions)
    states = engine.from_record(record)
    hand = None
    judged = {j["index"] for j in row.result["judged"]}
    for i, step in enumerate(steps):
        assert set(step) <= {"i", "half", "dao", "counts", "trick", "points", "seat", "cards",
                             "escape", "by", "hand", "judgement", "half_end"}
        # a half's last action shows that half's points as scored (a tester saw
        # the last step's points before the transfers, and no result)
        ended = i + 1 < len(states) and len(states[i + 1]["halves"]) > len(states[i]["halves"])
        assert ("half_end" in step) == ended
        if ended:
            pts = states[i + 1]["halves"][-1]["points"]
            team = engine.team_of(seat)
            assert step["half_end"]["points"] == [pts[team], pts[1 - team]]
        hand = step.get("hand", hand)
        assert hand == states[i]["hands"][seat]  # the player's own hand, as it was
        assert step["counts"] == [len(h) for h in states[i]["hands"]]
        assert ("judgement" in step) == (i in judged)
    # every card the page holds is the player's own dealt hand or a public play
    public = Counter(c for h in record["halves"] for _, cards in h["actions"] for c in cards)
    seen_per_half: dict[int, Counter] = {}
    for s in steps:
        if "hand" in s:
            half = seen_per_half.setdefault(s["half"], Counter())
            half |= Counter(s["hand"])
    for half, cards in seen_per_half.items():
        assert not cards - Counter(record["halves"][half - 1]["hands"][seat])
    assert not (Counter(c for s in steps for c in s["cards"]) - public)
    # the game's last action closes its last half, with the result from this seat's side
    assert steps[-1]["half_end"]["won"] == (
        finished.state["result"]["winner"] == engine.team_of(seat))
    assert sum("half_end" in s for s in steps) == len(record["halves"])
    assert '"hands"' not in html
    assert "seed" not in html.split('id="review-data"')[1]

    # another player's page is their own
    client.force_login(players[2])
    assert 'id="review-summary"' not in client.get(
        reverse("game_review", args=[finished.pk])).content.decode()


def test_the_page_speaks_english_too(finished, owner, client):
    reviews.request_review(finished.pk, owner)
    assert reviews.run_next()
    client.force_login(owner)
    html = client.get(reverse("game_review", args=[finished.pk]),
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "accuracy" in html
    assert "Step through the game" in html
    zh = client.get(reverse("game_review", args=[finished.pk])).content.decode()
    assert "准确率" in zh
    assert "逐手回看" in zh


def test_the_profile_offers_a_review_of_each_recent_game(finished, owner, outsider, client):
    client.force_login(owner)
    html = client.get(reverse("profile_self")).content.decode()
    assert f'action="{reverse("game_review", args=[finished.pk])}"' in html
    client.force_login(outsider)
    other = client.get(reverse("profile", args=[owner.username])).content.decode()
    assert "review-btn" not in other


def test_the_review_queue_has_its_own_worker(celery_worker, players, settings):
    """Production: a real worker on the default queue (turn clocks, bots) and the
    review worker of docs/deploy.md (``-Q review --concurrency 1``); the review
    is made by the review worker only."""
    from tests.celery_fixtures import CeleryProcess, _env, _live

    game = _play_out(helpers.start_game(players))
    reviewer = CeleryProcess(
        "worker", "-Q", "review", "--concurrency", "1", "-l", "info",
        "-n", f"review-test-{game.pk}@%h", "--without-gossip", "--without-mingle",
        "--without-heartbeat", ready=" ready.",
        env=_env(GAMES_REVIEW_SAMPLES="1", GAMES_REVIEW_WIDTH="1",
                 GAMES_REVIEW_PLAYOUT="normal", GAMES_REVIEW_RUNNER="celery"))
    reviewer.start()
    try:
        settings.GAMES_REVIEW_RUNNER = "celery"
        row = reviews.request_review(game.pk, players[0])
        helpers.wait_for(lambda: GameReview.objects.get(pk=row.pk).status == GameReview.DONE,
                         timeout=60)
        # (both list every task at start; a task run is logged with its id)
        assert "Task games.tasks.run_review[" in reviewer.log()
        assert "games.tasks.run_review[" not in celery_worker.log()
    finally:
        reviewer.stop()
        _live.remove(reviewer)


def _done_with(row: GameReview, judged: list[dict], costliest: list[int]) -> None:
    """Store ``judged`` (hand-made judgements at real indices) as ``row``'s result."""
    counts = Counter(j["label"] for j in judged)
    row.result = {**row.result, "judged": judged, "costliest": costliest,
                  "counts": {k: counts.get(k, 0) for k in row.result["counts"]},
                  "accuracy": counts.get("good", 0) / len(judged) if judged else 1.0}
    row.save(update_fields=["result"])


def test_the_loss_shown_agrees_with_the_expected_points_shown(finished, owner, client):
    """The page shows the gap between the two expected values it shows, and the
    part of it the sampled deals show clearly (the label's), saying why they
    differ; a 好 is never among the costliest moments (tester: "不精确 损失 11.7
    分" beside 110.6 and 186.2 expected, and a "Good" among the costliest)."""
    row = reviews.request_review(finished.pk, owner)
    assert reviews.run(row.pk)
    row.refresh_from_db()
    a, b = (j["index"] for j in row.result["judged"][:2])
    base = {"half": 1, "choices": 3, "made": [], "best": [], "alternatives": []}
    _done_with(row, [
        {**base, "index": a, "label": "inexact", "made_points": 110.6,
         "best_points": 186.2, "loss": 11.7},
        {**base, "index": b, "label": "good", "made_points": 107.0,
         "best_points": 149.7, "loss": 5.6},
    ], costliest=[a, b])  # the second as stored before 好 was left out
    client.force_login(owner)
    html = client.get(reverse("game_review", args=[finished.pk]),
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    costliest = html[html.index('id="review-costliest"'):html.index('id="review-steps"')]
    assert costliest.count('<li data-step="') == 1
    assert "About 75.6 points lost (clearly at least 11.7)" in costliest
    assert "149.7" not in costliest
    assert 'id="review-sure"' in html
    assert "1.5 standard errors" in html
    steps = {s["i"]: s for s in _steps(html)}
    assert steps[a]["judgement"]["gap"] == 75.6
    assert steps[b]["judgement"]["gap"] == 42.7
    zh = client.get(reverse("game_review", args=[finished.pk]),
                    HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "约损失 75.6 分（能确定的至少 11.7 分）" in zh


def test_a_review_with_nothing_to_judge_says_so(finished, owner, client):
    row = reviews.request_review(finished.pk, owner)
    assert reviews.run(row.pk)
    row.refresh_from_db()
    _done_with(row, [], costliest=[])
    client.force_login(owner)
    html = client.get(reverse("game_review", args=[finished.pk]),
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="review-nothing"' in html
    assert "nothing to judge" in html
    assert "No decision lost points clearly" not in html
    assert 'id="review-sure"' not in html


def test_someone_elses_review_is_a_404_that_says_why(finished, outsider, client):
    client.force_login(outsider)
    r = client.get(reverse("game_review", args=[finished.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 404
    assert "Only the game&#x27;s own players may review it." in r.content.decode()


def test_each_game_of_ones_own_history_links_to_its_review(finished, owner, outsider, client):
    client.force_login(owner)
    html = client.get(reverse("history")).content.decode()
    assert f'href="{reverse("game_review", args=[finished.pk])}"' in html
    client.force_login(outsider)
    other = client.get(reverse("user_history", args=[owner.username])).content.decode()
    assert "history-review" not in other
