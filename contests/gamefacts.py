"""What a game's end counts for tasks and achievements (RULES.md §12 "Rated
game"): the facts of each player, read from the ``GameEnd`` (result, the §11
record), the game's stored events (接风) and the shop's facts of the game (an
item used: a 算牌器 or a 定时器 that fired), then counted and awarded in the
game's own transaction (``contests.plugin``).

Only rated games that ended normally or by an escape count, the escaper's
excepted (leaving a game earns nothing); a practice game, or one a moderator
ended, counts nothing.
"""

from __future__ import annotations

from collections import Counter

from django.conf import settings
from django.db.models import Q

from accounts.models import Profile
from contests import achievements, quests
from games import engine
from games.models import GameEvent
from games.plugins import GameEnd
from shop.models import CounterUse, TimerFiring
from social.models import Friendship

#: the end reasons whose rated games count (RULES.md §12)
COUNTING = ("normal", "escape")


def counts(end: GameEnd) -> bool:
    """Does this ending count for tasks and achievements?"""
    return end.rated and end.reason in COUNTING


def facts_of(end: GameEnd) -> dict[int, Counter[str]]:
    """``{user_id: Counter(fact → n)}`` of each human in a counting game
    (:func:`counts`), else ``{}``. Facts: ``rated_game``, ``win``,
    ``double_clamp``, ``first_out``, ``atom``, ``hydrogen``, ``jiefeng``,
    ``friend_game``, ``item_game``; an escaper has none. Three queries."""
    if not counts(end):
        return {}
    escaper = end.result["abandoned_by"] if end.reason == "escape" else None
    # the escaper's game counts for the three who stayed, not for them
    users = {row.index: row.user_id for row in end.seats
             if row.user_id is not None and row.index != escaper}
    facts: dict[int, Counter[str]] = {uid: Counter(rated_game=1) for uid in users.values()}
    _results(end, users, facts)
    _plays(end, users, facts)
    _table_facts(end, users, facts)
    return facts


def _results(end: GameEnd, users: dict[int, int], facts: dict[int, Counter[str]]) -> None:
    """Wins and double clamps (a normal ending's winners), each half's 上游."""
    result = end.result
    for seat, uid in users.items():
        if end.reason == "normal" and result["winner"] == engine.team_of(seat):
            facts[uid]["win"] += 1
            if result["double_clamp"]:
                facts[uid]["double_clamp"] += 1
    for half in end.record["halves"]:
        if half["finish_order"] and half["finish_order"][0] in users:
            facts[users[half["finish_order"][0]]]["first_out"] += 1


def _plays(end: GameEnd, users: dict[int, int], facts: dict[int, Counter[str]]) -> None:
    """Atoms and hydrogen bombs played (the record), 接风 taken (the stored events)."""
    for half in end.record["halves"]:
        for seat, cards in half["actions"]:
            if seat in users and len(cards) in (3, 8):  # atoms and hydrogen bombs only
                play = engine.classify(cards, half["dao"])
                if play is not None and play.kind in (engine.ATOM, engine.HYDROGEN):
                    facts[users[seat]][play.kind] += 1
    for evs in GameEvent.objects.filter(game_id=end.game.pk).values_list("events", flat=True):
        for ev in evs or ():
            if ev.get("type") == "jiefeng" and ev.get("to") in users:
                facts[users[ev["to"]]]["jiefeng"] += 1


def _table_facts(end: GameEnd, users: dict[int, int], facts: dict[int, Counter[str]]) -> None:
    """A friend at the table (social), an item used in the game (the shop's facts)."""
    ids = list(users.values())
    for uid in set(Friendship.objects.filter(user_id__in=ids, friend_id__in=ids)
                   .values_list("user_id", flat=True)):
        facts[uid]["friend_game"] += 1
    used = (CounterUse.objects.filter(game_id=end.game.pk).values_list("user_id")
            .union(TimerFiring.objects.filter(game_id=end.game.pk).values_list("user_id")))
    for (uid,) in used:
        if uid in facts:
            facts[uid]["item_game"] += 1


def settle(end: GameEnd) -> None:
    """Count each player's facts on today's tasks and award what they earned
    (in the game's transaction, after the rating hook: levels and rated game
    counts are this game's). Pays only accounts with the rated games §12
    asks; an account that reaches them in this game is paid what it earned
    before."""
    facts = facts_of(end)
    if not facts:
        return
    figures = {uid: (rated, points) for uid, rated, points in Profile.objects.filter(
        Q(user_id__in=list(facts))).values_list("user_id", "counted_games", "rating_points")}
    held = achievements.held_by(facts)
    needed = int(settings.CONTESTS_REWARD_MIN_RATED_GAMES)
    for uid in sorted(facts):  # the lock order: ascending user id
        for fact, n in facts[uid].items():
            quests.count(uid, fact, n)
        rated, points = figures.get(uid, (0, 0))
        codes = achievements.earned_by_facts(facts[uid], rated, points)
        mine = held.get(uid, {})
        if codes - mine.keys() or (rated >= needed and not all(mine.values())):
            achievements.award(uid, codes, mine, rated >= needed)
