"""复盘: a review of one seat's decisions in a finished game (RULES.md §4–§5, §11, §12).

``review_game(record, seat, thresholds) -> Review`` judges each of ``seat``'s
own decisions that had at least two legal actions, **from the information that
seat had** (its hand, the card counts and the public plays of the half: the
:func:`~games.engine.view.bot_view` of that moment), never from the hands the
record reveals:

1. **Alternatives.** The play made, and the expert's best few actions for that
   position (:func:`games.engine.expert.rules`, ``width`` of them, passing
   included when following).
2. **Sampling.** ``samples`` deals (more late in the half, as a counted
   ``budget`` of play-out actions allows) of the unseen cards (162 − own hand − the
   half's plays) to the other seats, each hand its exact count, leaning the way
   the plays and passes say (:func:`games.engine.master.infer` and
   :func:`~games.engine.master.sample_hands`: what an attentive player in that
   seat could read).
3. **Play-outs.** On every sampled deal each alternative is played, then the
   rest of the half by the expert without its search (:data:`PLAYOUT`) in all
   four seats; its worth is the seat's team's points for the half after §5
   (0–300). All alternatives meet the same deals, so their differences carry
   little of the deals' luck.
4. **Label.** The expected points lost against the best alternative, less
   :data:`SURE` standard errors of that estimate (never below 0), labels the
   decision by :class:`Thresholds`: 好 ``good`` under ``inexact``,
   不精确 ``inexact`` under ``mistake``, 失误 ``mistake`` under ``blunder``,
   大错 ``blunder`` at or above it.

The randomness of each decision's review is seeded by the game's seed, the seat
and the decision's place in the log (``"review:<seed>:<seat>:<index>"``), and
the play-outs draw nothing, so a re-run gives the identical review; ``salt``
changes every seed (two seeds' agreement is a benchmark: ``bench/review.py``).
The cost is counted (samples × alternatives × play-outs to the half's end),
never timed.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from .combos import classify
from .deal import team_of
from .endgame import state_from_view
from .errors import ArgumentError
from .expert import WEIGHTS, Situation, rules
from .master import infer, play_out_half, sample_hands
from .moves import legal_plays
from .record import from_record, record_actions
from .shapes import Action, BotView, Record, State
from .view import bot_view

SAMPLES = 8
"""Sampled deals per judged decision, at least (see :data:`BUDGET`)."""
BUDGET = 4000
"""Play-out actions per judged decision, counting a play-out as long as the
cards left in the four hands: late in a half, where play-outs are short, this
buys more deals than :data:`SAMPLES` (up to :data:`MAX_SAMPLES`). With
:data:`SAMPLES`, :data:`SURE` and the expert's play-outs, a whole game's review
takes about 40 s of one core and two seeds agree on 90 % of labels
(docs/bench.md)."""
WIDTH = 3
"""The expert's best actions judged beside the play made."""
PLAYOUT = "expert"
"""Who plays the rest of the half in the play-outs: ``"expert"`` (the expert
without its search, faithful) or ``"normal"`` (the normal bot, about six times
faster, cruder)."""
SURE = 1.5
"""A loss counts only beyond this many standard errors of its sampled estimate
(the paired differences over the sampled deals), so a label says what the
deals show clearly and two seeds agree."""
MAX_SAMPLES = 64
"""At most this many deals per decision when a ``budget`` buys more."""
MAX_PLAYOUT = 600
"""A play-out longer than this many actions is cut (real halves take ~150)."""

LABELS = ("good", "inexact", "mistake", "blunder")
"""The labels, best first: 好, 不精确, 失误, 大错."""
LABELS_ZH = {"good": "好", "inexact": "不精确", "mistake": "失误", "blunder": "大错"}
"""The Chinese name of each label."""


