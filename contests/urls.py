"""URLs of contests, mounted at the site root."""

from django.urls import URLPattern, path, re_path

from contests import arena_views, progress_views

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
]
