"""The framework floor for ``bench/load.py --floor``: a bare Channels app doing
only a move's fan-out, nothing else (no database, no rules, no presence).

``/ws/table/<id>/?seat=<0-3>`` (``seat`` absent: a spectator). A connection joins
its table's group and, if seated, its seat's group. ``{"type": "play", "seq": n}``
from a seat sends one ~1 KB ``game`` frame to each of the four seat groups and
one to the table group (which seated connections drop, as the site's did before
views went to each player's own group), each
``{"seq": n + 1, "turn": (seat + 1) % 4, "status": "playing"}``.
``ping`` → ``pong``; ``sync`` → the last view this connection saw.

Run by ``bench/load.py`` as ``daphne bench.floor:application``; the channel
layer is Channels' stock in-memory one (capacity raised to 2,000), or with
``FLOOR_REDIS_URL`` the site's Redis layer (a bare app fails a storm on
channels_redis's default pool: NOTES.md) receiving as channels_redis does
(no pump, ``yuanzi_site.layers``). ``FLOOR_TUNED=1`` gives the floor
what the site does beyond the framework's defaults (the site's in-memory
layer, or the Redis layer's pump; no database-thread hop per relayed frame),
for comparison.
"""

from __future__ import annotations

import asyncio
import os
from urllib.parse import parse_qs

import django
from django.conf import settings

if not settings.configured:
    redis_url = os.environ.get("FLOOR_REDIS_URL")
    if redis_url:
        from yuanzi_site.settings_layers import redis_channel_layer

        layers = {"default": redis_channel_layer(redis_url, prefix="floor")}
        # a bare app's receive (channels_redis's own) unless FLOOR_TUNED
        layers["default"]["CONFIG"]["pump"] = bool(os.environ.get("FLOOR_TUNED"))
    elif os.environ.get("FLOOR_TUNED"):
        from yuanzi_site.settings_layers import memory_channel_layer

        layers = {"default": memory_channel_layer()}
    else:
        layers = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer",
                              "CONFIG": {"capacity": 2000}}}
    settings.configure(INSTALLED_APPS=["channels"], CHANNEL_LAYERS=layers, USE_TZ=True,
                       SECRET_KEY="floor")
    django.setup()

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.urls import path

PAD = "x" * 900  # a site view is about 1 KB


class FloorConsumer(AsyncJsonWebsocketConsumer):
    """One client: fan a move out to the table, as the site does, and nothing more."""

    if os.environ.get("FLOOR_TUNED"):
        async def dispatch(self, message) -> None:
            await getattr(self, get_handler_name(message))(message)

    async def connect(self) -> None:
        self.table = int(self.scope["url_route"]["kwargs"]["table_id"])
        query = parse_qs(self.scope["query_string"].decode())
        self.seat = int(query["seat"][0]) if "seat" in query else None
        self.last = None
        self.groups = [f"t{self.table}"] + ([f"t{self.table}s{self.seat}"]
                                            if self.seat is not None else [])
        for g in self.groups:
            await self.channel_layer.group_add(g, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        for g in self.groups:
            await self.channel_layer.group_discard(g, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        kind = content.get("type")
        if kind == "ping":
            await self.send_json({"type": "pong"})
        elif kind == "sync":
            await self.send_json({"type": "game", "view": self.last})
        elif kind in ("play", "pass") and self.seat is not None:
            view = {"seq": int(content.get("seq", 0)) + 1, "turn": (self.seat + 1) % 4,
                    "status": "playing", "pad": PAD}
            layer = self.channel_layer
            await asyncio.gather(
                *(layer.group_send(f"t{self.table}s{s}", {"type": "game.update", "view": view})
                  for s in range(4)),
                layer.group_send(f"t{self.table}", {"type": "game.spectate", "view": view}),
            )

    async def game_update(self, event) -> None:
        self.last = event["view"]
        await self.send_json({"type": "game", "view": event["view"]})

    async def game_spectate(self, event) -> None:
        if self.seat is None:
            self.last = event["view"]
            await self.send_json({"type": "game", "view": event["view"]})


application = ProtocolTypeRouter({
    "websocket": URLRouter([path("ws/table/<int:table_id>/", FloorConsumer.as_asgi())]),
})
