"""URLs of the notification centre (消息), mounted at the site root
(``/notifications/``, ``/api/notifications…``; docs/api.md)."""

from django.urls import path

from accounts import inbox_views

urlpatterns = [
    path("notifications/", inbox_views.notifications_page, name="notifications"),
    path("notifications/<int:pk>/row", inbox_views.notification_row, name="notification_row"),
    path("api/notifications", inbox_views.api_notifications, name="api_notifications"),
    path("api/notifications/read", inbox_views.api_read, name="api_notifications_read"),
]
