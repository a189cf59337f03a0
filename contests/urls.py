"""URLs of contests, mounted at the site root."""

from django.urls import URLPattern, path

from contests import progress_views

urlpatterns: list[URLPattern] = [
    path("weekly/", progress_views.weekly_page, name="weekly"),
    path("api/weekly", progress_views.api_weekly, name="api_weekly"),
    path("api/tasks", progress_views.api_tasks, name="api_tasks"),
    path("api/tasks/<str:code>/claim", progress_views.api_claim, name="api_task_claim"),
    path("api/users/<str:username>/achievements", progress_views.api_achievements,
         name="api_achievements"),
]
