"""Websocket URL routes (served by Daphne through ``yuanzi_site.asgi``).

A table route takes any path segment, not only ``<int:...>``: ``/ws/table/-1/``
or a table id of 8,000 digits would otherwise find no route, which Channels
raises as an exception (an HTTP 500 handshake, the whole path in the log).
``TableConsumer`` accepts such a connection and closes it with 4404 like an
unknown table; any other path under ``ws/`` does the same, never an HTTP 500.
"""

from django.urls import path, re_path

from games.adapters import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/me/", consumers.PersonConsumer.as_asgi()),
    path("ws/table/<str:table_id>/", consumers.TableConsumer.as_asgi()),
    re_path(r"", consumers.NoSuchRoute.as_asgi()),
]
