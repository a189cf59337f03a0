"""复盘 on the site: a player asks for the review of their own decisions in a
finished game, a worker runs it off the request, the page reads it back
(RULES.md §11, §12; the judging is :mod:`games.engine.review`).

What is reviewed is a game's seat, or another app's record through the plugin
seam (:class:`games.plugins.ReviewKind`: a daily challenge board, reviewed once
its day has closed, ``contests.challenge_review``); both go through the same
functions, queue, worker and page, named by ``(kind, ref)``
(:class:`games.plugins.Reviewable`).

* :func:`request` (:func:`request_review` for a game) — the record's own
  player, their own seat, once it may be reviewed (a game once it is over,
  practice games too: their bots are the opponents, only the human's own
  decisions are judged). A stored review is returned as it is (the cache: one
  :class:`~games.models.GameReview` per record and seat); a failed one is
  queued again. At most one queued or running review per player and
  ``GAMES_REVIEW_QUEUE_MAX`` queued on the site, whatever their kinds.
* :func:`run` / :func:`run_next` — the worker's one step: claim a queued row,
  judge, store. Never on a request, Daphne's event loop or the turn ticker:
  the ``review`` Celery queue's own worker (``games.tasks.run_review``) or, in
  the embedded site, ``manage.py reviewworker`` (runsite's child at nice 19,
  polling this table), as ``GAMES_REVIEW_RUNNER`` says.
* :func:`progress_of`, :func:`page_data` — the read side: the progress JSON and
  the page's summary and step-through, built from the record for that seat
  only (its own hand, the others' counts, the public plays: never another
  hand, RULES.md §12).

Errors: :class:`~yuanzi_site.refusals.Refused` (``no_game``, ``not_seated``,
``game_running``, ``review_pending``, ``review_queue_full``; a plugin kind's
own, e.g. ``no_board``, ``challenge_open``).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games import engine, events, plugins, ui
from games.engine.record import record_actions
from games.engine.review import LABELS, SURE, Judgement, Review, Thresholds, review_game
from games.models import Game, GameEvent, GameReview
from games.names import display_name
from games.plugins import Reviewable
from games.roster import players_of
from games.seatview import PlayKind, play_kind, players_game, seat_of
from yuanzi_site.refusals import Refused

log = logging.getLogger(__name__)

ACTIVE = (GameReview.QUEUED, GameReview.RUNNING)
#: asked again after this long queued, a review is sent to its worker again
RESEND = timedelta(seconds=60)


def thresholds() -> Thresholds:
    """The labels' thresholds from ``GAMES_REVIEW_THRESHOLDS`` (inexact,
    mistake, blunder: expected team points lost per half)."""
    return Thresholds(*(float(x) for x in settings.GAMES_REVIEW_THRESHOLDS))


def _game_and_seat(game_id: int, user: Any) -> tuple[Game, int]:
    return players_game(game_id, user, _("Only the game's own players may review it."))


def _game_subject(game_id: int, user: Any) -> Reviewable:
    game, seat = _game_and_seat(game_id, user)
    running = game.status != Game.OVER
    return Reviewable(
        kind=GameReview.GAME, ref=game.pk, seat=seat, user_id=user.pk,
        title=_("Review of game %(id)s") % {"id": game.pk} + f" · {display_name(game.played_name)}",
        names=ui.player_names(players_of(game)),
        links=[(reverse("game_result", args=[game.pk]), _("Back to the result")),
               (reverse("profile_self"), _("My recent games"))],
        not_yet=Refused("game_running", _("A game is reviewed once it is over."))
        if running else None,
        wait_link=(reverse("table", args=[game.table_id]), _("Go to the table"))
        if running else None,
        game=game)


def subject(kind: str, ref: int, user: Any) -> Reviewable:
    """What ``user`` would review as ``(kind, ref)``: a game's seat of theirs
    (``kind`` ``"game"``) or a plugin kind's record of theirs
    (:class:`games.plugins.ReviewKind`).

    :raises Refused: ``not_seated`` for a visitor, ``no_game`` for an unknown
        game or kind, ``not_seated`` for a game they did not play, or the
        plugin kind's own refusal (``no_board``): the views answer 404.
    """
    if user is None or not getattr(user, "is_authenticated", False):
        raise Refused("not_seated", _("Only the game's own players may review it."))
    if kind == GameReview.GAME:
        return _game_subject(ref, user)
    source = plugins.review_kind(kind)
    if source is None:
        raise Refused("no_game", _("There is no such game."))
    return source.find(ref, user)


def _reap_stale() -> None:
    """Running rows whose worker stopped beating are failed (it died): their
    players may ask again."""
    cutoff = timezone.now() - timedelta(seconds=settings.GAMES_REVIEW_STALE_SECONDS)
    GameReview.objects.filter(status=GameReview.RUNNING, beat_at__lt=cutoff).update(
        status=GameReview.FAILED, error="the worker stopped")


def request_review(game_id: int, user: Any) -> GameReview:
    """Ask for the review of ``user``'s own seat in game ``game_id``
    (:func:`request` of kind ``"game"``).

    :raises Refused: as :func:`request`; ``game_running`` before the game is over.
    """
    return request(GameReview.GAME, game_id, user)


def request(kind: str, ref: int, user: Any) -> GameReview:
    """Ask for the review of ``user``'s own seat in the record ``(kind, ref)``;
    returns its row (the stored one if there is one, else a new ``queued`` row,
    announced after commit as :class:`games.events.ReviewQueued` for the review
    worker).

    :raises Refused: :func:`subject`'s (``no_game``, ``not_seated``, ``no_board``
        …); the record's ``not_yet`` (``game_running``: not before the game is
        over; ``challenge_open``: not before a board's day has closed);
        ``review_pending`` (the player has another review queued or running);
        ``review_queue_full`` (``GAMES_REVIEW_QUEUE_MAX`` reviews queued on the
        site). Nothing is queued when it is raised.
    """
    if user is None or not getattr(user, "is_authenticated", False):
        raise Refused("not_seated", _("Only the game's own players may review it."))
    with transaction.atomic():
        # the player's row lock orders their own requests (one active review each)
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        target = subject(kind, ref, user)
        if target.not_yet is not None:
            raise target.not_yet
        _reap_stale()
        row = GameReview.objects.filter(kind=target.kind, ref=target.ref,
                                        seat=target.seat).first()
        if row is not None and row.status != GameReview.FAILED:
            if row.status == GameReview.QUEUED and row.created_at < timezone.now() - RESEND:
                # long queued: its task may be lost; a second one is harmless
                events.publish(events.ReviewQueued(row.pk))
            return row
        if GameReview.objects.filter(user=user, status__in=ACTIVE).exists():
            raise Refused("review_pending", _(
                "Another review of yours is still being made. Ask again when it is done."))
        if GameReview.objects.filter(status=GameReview.QUEUED).count() >= \
                settings.GAMES_REVIEW_QUEUE_MAX:
            raise Refused("review_queue_full", _(
                "Too many reviews are waiting to be made. Try again in a few minutes."),
                {"limit": settings.GAMES_REVIEW_QUEUE_MAX})
        if row is None:
            row = GameReview.objects.create(kind=target.kind, ref=target.ref, game=target.game,
                                            seat=target.seat, user=user)
        else:  # failed before: queued again from the start
            row.status, row.done, row.total, row.error = GameReview.QUEUED, 0, 0, ""
            row.result = row.started_at = row.beat_at = row.finished_at = None
            row.created_at = timezone.now()
            row.save()
        # after commit the scheduler sends it to the review queue's worker
        # (GAMES_REVIEW_RUNNER=celery); the embedded worker polls the table
        events.publish(events.ReviewQueued(row.pk))
    return row


def chosen_by(game: Game, record: engine.Record) -> dict[int, str]:
    """Who chose the game's actions that were not a player's own choice: per
    index of the record's action log (:func:`record_actions` order), ``"bot"``,
    ``"clock"`` or ``"auto"`` (托管), from the ``GameEvent.by`` of the move with
    seq ``index + 1`` (its seat checked against the log's)."""
    steps = record_actions(record)
    out: dict[int, str] = {}
    for seq, seat, by in GameEvent.objects.filter(game=game).values_list("seq", "seat", "by"):
        i = seq - 1
        if by != "player" and 0 <= i < len(steps) and steps[i][0] == seat:
            out[i] = by
    return out


def excluded(game: Game, record: engine.Record) -> set[int]:
    """The indices of the record's action log (:func:`record_actions` order) that
    the player did not choose: the clock's and 托管's (and bots') actions
    (:func:`chosen_by`)."""
    return set(chosen_by(game, record))


def load(row: GameReview) -> tuple[engine.Record, dict[int, str]]:
    """The record a review is of and who chose the actions no player did
    (:func:`chosen_by`; a plugin kind's :attr:`~games.plugins.ReviewKind.load`).

    :raises ValueError: for a kind no plugin owns, or the kind's own (e.g. a
        board whose day has not closed).
    """
    if row.kind == GameReview.GAME:
        game = row.game if row.game is not None else Game.objects.get(pk=row.ref)
        record = game.record or engine.to_record(game.state)
        return record, chosen_by(game, record)
    source = plugins.review_kind(row.kind)
    if source is None:
        raise ValueError(f"no plugin reviews {row.kind!r}")
    return source.load(row.ref)


def _claim(review_id: int) -> bool:
    now = timezone.now()
    return bool(GameReview.objects.filter(pk=review_id, status=GameReview.QUEUED).update(
        status=GameReview.RUNNING, started_at=now, beat_at=now, done=0, total=0))


def run(review_id: int) -> bool:
    """The worker's step: if review ``review_id`` is still queued, claim it (one
    worker wins a race), judge the seat's decisions with the settings' budget
    (``GAMES_REVIEW_SAMPLES``, ``_WIDTH``, ``_PLAYOUT``), updating ``done`` /
    ``total`` after each, and store the result (``done``) or the error
    (``failed``). Returns ``True`` if it ran the review."""
    if not _claim(review_id):
        return False
    row = GameReview.objects.select_related("game").get(pk=review_id)

    def progress(done: int, total: int) -> None:
        GameReview.objects.filter(pk=review_id).update(
            done=done, total=total, beat_at=timezone.now())

    try:
        record, by = load(row)
        steps = record_actions(record)
        mine = {i for i in by if 0 <= i < len(steps) and steps[i][0] == row.seat}
        limits = thresholds()
        review = review_game(
            record, row.seat, limits, samples=settings.GAMES_REVIEW_SAMPLES,
            width=settings.GAMES_REVIEW_WIDTH, playout=settings.GAMES_REVIEW_PLAYOUT,
            budget=settings.GAMES_REVIEW_BUDGET or None,
            exclude=mine, progress=progress)
        result = result_of(review, limits)
    except Exception as e:  # a record that does not replay: say so, keep the worker alive
        log.exception("review %s failed", review_id)
        GameReview.objects.filter(pk=review_id).update(
            status=GameReview.FAILED, error=repr(e)[:200], finished_at=timezone.now())
        return True
    n = len(review.judgements)
    GameReview.objects.filter(pk=review_id).update(
        status=GameReview.DONE, result=result, done=n, total=n, finished_at=timezone.now())
    return True


def run_next() -> bool:
    """Run the oldest queued review (the embedded worker's poll); ``False`` if none."""
    for pk in GameReview.objects.filter(status=GameReview.QUEUED).order_by(
            "created_at", "pk").values_list("pk", flat=True)[:5]:
        if run(pk):
            return True
    return False


def requeue_running() -> int:
    """Put ``running`` rows back in the queue (the embedded worker at its start:
    it is the only one, so a running row is one it was killed in); how many."""
    return GameReview.objects.filter(status=GameReview.RUNNING).update(
        status=GameReview.QUEUED, done=0, total=0)


# --- the stored result and the read side --------------------------------------


def _cards(action: engine.Action) -> list[str]:
    return list(action["cards"]) if action["type"] == "play" else []


def _judgement(j: Judgement) -> dict[str, Any]:
    return {"index": j.index, "half": j.half, "choices": j.choices, "label": j.label,
            "made": _cards(j.made), "best": _cards(j.best),
            "made_points": round(j.made_points, 1), "best_points": round(j.best_points, 1),
            "loss": round(j.loss, 1),
            "alternatives": [[_cards(a), round(p, 1)] for a, p in j.alternatives]}


def result_of(review: Review, limits: Thresholds) -> dict[str, Any]:
    """The stored form of a review (``GameReview.result``): ``seat``, ``accuracy``
    (0–1), ``counts`` per label, ``thresholds`` ``[inexact, mistake, blunder]``,
    ``judged`` (per decision ``index``, ``half``, ``choices``, ``label``,
    ``made`` / ``best`` cards (``[]`` a pass), ``made_points`` / ``best_points``
    / ``loss`` in expected team points, ``alternatives`` ``[[cards, points], …]``)
    and ``costliest`` (their indices, at most three, costliest first)."""
    counts = {label: 0 for label in LABELS}
    for j in review.judgements:
        counts[j.label] += 1
    return {"seat": review.seat, "accuracy": review.accuracy, "counts": counts,
            "thresholds": [limits.inexact, limits.mistake, limits.blunder],
            "judged": [_judgement(j) for j in review.judgements],
            "costliest": [j.index for j in review.costliest]}


def review_of(kind: str, ref: int, user: Any) -> tuple[Reviewable, GameReview | None]:
    """The record ``(kind, ref)`` as ``user``'s to review (:func:`subject`) and
    their stored review (or ``None``).

    :raises Refused: :func:`subject`'s (the views answer 404).
    """
    target = subject(kind, ref, user)
    row = GameReview.objects.filter(kind=target.kind, ref=target.ref, seat=target.seat).first()
    return target, row


def statuses(kind: str, refs: list[int], user: Any) -> dict[int, str]:
    """``{ref: status}`` of ``user``'s own reviews of the records ``refs`` of a
    kind (one query, and one more per review still queued for its place;
    ``none`` where not asked), for a list of buttons (a challenge day's boards)."""
    found = {r: "none" for r in refs}
    if not getattr(user, "is_authenticated", False):
        return found
    for row in GameReview.objects.filter(kind=kind, ref__in=refs, user=user):
        found[row.ref] = progress_of(row)["status"]
    return found


def status_for(game: Game, user: Any) -> str | None:
    """What the result page shows of 复盘 for ``user``: ``None`` for anyone but a
    player of the finished game, else their review's status (``none`` until asked)."""
    if game.status != Game.OVER:
        return None
    seat = seat_of(game, user)
    if seat is None:
        return None
    status: str = progress_of(GameReview.objects.filter(
        kind=GameReview.GAME, ref=game.pk, seat=seat).first())["status"]
    return status


def progress_of(row: GameReview | None) -> dict[str, Any]:
    """The progress JSON: ``{"status": none|queued|running|done|failed, "done",
    "total", "position", "ask_again"}``; ``position`` is the row's place in the
    site's queue (1 = next) while queued, else ``None``; ``ask_again`` is true
    once it has been queued longer than :data:`RESEND` (asking again then sends
    it to its worker once more, :func:`request`), so the page offers that only
    after a real wait."""
    if row is None:
        return {"status": "none", "done": 0, "total": 0, "position": None, "ask_again": False}
    if row.status == GameReview.RUNNING and row.beat_at is not None and \
            row.beat_at < timezone.now() - timedelta(seconds=settings.GAMES_REVIEW_STALE_SECONDS):
        status = GameReview.FAILED  # its worker died; asking again queues it anew
    else:
        status = row.status
    position, ask_again = None, False
    if status == GameReview.QUEUED:
        position = 1 + GameReview.objects.filter(
            status=GameReview.QUEUED, created_at__lt=row.created_at).count()
        ask_again = row.created_at < timezone.now() - RESEND
    return {"status": status, "done": row.done, "total": row.total, "position": position,
            "ask_again": ask_again}


def _kind(cards: list[str], dao: str) -> PlayKind | None:
    play = engine.classify(cards, dao) if cards else None
    return play_kind(play) if play is not None else None


def page_data(row: GameReview) -> dict[str, Any]:
    """The review page's data for a done review's seat: the summary and the
    step-through.

    ``steps``: one per action of the game, the position before it as ``seat``
    saw it — ``half``, ``dao``, ``counts`` (cards per seat), ``trick`` (the
    current trick's ``[seat, cards]`` plays), ``points`` (points captured this
    half: ``[the seat's team, the other]``), ``hand`` (``seat``'s own cards,
    weakest first; only on a step where it changed, the page keeps the last) —
    then the action: ``seat`` (who), ``cards`` (``[]`` a pass), ``escape``,
    ``by`` (player/bot/auto/clock); on the action that ended a half,
    ``half_end``: ``points`` (the half's ``[the seat's team, the other]``
    after the last player's cards and the transfers, RULES.md §5) and, if it
    ended the game played out, ``won``; for a judged decision of ``seat``,
    ``judgement`` (:func:`result_of`'s, with ``made_kind`` / ``best_kind`` and
    ``gap``: ``best_points − made_points``, of which ``loss`` is the part the
    sampled deals show clearly). ``costliest``: the judged decisions labelled
    worse than 好 that lost the most; ``sure``: the standard errors a loss is
    less than its gap (:data:`games.engine.review.SURE`). Built from
    :func:`engine.view` of each running state for ``seat``: no other hand is
    ever in it (RULES.md §12).

    :raises ValueError: the review is not done, or its record cannot be read (:func:`load`).
    """
    if row.result is None:
        raise ValueError("the review is not done")
    result, seat = row.result, row.seat
    record, by = load(row)
    states = engine.from_record(record)
    actions = record_actions(record)
    # gap: the difference of the two expected values shown; loss (≤ gap) is the
    # part of it the sampled deals show clearly, which the label counts
    judged = {j["index"]: {**j, "gap": round(max(0.0, j["best_points"] - j["made_points"]), 1)}
              for j in result["judged"]}
    steps: list[dict[str, Any]] = []
    last_hand: list[str] | None = None
    ours = engine.team_of(seat)
    for i, (who, action) in enumerate(actions):
        v = engine.view(states[i], seat)
        hand = v["hand"] or []
        step: dict[str, Any] = {
            "i": i, "half": v["half"], "dao": v["dao"], "counts": v["counts"],
            "trick": [[s, list(c)] for s, c in v["trick"]["plays"]],
            "points": [sum(p for s, p in enumerate(v["captured"])
                           if (engine.team_of(s) == ours) == mine) for mine in (True, False)],
            "seat": who, "cards": _cards(action),
            "escape": action["type"] == "escape", "by": by.get(i, "player"),
        }
        if hand != last_hand:
            step["hand"] = last_hand = hand
        after = states[i + 1] if i + 1 < len(states) else None
        if after is not None and len(after["halves"]) > len(states[i]["halves"]):
            # this action ended a half: its points after the transfers (RULES.md §5)
            pts = after["halves"][-1]["points"]
            step["half_end"] = {"points": [pts[ours], pts[1 - ours]]}
            ended = after.get("result")
            winner = ended["winner"] if ended else None
            if after["status"] == engine.OVER and winner is not None:
                step["half_end"]["won"] = winner == ours
        j = judged.get(i)
        if j is not None:
            step["judgement"] = {**j, "made_kind": _kind(j["made"], v["dao"]),
                                 "best_kind": _kind(j["best"], v["dao"])}
        steps.append(step)
    costliest = []
    for index in result["costliest"]:
        j = judged[index]
        if j["label"] == "good":
            continue  # stored before 好 was left out of the costliest
        costliest.append({**j, "step": index,
                          "made_kind": steps[index]["judgement"]["made_kind"],
                          "best_kind": steps[index]["judgement"]["best_kind"]})
    return {"seat": seat, "accuracy": round(100 * result["accuracy"]),
            "counts": result["counts"], "thresholds": result["thresholds"],
            "judged": len(result["judged"]), "costliest": costliest, "steps": steps,
            "sure": SURE}