@dataclass(frozen=True)
class Thresholds:
    """Expected team points lost (per half, 0–300) at which a decision becomes
    不精确 (``inexact``), 失误 (``mistake``) and 大错 (``blunder``); the site
    keeps them in its settings. Must rise: ``0 < inexact ≤ mistake ≤ blunder``.

    :raises ArgumentError: ``bad_thresholds`` otherwise.
    """

    inexact: float = 10.0
    mistake: float = 25.0
    blunder: float = 50.0

    def __post_init__(self) -> None:
        if not 0 < self.inexact <= self.mistake <= self.blunder:
            raise ArgumentError(
                "bad_thresholds",
                f"need 0 < inexact ≤ mistake ≤ blunder, got {self.inexact}, "
                f"{self.mistake}, {self.blunder}")

    def label(self, loss: float) -> str:
        """The label of a decision that lost ``loss`` expected points."""
        if loss < self.inexact:
            return "good"
        if loss < self.mistake:
            return "inexact"
        if loss < self.blunder:
            return "mistake"
        return "blunder"


DEFAULT_THRESHOLDS = Thresholds()
"""Thresholds for tests and benchmarks (the site passes its settings')."""


@dataclass(frozen=True)
class Judgement:
    """One judged decision.

    ``index``: its place in the game's action log (:func:`record_actions`
    order, both halves); ``half``: 1 or 2; ``choices``: legal actions the seat
    had; ``made`` / ``best``: the action taken and the best judged; ``made_points``
    / ``best_points``: their expected team points for the half (0–300);
    ``loss``: ``best_points − made_points`` less :data:`SURE` standard errors
    (≥ 0; ``best`` is ``made`` when no alternative clearly beats it); ``label``: one of
    :data:`LABELS`; ``alternatives``: every judged action with its expected points,
    best first.
    """

    index: int
    half: int
    choices: int
    made: Action
    best: Action
    made_points: float
    best_points: float
    loss: float
    label: str
    alternatives: list[tuple[Action, float]] = field(default_factory=list)


@dataclass(frozen=True)
class Review:
    """A seat's review: its ``judgements`` in game order, ``accuracy`` (the share
    labelled 好, 0–1; 1.0 with nothing to judge) and ``costliest``, the (at most
    three) judgements labelled worse than 好 that lost the most expected points,
    costliest first."""

    seat: int
    judgements: list[Judgement]
    accuracy: float
    costliest: list[Judgement]


def _key(action: Action) -> tuple[str, ...]:
    return tuple(sorted(cast(dict[str, Any], action).get("cards", [])))


def choices_of(view: BotView) -> int:
    """How many legal actions the seat of ``view`` has (every legal play, and the
    pass when following; RULES.md §4)."""
    hand = view["hand"]
    assert hand is not None
    last = view["trick"]["last"]
    table = None if last is None else classify(last[1], view["dao"])
    return len(legal_plays(hand, table, view["dao"])) + (table is not None)


def _playout(start: State, seat: int, action: Action, team: int, policy: str) -> float:
    """Play ``action`` then the rest of the half; the team's points for it (§5),
    150 (half of 300) for a play-out cut at :data:`MAX_PLAYOUT` actions."""
    end = play_out_half(start, seat, action, policy, _NO_RNG, MAX_PLAYOUT)
    return 150.0 if end is None else float(end["halves"][-1]["points"][team])


_NO_RNG = random.Random(0)  # the play-out policies draw nothing from it


