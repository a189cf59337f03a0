"""The daily challenge's day: its date, committed seed, boards' deals and bot
(每日挑战, RULES.md §2, §12 "Daily challenge"; docs/fairness.md has the recipe).

A day is an Asia/Shanghai date (``settings.CHALLENGE_TIME_ZONE``). Its row is
made on first use (:func:`get_day`, safe against a concurrent maker) or by the
periodic job (``contests.challenge_tasks.tick``), with a server seed of 32 random
bytes (64 hex characters) from :mod:`secrets` whose SHA-256 (the commitment) is
shown from the start; the seed itself is shown once the day closes (00:30 the
next day, :func:`close_time`).

Board ``b`` (1–8) is the first half the engine deals (``games.engine.deal_half``,
RULES.md §2: indicator, dao, first seat dealt to, 41/41/40/40 hands) from the
board seed ``SHA-256(server_seed ":" date ":" b)`` in hex, ``date`` as
``YYYY-MM-DD`` (:func:`board_seed`). The other three seats are played by the
strongest bot (:func:`strongest_bot`), recorded with a fingerprint of its code.
"""

from __future__ import annotations

import hashlib
import inspect
import secrets
from datetime import date, datetime, time, timedelta
from functools import cache
from importlib import import_module
from typing import cast
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from contests.models import ChallengeDay
from games import engine
from games.engine.policies import POLICIES
from games.engine.shapes import BOT_POLICIES, BotPolicy, State

#: seat of the player; the bot plays the others (North is the partner)
PLAYER_SEAT = 2


def zone() -> ZoneInfo:
    """The challenge's time zone (``settings.CHALLENGE_TIME_ZONE``)."""
    return ZoneInfo(settings.CHALLENGE_TIME_ZONE)


def local_date(now: datetime | None = None) -> date:
    """The challenge's date at ``now`` (default: now) in its time zone."""
    return (now or timezone.now()).astimezone(zone()).date()


def close_time(day: date) -> datetime:
    """When ``day`` closes: 00:30 (``CHALLENGE_CLOSE_AFTER_MIDNIGHT_MINUTES``)
    of the next day, in the challenge's time zone (an aware datetime)."""
    midnight = datetime.combine(day + timedelta(days=1), time(0, 0), tzinfo=zone())
    return midnight + timedelta(minutes=settings.CHALLENGE_CLOSE_AFTER_MIDNIGHT_MINUTES)


def strongest_bot() -> str:
    """The bot of a new day: ``master`` if the site has it, else ``expert``
    (``games.engine.shapes.BOT_POLICIES``)."""
    return "master" if "master" in BOT_POLICIES else "expert"


#: the engine modules every strong bot's decisions come from (with the policy's own)
BOT_MODULES = ("games.engine.bots", "games.engine.expert", "games.engine.endgame",
               "games.engine.moves", "games.engine.combos")


@cache
def bot_version(policy: str) -> str:
    """A fingerprint of ``policy``'s code: the first 16 hex characters of the
    SHA-256 of the sources of its module and :data:`BOT_MODULES` (a change to
    any of them makes a new version)."""
    names = sorted({POLICIES[policy].__module__, *BOT_MODULES})
    digest = hashlib.sha256()
    for name in names:
        digest.update(inspect.getsource(import_module(name)).encode())
    return digest.hexdigest()[:16]


def commitment(server_seed: str) -> str:
    """SHA-256 of the server seed's UTF-8 bytes, in hex (64 characters)."""
    return hashlib.sha256(server_seed.encode()).hexdigest()


def board_seed(server_seed: str, day: date, number: int) -> str:
    """The seed board ``number`` is dealt from: ``SHA-256(server_seed ":"
    date ":" number)`` in hex, ``date`` as ``YYYY-MM-DD``.

    >>> board_seed("00", date(2026, 1, 2), 1)[:12]
    '714c2baf22aa'
    """
    return hashlib.sha256(f"{server_seed}:{day.isoformat()}:{number}".encode()).hexdigest()


def board_deal(server_seed: str, day: date, number: int) -> engine.Deal:
    """Board ``number``'s deal: the engine's first half from :func:`board_seed`
    (RULES.md §2)."""
    return engine.deal_half(board_seed(server_seed, day, number), 1)


def new_board_state(day: ChallengeDay, number: int) -> State:
    """The engine state a board starts from: the game dealt from its seed, the
    day's bot in seats 0, 1 and 3, the player in seat 2 (a practice game, §7).

    :raises ValueError: for a board number outside 1–8.
    """
    if not 1 <= number <= settings.CHALLENGE_BOARDS:
        raise ValueError(f"no board {number!r}")
    bot = cast(BotPolicy, day.bot_policy)
    return engine.new_game(board_seed(day.server_seed, day.date, number),
                           bots=[bot, bot, None, bot])


def get_day(day: date) -> ChallengeDay:
    """The row of ``day``, made (seed, commitment, bot) if there is none yet.

    Safe against a concurrent maker: the unique date lets one insert win, the
    other reads the winner's row.
    """
    found = ChallengeDay.objects.filter(date=day).first()
    if found is not None:
        return found
    seed = secrets.token_hex(32)
    bot = strongest_bot()
    try:
        with transaction.atomic():
            return ChallengeDay.objects.create(
                date=day, server_seed=seed, commitment=commitment(seed),
                bot_policy=bot, bot_version=bot_version(bot))
    except IntegrityError:  # another process made it first: theirs stands
        return ChallengeDay.objects.get(date=day)


def today(now: datetime | None = None) -> ChallengeDay:
    """Today's day (:func:`get_day` of :func:`local_date`)."""
    return get_day(local_date(now))
