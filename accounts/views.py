"""Views of the accounts app (sign-up, log-in etc. are django-allauth's)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.models import Profile


def profile(request: HttpRequest, username: str | None = None) -> HttpResponse:
    """Show a player's profile: level, rating points, coins, game counts.

    ``/accounts/profile/<username>/`` is public; ``/accounts/profile/`` shows the
    signed-in user's own profile and sends anonymous visitors to log in.
    The ``recent_games`` context variable is an empty list until the games app
    provides a player's recent games.
    """
    if username is None:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        user = request.user
    else:
        user = get_object_or_404(get_user_model(), username=username)
    player, _ = Profile.objects.get_or_create(user=user)
    context = {
        "player": player,
        "player_user": user,
        "is_self": request.user == user,
        "recent_games": [],
    }
    return render(request, "accounts/profile.html", context)
