"""Forwarded client addresses, trusted only from the configured proxy.

Daphne's ``--proxy-headers`` takes the client's address from the *first*
entry of ``X-Forwarded-For`` whoever sent the request, so a client that sets
the header itself picks its own address — and walks through the sign-up rate
limit per IP (NOTES.md). :func:`install` (called by ``yuanzi_site.asgi``, so
it is in force in every Daphne process, ``manage.py runsite`` or ``daphne``)
replaces Daphne's parser: a forwarded address counts only when the connection
comes from an address in ``TRUSTED_PROXIES``, and then it is the rightmost
entry (the one that proxy wrote; docs/deploy.md's nginx overwrites the
header, so it is the only one). From anyone else the header is ignored and
the peer's own address stands.
"""

from __future__ import annotations

from typing import Any

from daphne import http_protocol, utils, ws_protocol
from django.conf import settings


def forwarded_address(headers: Any, address_header_name: str = "X-Forwarded-For",
                      port_header_name: str = "X-Forwarded-Port",
                      proto_header_name: str = "X-Forwarded-Proto",
                      original_addr: list[str | int] | None = None,
                      original_scheme: str | None = None
                      ) -> tuple[list[str | int] | None, str | None]:
    """Daphne's ``parse_x_forwarded_for`` contract (same arguments, returns
    ``([host, port], scheme)``), trusting the headers only from a trusted proxy."""

    peer = original_addr[0] if original_addr else None
    if not address_header_name or peer not in set(settings.TRUSTED_PROXIES):
        return original_addr, original_scheme
    if isinstance(headers, utils.Headers):
        headers = dict(headers.getAllRawHeaders())
    headers = {name.lower(): values for name, values in headers.items()}
    name = address_header_name.lower().encode()
    if name in headers:
        # the rightmost entry is the one the trusted proxy added
        last = utils.header_value(headers, name).split(",")[-1].strip()
        headers[name] = [last.encode()]
    parsed: tuple[list[str | int] | None, str | None] = utils.parse_x_forwarded_for(
        headers, address_header_name, port_header_name, proto_header_name,
        original_addr, original_scheme)
    return parsed


def install() -> None:
    """Make Daphne's HTTP and websocket protocols use :func:`forwarded_address`."""

    http_protocol.parse_x_forwarded_for = forwarded_address
    ws_protocol.parse_x_forwarded_for = forwarded_address
