"""Root URL configuration."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.cache import cache_control

from accounts.views import leaderboard
from yuanzi_site.health import healthz, metrics, readyz


@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, asked for by browsers whatever the page links: a
    redirect to the static ``favicon.ico`` (the pages link ``favicon.svg``)."""
    return redirect(static("favicon.ico"))


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    path("", include("games.urls")),
    path("", include("shop.urls")),
    path("", include("social.urls")),
    path("", include("accounts.inbox_urls")),
    path("", include("contests.urls")),
    path("leaderboard/", leaderboard, name="leaderboard"),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("mod/", include("moderation.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("favicon.ico", favicon),
]
