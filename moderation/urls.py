"""URLs of the moderator console, mounted at ``/mod/``."""

from django.urls import path

from moderation import views

urlpatterns = [
    path("", views.console, name="mod_console"),
    path("tables.json", views.tables_json, name="mod_tables_json"),
    path("tables/<int:table_id>/", views.table_detail, name="mod_table"),
    path("tables/<int:table_id>/<str:action>/", views.table_action, name="mod_table_action"),
    path("users/", views.users, name="mod_users"),
    path("users/<str:username>/", views.user_detail, name="mod_user"),
    path("users/<str:username>/<str:action>/", views.user_action, name="mod_user_action"),
    path("settings/", views.settings_page, name="mod_settings"),
    path("audit/", views.audit, name="mod_audit"),
    path("reports/", views.report_list, name="mod_reports"),
    path("reports/<int:report_id>/", views.report_detail, name="mod_report"),
    path("flags/", views.flags, name="mod_flags"),
]
