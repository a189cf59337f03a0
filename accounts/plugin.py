"""What accounts do to a game (``settings.GAME_PLUGINS``): at its end, rating
settlement (RULES.md §7); a person's account, profile, rating entries and
notifications in their data download (``accounts.personal``).

Runs inside the transaction that ends the game, once per game, before the
shop's wagers (which read this game's rating changes). Rated games move rating
points through ``RatingEntry`` rows (the escaper's penalty included); every
human's game counts move (``rated_wins`` and ``double_clamps`` only for rated
games: the profile shows them beside ``rated_games``, and a practice game
changes nothing, RULES.md §7). The engine's
``rating_changes`` are already zero for a practice game and for a moderator's
close, kick or suspension (RULES.md §12).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import F

from accounts.models import Notification, Profile, RatingEntry
from games import engine, events
from games.plugins import GameEnd, GamePlugin


class AccountsPlugin(GamePlugin):
    """Rating points and game counts at a game's end."""

    def on_game_end(self, end: GameEnd) -> None:
        """Move each human player's rating points and game counts for ``end``."""
        settle_rating(end)

    def personal_data(self, user: User) -> dict[str, Any]:
        """``account``, ``profile``, ``rating_entries`` and ``notifications``."""
        return account_data(user)


def settle_rating(end: GameEnd) -> None:
    """Move each human player's rating points and game counts (RULES.md §7)."""
    result = end.result
    winner = result["winner"]
    # rating points (and so level and title) change: every player's header, live
    events.me_changed(row.user_id for row in end.seats if end.rated)
    for row in sorted(end.seats, key=lambda r: r.user_id or 0):  # lock order: ascending user id
        if row.user_id is None:
            continue
        seat = row.index
        delta = result["rating_changes"][seat]
        won = winner is not None and engine.team_of(seat) == winner
        rated = end.rated
        Profile.objects.filter(user_id=row.user_id).update(
            rating_points=F("rating_points") + delta,
            games_played=F("games_played") + 1,
            rated_games=F("rated_games") + int(rated),
            games_won=F("games_won") + int(won),
            rated_wins=F("rated_wins") + int(won and rated),
            # double clamps won in rated games, as rated_wins (RULES.md §7: a
            # practice game changes nothing; a tester's practice 双夹 was counted)
            double_clamps=F("double_clamps") + int(won and rated and result["double_clamp"]),
        )
        if delta:
            reason = RatingEntry.ESCAPE if result["abandoned_by"] == seat else RatingEntry.GAME
            RatingEntry.objects.create(
                user_id=row.user_id, game_id=end.game.pk, delta=delta, reason=reason
            )


def account_data(user: User) -> dict[str, Any]:
    """``user``'s own account rows as JSON-able data (their data download):
    ``{"account": {"username", "email", "date_joined", "last_login"},
    "profile": {…counts, "coins", "avatar"}, "rating_entries": [{"game",
    "delta", "reason", "created_at"}], "notifications": [{"kind", "params",
    "link", "created_at", "read"}]}``; times ISO 8601. Three queries."""
    profile = Profile.objects.filter(user=user).first()
    return {
        "account": {"username": user.username, "email": user.email,
                    "date_joined": user.date_joined.isoformat(),
                    "last_login": user.last_login.isoformat() if user.last_login else None},
        "profile": None if profile is None else {
            "rating_points": profile.rating_points, "level": profile.level,
            "coins": profile.coins, "coins_held": profile.coins_held,
            "games_played": profile.games_played, "rated_games": profile.rated_games,
            "games_won": profile.games_won, "rated_wins": profile.rated_wins,
            "double_clamps": profile.double_clamps, "avatar": profile.avatar_code},
        "rating_entries": [
            {"game": game, "delta": delta, "reason": reason, "created_at": at.isoformat()}
            for game, delta, reason, at in RatingEntry.objects.filter(user=user)
            .order_by("created_at", "pk").values_list("game_id", "delta", "reason", "created_at")],
        "notifications": [
            {"kind": kind, "params": params, "link": link, "created_at": at.isoformat(),
             "read": read is not None}
            for kind, params, link, at, read in Notification.objects.filter(user=user)
            .order_by("created_at", "pk").values_list("kind", "params", "link", "created_at",
                                                      "read_at")],
    }
