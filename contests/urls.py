"""URLs of contests, mounted at the site root."""

from django.urls import URLPattern, path, re_path

from contests import arena_views, challenge_views, progress_views

DATE = r"(?P<iso>\d{4}-\d{2}-\d{2})"

urlpatterns: list[URLPattern] = [
    path("weekly/", progress_views.weekly_page, name="weekly"),
    path("api/weekly", progress_views.api_weekly, name="api_weekly"),
    path("api/tasks", progress_views.api_tasks, name="api_tasks"),
    path("api/tasks/<str:code>/claim", progress_views.api_claim, name="api_task_claim"),
    path("api/users/<str:username>/achievements", progress_views.api_achievements,
         name="api_achievements"),
    path("arenas/", arena_views.arenas_page, name="arenas"),
    path("arenas/new/", arena_views.arena_new, name="arena_new"),
    path("arenas/<int:arena_id>/", arena_views.arena_page, name="arena"),
    path("api/arenas", arena_views.api_arenas, name="api_arenas"),
    path("api/arenas/<int:arena_id>", arena_views.api_arena, name="api_arena"),
    re_path(r"^api/arenas/(?P<arena_id>[0-9]+)/(?P<action>join|withdraw|pause|resume)$",
            arena_views.api_arena_action, name="api_arena_action"),
    # 每日挑战 (contests.challenge_views; docs/api.md "Daily challenge")
    path("challenge/", challenge_views.today_page, name="challenge"),
    re_path(rf"^challenge/{DATE}/$", challenge_views.day_page, name="challenge_day"),
    re_path(rf"^challenge/{DATE}/(?P<number>[1-8])/$", challenge_views.board_page,
            name="challenge_board"),
    path("api/challenge/today", challenge_views.api_today, name="api_challenge_today"),
    path("api/challenge/today/start", challenge_views.api_start, name="api_challenge_start"),
    path("api/challenge/board/<int:board_id>", challenge_views.api_board,
         name="api_challenge_board"),
    re_path(r"^api/challenge/board/(?P<board_id>\d+)/(?P<what>sync|act|resume|leave|why)$",
            challenge_views.api_board_write, name="api_challenge_board_write"),
    re_path(rf"^api/challenge/{DATE}$", challenge_views.api_day, name="api_challenge_day"),
]
