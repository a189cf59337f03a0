"""ASGI entry point: HTTP through Django, websockets through Channels.

Run with ``daphne yuanzi_site.asgi:application``.
"""

import gc
import os
import sys

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yuanzi_site.settings")

# Set up Django (apps, settings) before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.adapters import drain  # noqa: E402
from games.adapters.routing import websocket_urlpatterns  # noqa: E402
from yuanzi_site import logs, proxy  # noqa: E402
from yuanzi_site.origins import SiteOriginValidator  # noqa: E402

proxy.install()  # Daphne's --proxy-headers: forwarded addresses only from TRUSTED_PROXIES
logs.install()  # the access log's request field shortened
drain.install()  # SIGTERM drains: in-flight actions finish, sockets close with 1012

# Everything made while starting (Django, the apps, the engine's tables: ~120,000
# objects) is moved out of the cyclic collector's sight: a full collection walked
# it all, 150–250 ms every 10–15 s at 50 tables with every thread held, which was
# the moves' p99 (docs/bench.md "The tail at 50 tables"). What is made later is
# collected as before.
gc.collect()
gc.freeze()
# Collections less often: with the default (700, 10, 10) the young generations
# were collected ~20 times a second under 50 tables' moves, every thread held
# 1–27 ms each, and an old-generation pass (20–64 ms) came every 10–15 s; the
# moves' p99 followed them (docs/bench.md "The tail at 50 tables, second look").
# Nearly everything a move makes is freed by reference counting; what cycles
# there are wait longer, in a process with gigabytes to spare.
gc.set_threshold(50_000, 50, 1000)
# The event loop and Channels' one database thread (SQLite, the embedded default)
# hand the GIL to each other several times a move; a thread wanting it waits up
# to the switch interval (5 ms by default) for the holder to let go. 1 ms: the
# moves' p99 at 50 tables 38.5 → 31.2 ms and less CPU a move. With a pool of
# database threads (PostgreSQL) the shorter interval cost more switches than it
# saved (docs/bench.md "The tail at 50 tables, second look").
if not settings.GAMES_DB_THREADS:
    sys.setswitchinterval(0.001)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SiteOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
