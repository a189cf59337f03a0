"""Websocket URL patterns, routed by ``yuanzi_site.asgi``. Consumers will be added here."""

websocket_urlpatterns: list = []
