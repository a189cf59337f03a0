"""The websocket handshake's Origin check: the whole origin — scheme, host and
port — must be one of the site's (Channels'
``AllowedHostsOriginValidator`` compares the host only, so
``http://127.0.0.1:9999`` and ``https://localhost`` passed).

Allowed: an origin listed in ``SITE_ORIGINS`` (e.g. ``https://yuanzi.example``),
or the handshake's own origin — ``http://`` (``https://`` for ``wss``, or when
``USE_X_FORWARDED_PROTO`` and the proxy says ``https``) plus the ``Host``
header — when that host is in ``ALLOWED_HOSTS``. Anything else, or no Origin
at all, is refused at the handshake (Daphne answers HTTP 403).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

#: an ASGI connection's scope, receive and send (asgiref's TypedDicts are
#: narrower than what Channels hands over)
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _header(scope: Scope, name: bytes) -> str | None:
    headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
    for key, value in headers:
        if key == name:
            return value.decode("latin1")
    return None


def origin_allowed(scope: Scope) -> bool:
    """Whether the handshake in ``scope`` comes from one of the site's origins."""
    origin = _header(scope, b"origin")
    if not origin:
        return False
    origin = origin.rstrip("/").lower()
    if origin in {o.rstrip("/").lower() for o in settings.SITE_ORIGINS}:
        return True
    host = (_header(scope, b"host") or "").lower()
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    # "https": Daphne's --proxy-headers copies a trusted proxy's X-Forwarded-Proto
    secure = scope.get("scheme") in ("wss", "https") or (
        getattr(settings, "SECURE_PROXY_SSL_HEADER", None) is not None
        and (_header(scope, b"x-forwarded-proto") or "").lower() == "https")
    return origin == f"{'https' if secure else 'http'}://{host}"


class SiteOriginValidator:
    """ASGI middleware: refuse a websocket whose Origin is not the site's."""

    def __init__(self, application: ASGIApp) -> None:
        self.application = application

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            await WebsocketDenier()(scope, receive, send)
            return
        await self.application(scope, receive, send)
