"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path

from accounts.views import leaderboard
from yuanzi_site.health import healthz, metrics, readyz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    path("", include("games.urls")),
    path("", include("shop.urls")),
    path("leaderboard/", leaderboard, name="leaderboard"),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("mod/", include("moderation.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
