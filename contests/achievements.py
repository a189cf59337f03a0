"""成就, achievements (RULES.md §12 "Coin sources"): each earned once per
account, shown on the profile, some with a coin reward
(``settings.CONTESTS_ACHIEVEMENTS``, ``CoinEntry.Reason.ACHIEVEMENT``).

Earned from rated games' facts (``contests.gamefacts``): the first win, atom,
hydrogen bomb, double clamp and 接风; 100 rated games; every level reached.
The periodic job grants a 7-day check-in streak (:func:`grant_checkin_streaks`);
other contest parts grant theirs with :func:`grant` (the challenge's
``challenge_top10``). A reward is paid at once to an account with the rated
games §12 asks, else kept and paid in the game that brings it there
(:func:`pay_pending`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts import inbox
from accounts.levels import level_for
from accounts.models import Profile
from contests.models import Achievement
from shop import ledger
from shop.models import CheckIn

#: every achievement's name (the order of the profile's list)
NAMES: dict[str, Promise | str] = {
    "first_win": _("First win"),
    "first_atom": _("First atom (原子)"),
    "first_hydrogen": _("First hydrogen bomb (氢弹)"),
    "first_double_clamp": _("First double clamp (双夹)"),
    "first_jiefeng": _("First 接风"),
    "games_100": _("100 rated games"),
    "checkin_7": _("A 7-day check-in streak"),
    "challenge_top10": _("A day in the challenge's top 10 %"),
    **{f"level_{n}": format_lazy(_("Reached level {n}"), n=n) for n in range(1, 17)},
}

#: the fact of a rated game that earns each "first …" achievement
FIRSTS = {"win": "first_win", "atom": "first_atom", "hydrogen": "first_hydrogen",
          "double_clamp": "first_double_clamp", "jiefeng": "first_jiefeng"}

GAMES_MILESTONE = 100


def reward_of(code: str) -> int:
    """The coins ``code`` carries (0: none)."""
    return int(settings.CONTESTS_ACHIEVEMENTS.get(code, 0))


def notification_kinds() -> dict[str, Promise | str]:
    """One notification kind per achievement, ``achievement_<code>`` (for
    ``inbox.register_kinds``), and ``achievement_paid``."""
    kinds: dict[str, Promise | str] = {
        f"achievement_{code}": format_lazy(_("Achievement earned: {name}"), name=name)
        for code, name in NAMES.items()}
    kinds["achievement_paid"] = _("Your achievements paid %(coins)s coins.")
    return kinds


def earned_by_facts(facts: Iterable[str], rated_games: int, rating_points: int) -> set[str]:
    """The achievements a rated game's facts and the player's figures after it
    qualify for (whether or not already held)."""
    codes = {FIRSTS[f] for f in facts if f in FIRSTS}
    if rated_games >= GAMES_MILESTONE:
        codes.add("games_100")
    codes.update(f"level_{n}" for n in range(1, level_for(rating_points) + 1))
    return codes


def award(user_id: int, codes: Iterable[str], held: dict[str, bool],
          eligible: bool) -> list[Achievement]:
    """In the caller's transaction, give ``user_id`` each of ``codes`` not in
    ``held`` (code → paid), notify each, pay each reward when ``eligible``;
    when ``eligible``, also pay those ``held`` unpaid. Returns the new rows."""
    new = [Achievement(user_id=user_id, code=c, reward=reward_of(c), paid=eligible)
           for c in sorted(set(codes) - held.keys()) if c in NAMES]
    with transaction.atomic():
        rows = Achievement.objects.bulk_create(new)
        for a in rows:
            inbox.post(user_id, f"achievement_{a.code}", {"reward": a.reward},
                       link="/accounts/profile/")
            if eligible and a.reward:
                ledger.credit(user_id, a.reward, ledger.Reason.ACHIEVEMENT, note=a.code)
        if eligible and not all(held.values()):
            pay_pending(user_id)
    return rows


def pay_pending(user_id: int) -> int:
    """Pay every earned, unpaid reward of ``user_id`` (they now have the rated
    games §12 asks), in the caller's transaction; returns the coins paid."""
    paid = 0
    with transaction.atomic():
        for a in Achievement.objects.select_for_update().filter(user_id=user_id, paid=False):
            if a.reward:
                ledger.credit(user_id, a.reward, ledger.Reason.ACHIEVEMENT, note=a.code)
                paid += a.reward
            a.paid = True
            a.save(update_fields=["paid"])
        if paid:
            inbox.post(user_id, "achievement_paid", {"coins": paid})
    return paid


def held_by(user_ids: Iterable[int]) -> dict[int, dict[str, bool]]:
    """``{user_id: {code: paid}}`` of what each already holds (one query)."""
    out: dict[int, dict[str, bool]] = {}
    for uid, code, paid in Achievement.objects.filter(user_id__in=list(user_ids)).values_list(
            "user_id", "code", "paid"):
        out.setdefault(uid, {})[code] = paid
    return out


def grant(user_id: int, code: str) -> bool:
    """Give ``user_id`` the achievement ``code`` once, in its cause's
    transaction (the challenge's ``challenge_top10``); the reward is paid when
    the account has the rated games §12 asks. Returns whether it was new.

    :raises ValueError: an unknown code.
    """
    if code not in NAMES:
        raise ValueError(f"unknown achievement {code!r}")
    with transaction.atomic():
        # the profile's lock first (as a game's end holds it): a game's end and
        # this grant of the same account run one after the other
        rated = Profile.objects.select_for_update().filter(user_id=user_id).values_list(
            "counted_games", flat=True).first() or 0
        eligible = rated >= int(settings.CONTESTS_REWARD_MIN_RATED_GAMES)
        held = held_by([user_id]).get(user_id, {})
        return bool(award(user_id, [code], held, eligible))


def grant_checkin_streaks() -> int:
    """The periodic job's part: ``checkin_7`` to every account whose check-in
    streak reached 7 and does not hold it yet; returns how many."""
    users = (CheckIn.objects.filter(streak__gte=7)
             .exclude(user__achievements__code="checkin_7")
             .values_list("user_id", flat=True).distinct()[:1000])
    return sum(grant(uid, "checkin_7") for uid in users)


def profile_list(user_id: int) -> list[dict[str, Any]]:
    """A player's achievements as the profile and ``GET
    /api/users/<username>/achievements`` show them (one query): ``[{"code",
    "name" (this language), "earned_at" (ISO), "reward", "paid"}]``, oldest
    first; ``paid`` is false while the reward waits for the account's 10th
    rated game (RULES.md §12)."""
    return [{"code": a.code, "name": str(NAMES.get(a.code, a.code)),
             "earned_at": a.earned_at.isoformat(), "reward": a.reward, "paid": a.paid}
            for a in Achievement.objects.filter(user_id=user_id)]
