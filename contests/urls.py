"""URLs of contests, mounted at the site root."""

from django.urls import URLPattern, path, re_path

from contests import challenge_views

DATE = r"(?P<iso>\d{4}-\d{2}-\d{2})"

urlpatterns: list[URLPattern] = [
    # 每日挑战 (contests.challenge_views; docs/api.md "Daily challenge")
    path("challenge/", challenge_views.today_page, name="challenge"),
    re_path(rf"^challenge/{DATE}/$", challenge_views.day_page, name="challenge_day"),
    re_path(rf"^challenge/{DATE}/(?P<number>[1-8])/$", challenge_views.board_page,
            name="challenge_board"),
    path("api/challenge/today", challenge_views.api_today, name="api_challenge_today"),
    path("api/challenge/today/start", challenge_views.api_start, name="api_challenge_start"),
    path("api/challenge/board/<int:board_id>", challenge_views.api_board,
         name="api_challenge_board"),
    re_path(r"^api/challenge/board/(?P<board_id>\d+)/(?P<what>sync|act|resume)$",
            challenge_views.api_board_write, name="api_challenge_board_write"),
    re_path(rf"^api/challenge/{DATE}$", challenge_views.api_day, name="api_challenge_day"),
]