def judge(
    view: BotView, made: Action, rng: random.Random, thresholds: Thresholds = DEFAULT_THRESHOLDS,
    samples: int = SAMPLES, width: int = WIDTH, playout: str = PLAYOUT, index: int = 0,
    sure: float | None = None, budget: int | None = BUDGET,
) -> Judgement:
    """Judge the action ``made`` in the position of ``view`` (a bot_view: what the
    seat knew; see the module docstring).

    :param rng: the source of the sampled deals (seed it for a reproducible judgement).
    :param sure: standard errors taken off a loss (default :data:`SURE`).
    :param budget: (default :data:`BUDGET`; ``None``: ``samples`` everywhere)
        more deals where play-outs are short: as many as
        ``budget`` play-out actions allow (the cards in the four hands standing
        for a play-out's length), at least ``samples`` and at most
        :data:`MAX_SAMPLES`; a count, never a time.
    :raises ArgumentError: ``bad_seat`` for a spectator's view.
    """
    seat, hand = view["seat"], view["hand"]
    if seat is None or hand is None:
        raise ArgumentError("bad_seat", "a review judges a seat: a spectator's view has no hand")
    sit = Situation(view, WEIGHTS)
    table = sit.table
    plays = legal_plays(hand, table, sit.dao)
    alts: list[Action] = [made]
    for _score, action in rules(sit, plays):
        if len(alts) > width:
            break
        if all(_key(action) != _key(a) or action["type"] != a["type"] for a in alts):
            alts.append(action)
    team = team_of(seat)
    weights = infer(view)
    values: list[list[float]] = [[] for _ in alts]
    if budget is not None:
        per = len(alts) * max(4, sum(view["counts"]))
        samples = max(samples, min(MAX_SAMPLES, budget // per))
    for _ in range(samples):
        hands = sample_hands(view, sit.unseen, weights, rng)
        start = state_from_view(view, hands)
        for i, action in enumerate(alts):
            values[i].append(_playout(start, seat, action, team, playout))
    means = [statistics.fmean(v) if v else 0.0 for v in values]
    # the loss against each alternative, less one standard error of the paired
    # differences: only what the sampled deals show clearly counts
    sure = SURE if sure is None else sure
    losses = [0.0] * len(alts)
    for i in range(1, len(alts)):
        d = [a - b for a, b in zip(values[i], values[0], strict=True)]
        if len(d) >= 2:
            se = statistics.stdev(d) / math.sqrt(len(d))
            losses[i] = max(0.0, statistics.fmean(d) - sure * se)
    best = max(range(len(alts)), key=lambda i: (losses[i], -i))
    order = sorted(range(len(alts)), key=lambda i: (-means[i], i))
    return Judgement(
        index=index, half=view["half"], choices=choices_of(view), made=made,
        best=alts[best], made_points=means[0], best_points=means[best], loss=losses[best],
        label=thresholds.label(losses[best]), alternatives=[(alts[i], means[i]) for i in order],
    )


def review_game(
    record: Record, seat: int, thresholds: Thresholds = DEFAULT_THRESHOLDS, *,
    samples: int = SAMPLES, width: int = WIDTH, playout: str = PLAYOUT,
    exclude: Collection[int] = (), salt: str = "", sure: float | None = None,
    budget: int | None = BUDGET, progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review ``seat``'s decisions in the finished game of ``record`` (RULES.md §11).

    :param seat: 0–3, the player whose decisions are judged.
    :param thresholds: the labels' thresholds (the site's settings).
    :param exclude: indices of the action log (:func:`record_actions` order) not
        to judge: the clock's and 托管's actions, which the record does not mark.
    :param salt: changes every decision's seed (for the two-seed agreement benchmark).
    :param sure: standard errors taken off each loss (default :data:`SURE`).
    :param budget: play-out actions per decision, for more deals late in a half
        (default :data:`BUDGET`; see :func:`judge`; ``None``: ``samples`` everywhere).
    :param progress: called ``progress(done, total)`` after each judged decision.
    :returns: the :class:`Review`, judgements in game order.
    :raises ArgumentError: ``bad_seat`` for a seat not 0–3.
    :raises RecordError: for a record that does not replay (:func:`from_record`).
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise ArgumentError("bad_seat", f"no such seat: {seat!r}")
    states = from_record(record)
    steps = record_actions(record)
    todo: list[tuple[int, BotView, Action]] = []
    for i, (s, action) in enumerate(steps):
        if s != seat or action["type"] == "escape" or i in exclude:
            continue
        view = bot_view(states[i], seat)
        if choices_of(view) >= 2:
            todo.append((i, view, action))
    judgements: list[Judgement] = []
    for n, (i, view, action) in enumerate(todo):
        rng = random.Random(f"review:{record['seed']}:{seat}:{i}{salt}")
        judgements.append(
            judge(view, action, rng, thresholds, samples, width, playout, i, sure, budget))
        if progress is not None:
            progress(n + 1, len(todo))
    return summarize(seat, judgements)


def summarize(seat: int, judgements: Sequence[Judgement]) -> Review:
    """The :class:`Review` of ``judgements``: accuracy and the three costliest
    (of those labelled worse than 好: a loss the deals do not show clearly is
    not a costly moment)."""
    good = sum(1 for j in judgements if j.label == "good")
    accuracy = good / len(judgements) if judgements else 1.0
    costly = sorted((j for j in judgements if j.label != "good"),
                    key=lambda j: (-j.loss, j.index))
    return Review(seat, list(judgements), accuracy, costly[:3])
