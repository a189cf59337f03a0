"""Views of the accounts app (sign-up, log-in etc. are django-allauth's)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import levels, personal, usernames
from accounts.deletion import delete_account
from accounts.forms import AvatarForm, DeleteAccountForm
from accounts.models import AVATARS, LeaderboardEntry, Profile
from games.queries import recent_games
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused


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
        if usernames.is_house(username):  # an arena's pool is no player
            raise Http404("a house account")
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
        "avatars": AVATARS if is_self else (),
    }
    return render(request, "accounts/profile.html", context)


@require_POST
@login_required
def choose_avatar(request: AuthenticatedHttpRequest) -> HttpResponse:
    """POST ``/accounts/avatar/`` with ``avatar`` (a code of
    ``accounts.models.AVATARS``): the avatar shown on seats, lobby rows, lists
    and the profile; anything else changes nothing and says so."""
    form = AvatarForm(request.POST)
    if form.is_valid():
        Profile.objects.filter(user=request.user).update(avatar=form.cleaned_data["avatar"])
        messages.success(request, _("Your avatar is saved."))
    else:
        messages.error(request, _("Choose one of the avatars."))
    return redirect("profile_self")


@require_GET
@login_required
def my_data(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/accounts/data/``: 你的数据, what the download holds and its button;
    ``?download=1`` answers the JSON file itself (``accounts.personal``)."""
    if request.GET.get("download") == "1":
        response = HttpResponse(personal.as_json(request.user),
                                content_type="application/json; charset=utf-8")
        name = personal.filename(request.user)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["Cache-Control"] = "private, no-store"
        return response
    return render(request, "accounts/data.html")


@require_http_methods(["GET", "POST"])
@login_required
def delete_self(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/accounts/delete/``: 注销账号 (RULES.md §12), asking for the password
    (``DeleteAccountForm``). Done: the account is anonymised
    (``accounts.deletion``), this session ends and the home page says so;
    refused while a game of theirs runs (``account_in_game``, said on the page)."""
    form = DeleteAccountForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            delete_account(request.user)
        except Refused as e:
            form.add_error(None, str(e))
        else:
            logout(request)
            messages.success(request, _("Your account was deleted. Goodbye."))
            return redirect("/")
    return render(request, "accounts/delete.html", {"form": form})


def leaderboard(request: HttpRequest) -> HttpResponse:
    """The top 100 from the precomputed ranking, with titles, and your own rank.

    Reads ``LeaderboardEntry`` only (the beat task computes it every minute), in
    a fixed number of queries whatever the number of players; ``pending``: you
    played a rated game the last ranking does not include yet. The win count is
    rated wins (``LeaderboardEntry.games_won`` stores ``Profile.rated_wins``).
    """

    top = list(LeaderboardEntry.objects.select_related("user")[:100])
    for row in top:
        level = levels.level_for(row.rating_points)
        row.title = levels.title_for(level)
        row.title_en = levels.title_en_for(level)
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
