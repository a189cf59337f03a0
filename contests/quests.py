"""每日任务, daily tasks (RULES.md §12 "Coin sources", "Rated game").

Each player has three tasks a day (a calendar day in Asia/Shanghai), drawn
deterministically from ``settings.CONTESTS_TASK_POOL`` by the player and the
day (:func:`assigned`: nothing is stored to know them). A task counts one
*fact* (``rated_game``, ``win``, ``first_out`` …) up to its target; facts come
from game ends (``contests.gamefacts``, rated games only) and from other
contest parts through :func:`count` (the daily challenge's ``challenge``).
A done task's coins are claimed by the player (:func:`claim`, once, through
the ledger with ``CoinEntry.Reason.TASK``), and only by an account with
``settings.CONTESTS_REWARD_MIN_RATED_GAMES`` rated games that ended normally or
by an escape (``Profile.counted_games``, RULES.md §12).

Progress is sent live: after the commit, a ``{"type": "task", "task": …}``
frame on the per-user channel (docs/protocol.md) for each task that moved.
"""

from __future__ import annotations

import hashlib
import random
from datetime import date, datetime
from typing import Any, NamedTuple

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy

from accounts import inbox
from accounts.models import Profile
from contests.models import TaskProgress
from contests.weekly import ZONE
from games import events
from shop import ledger
from yuanzi_site.refusals import Refused

#: what each fact's task asks, ``%(n)s`` its target (shown in both languages)
FACT_TEXT: dict[str, Promise] = {
    # the count's plural form is picked when ``% {"n": …}`` fills it
    "rated_game": ngettext_lazy("Play %(n)s rated game", "Play %(n)s rated games", "n"),
    "win": ngettext_lazy("Win %(n)s rated game", "Win %(n)s rated games", "n"),
    "first_out": ngettext_lazy("Go out first (上游) %(n)s time",
                               "Go out first (上游) %(n)s times", "n"),
    "jiefeng": ngettext_lazy("Take the lead by 接风 %(n)s time",
                             "Take the lead by 接风 %(n)s times", "n"),
    "atom": ngettext_lazy("Play %(n)s atom (原子)", "Play %(n)s atoms (原子)", "n"),
    "hydrogen": ngettext_lazy("Play %(n)s hydrogen bomb (氢弹)",
                              "Play %(n)s hydrogen bombs (氢弹)", "n"),
    "friend_game": ngettext_lazy("Play %(n)s rated game with a friend",
                                 "Play %(n)s rated games with a friend", "n"),
    "item_game": ngettext_lazy("Use an item in %(n)s rated game",
                               "Use an item in %(n)s rated games", "n"),
    "challenge": gettext_lazy("Play today's challenge"),
}


class Task(NamedTuple):
    """One task of the pool: ``code`` (its id in the API), the ``fact`` it
    counts, the ``target`` count and the ``reward`` in coins."""

    code: str
    fact: str
    target: int
    reward: int


def pool() -> list[Task]:
    """The configured pool (``settings.CONTESTS_TASK_POOL``), in its order."""
    return [Task(*t) for t in settings.CONTESTS_TASK_POOL]


def today(now: datetime | None = None) -> date:
    """The task day of ``now`` (default: now): its calendar date in Asia/Shanghai."""
    return (now or timezone.now()).astimezone(ZONE).date()


def assigned(user_id: int, day: date) -> list[Task]:
    """The player's tasks of ``day``: ``settings.CONTESTS_TASKS_PER_DAY`` of the
    pool, the same on every call (seeded by SHA-256 of the user id and the
    day), in pool order."""
    tasks = pool()
    seed = hashlib.sha256(f"tasks:{user_id}:{day.isoformat()}".encode()).digest()
    k = min(settings.CONTESTS_TASKS_PER_DAY, len(tasks))
    chosen = set(random.Random(seed).sample(range(len(tasks)), k))
    return [t for i, t in enumerate(tasks) if i in chosen]


def min_rated_games() -> int:
    """Rated games an account needs before tasks and achievements pay (§12):
    rated games that ended normally or by an escape (``Profile.counted_games``;
    one a moderator ended does not count)."""
    return int(settings.CONTESTS_REWARD_MIN_RATED_GAMES)


def _task_text(task: Task) -> str:
    """The task's words in this language, the count's plural form chosen."""
    text = FACT_TEXT.get(task.fact)
    return task.fact if text is None else text % {"n": task.target}


def task_dict(task: Task, progress: int, claimed: bool) -> dict[str, Any]:
    """A task as the API, the frame and the panel show it: ``{"id", "fact",
    "text" (this language), "target", "progress", "reward", "done",
    "claimed"}``."""
    return {"id": task.code, "fact": task.fact,
            "text": _task_text(task),
            "target": task.target, "progress": min(progress, task.target),
            "reward": task.reward, "done": progress >= task.target, "claimed": claimed}


