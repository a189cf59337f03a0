"""Websocket URL routes (served by Daphne through ``yuanzi_site.asgi``)."""

from django.urls import path

from games import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/me/", consumers.PersonConsumer.as_asgi()),
]
