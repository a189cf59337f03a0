"""Views of the accounts app (sign-up, log-in etc. are django-allauth's)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts import levels
from accounts.models import LeaderboardEntry, Profile
from games.queries import recent_games


def profile(request: HttpRequest, username: str | None = None) -> HttpResponse:
    """Show a player's profile: level, rating points, game counts; coins too
    to its owner and moderators only (a balance and the coins a player's
    recent games moved are private; a game's own coin changes stay
    public at its table and on its result page).

    ``/accounts/profile/<username>/`` is public; ``/accounts/profile/`` shows the
    signed-in user's own profile and sends anonymous visitors to log in.
    ``recent_games``: the last 10 finished games (``games.queries.recent_games``).
    """
    if username is None:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        user = request.user
    else:
        user = get_object_or_404(get_user_model(), username=username)
    player, _ = Profile.objects.get_or_create(user=user)
    is_self = request.user == user
    context = {
        "player": player,
        "player_user": user,
        "is_self": is_self,
        # moderators (and superusers) hold use_console; no import of moderation here
        "shows_coins": is_self or request.user.has_perm("moderation.use_console"),
        "recent_games": recent_games(user),
    }
    return render(request, "accounts/profile.html", context)


def leaderboard(request: HttpRequest) -> HttpResponse:
    """The top 100 from the precomputed ranking, with titles, and your own rank.

    Reads ``LeaderboardEntry`` only (the beat task computes it every minute), in
    a fixed number of queries whatever the number of players; ``pending``: you
    played a rated game the last ranking does not include yet. The win count is
    rated wins (``LeaderboardEntry.games_won`` stores ``Profile.rated_wins``).
    """

    top = list(LeaderboardEntry.objects.select_related("user")[:100])
    for row in top:
        row.title = levels.title_for(levels.level_for(row.rating_points))
    mine = None
    if request.user.is_authenticated:
        mine = LeaderboardEntry.objects.filter(user=request.user).first()
    computed_at = top[0].computed_at if top else None
    # a rated game finished since the last minute's ranking: say it is coming
    pending = (mine is None and request.user.is_authenticated
               and Profile.objects.filter(user=request.user, rated_games__gt=0).exists())
    return render(
        request,
        "accounts/leaderboard.html",
        {"rows": top, "mine": mine, "computed_at": computed_at, "pending": pending},
    )