def status(user_id: int, now: datetime | None = None) -> dict[str, Any]:
    """Today's tasks of ``user_id`` (two queries): ``{"day": "YYYY-MM-DD",
    "rated_games": n, "needed": the minimum, "eligible": bool, "tasks": [task_dict]}``."""
    day = today(now)
    tasks = assigned(user_id, day)
    rows = {r.code: r for r in TaskProgress.objects.filter(
        user_id=user_id, day=day, code__in=[t.code for t in tasks])}
    rated = Profile.objects.filter(user_id=user_id).values_list("counted_games", flat=True).first()
    rated = rated or 0
    out = []
    for t in tasks:
        row = rows.get(t.code)
        out.append(task_dict(t, row.progress if row else 0,
                             row is not None and row.claimed_at is not None))
    return {"day": day.isoformat(), "rated_games": rated, "needed": min_rated_games(),
            "eligible": rated >= min_rated_games(), "tasks": out}


def _tell_done(user_id: int, task: Task) -> None:
    """Post the task's ``task_done`` notification, or, before the account's
    rated games let tasks pay (§12), ``task_done_locked``: how many are still
    needed, not "claim" (a tester was told to claim coins the lobby refused)."""
    rated = Profile.objects.filter(user_id=user_id).values_list(
        "counted_games", flat=True).first() or 0
    if rated >= min_rated_games():
        inbox.post(user_id, "task_done", {"reward": task.reward}, link="/")
    else:
        inbox.post(user_id, "task_done_locked", {"reward": task.reward,
                                                 "needed": min_rated_games(), "rated": rated},
                   link="/")


def count(user_id: int, fact: str, n: int = 1, now: datetime | None = None) -> list[str]:
    """Count ``n`` of ``fact`` for ``user_id`` today, in the caller's transaction
    (its cause's). Each of today's tasks counting that fact moves up to its
    target; one that reaches it posts a ``task_done`` notification
    (``task_done_locked`` before the account may claim). The
    caller counts only what §12 lets count (rated games, or the challenge).

    :returns: the codes of the tasks this completed.
    """
    if n <= 0:
        return []
    day = today(now)
    tasks = [t for t in assigned(user_id, day) if t.fact == fact]
    completed: list[str] = []
    if not tasks:  # the common case at a game's end: no query at all
        return completed
    with transaction.atomic():
        for t in tasks:
            row, _created = TaskProgress.objects.select_for_update().get_or_create(
                user_id=user_id, day=day, code=t.code)
            if row.progress >= t.target:
                continue
            row.progress = min(t.target, row.progress + n)
            row.save(update_fields=["progress"])
            if row.progress >= t.target:
                completed.append(t.code)
                _tell_done(user_id, t)
            events.send_user(user_id, {"type": "task", "task": {
                "id": t.code, "progress": row.progress, "target": t.target,
                "done": row.progress >= t.target, "claimed": row.claimed_at is not None}})
    return completed


def claim(user_id: int, code: str, now: datetime | None = None) -> dict[str, Any]:
    """Pay today's done task ``code`` to ``user_id``, once (RULES.md §12).

    The profile's row lock (the site's lock order: Profile, then the task's
    row) and the conditional ``UPDATE … WHERE claimed_at IS NULL``: a parallel
    claim waits, then finds the task claimed.

    :returns: the task's :func:`task_dict`, claimed.
    :raises Refused: ``task_unknown`` (not one of today's tasks),
        ``reward_locked`` (fewer rated games than the minimum; ``needed``,
        ``rated_games``), ``task_not_done``, ``task_claimed``.
    """
    day = today(now)
    task = next((t for t in assigned(user_id, day) if t.code == code), None)
    if task is None:
        raise Refused("task_unknown", _("That is not one of today's tasks."))
    with transaction.atomic():
        # the lock order (Profile before the task's row, as at a game's end, whose
        # rating hook locks the profile before contests count): no deadlock
        rated = Profile.objects.select_for_update().filter(user_id=user_id).values_list(
            "counted_games", flat=True).first() or 0
        if rated < min_rated_games():
            raise Refused("reward_locked",
                          _("Rewards come after %(needed)s rated games; you have played "
                            "%(rated_games)s.") % {"needed": min_rated_games(),
                                                   "rated_games": rated},
                          {"needed": min_rated_games(), "rated_games": rated})
        won = TaskProgress.objects.filter(
            user_id=user_id, day=day, code=code, claimed_at__isnull=True,
            progress__gte=task.target).update(claimed_at=now or timezone.now())
        if not won:
            if TaskProgress.objects.filter(user_id=user_id, day=day, code=code,
                                           claimed_at__isnull=False).exists():
                raise Refused("task_claimed", _("This task's coins were already claimed."))
            raise Refused("task_not_done", _("This task is not done yet."))
        if task.reward:
            ledger.credit(user_id, task.reward, ledger.Reason.TASK,
                          note=f"{day.isoformat()} {code}")
    return task_dict(task, task.target, True)
