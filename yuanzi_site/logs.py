"""Logs: expected refusals in one short line, and one structured line per
request and per websocket message.

Django logs a 403 (``PermissionDenied``) and a 400 with the exception's whole
traceback, and Daphne's access log writes a request's whole path — 8,000
characters for a made-up table id. A refusal is the site working as meant,
not a fault: :class:`OneLineRefusals` (``LOGGING`` in the settings, on
``django.request``) drops the traceback of every 4xx record and shortens its
arguments; :func:`install` (called by ``yuanzi_site.asgi``, so in every
Daphne process) shortens the access log's request field. 5xx records keep
their tracebacks. :class:`RequestLines` (a middleware) and
:func:`socket_message` (the table socket) write one JSON line per request and
per message handled, with its request or connection id, user, table and
duration (loggers ``yuanzi.requests`` and ``yuanzi.messages``).
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django.http.response import HttpResponseBase

_ID = re.compile(r"[A-Za-z0-9-]{8,64}")  # an X-Request-ID worth keeping

#: the most characters of one request path or argument a log line carries
MAX_FIELD = 200


def shorten(text: str, limit: int = MAX_FIELD) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else f"{text[:limit]}…({len(text)} chars)"


class OneLineRefusals(logging.Filter):
    """A 4xx record of ``django.request``: no traceback, arguments shortened."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
            if isinstance(record.args, tuple):
                record.args = tuple(shorten(a) if isinstance(a, str) else a
                                    for a in record.args)
        return True


def install() -> None:
    """Shorten the request field of Daphne's access log lines."""
    # here, not at the top: the settings' LOGGING loads this module in every
    # process (Celery, manage.py), which need not load Daphne and Twisted
    from daphne.access import AccessLogGenerator

    if getattr(AccessLogGenerator.write_entry, "shortened", False):
        return
    write_entry = AccessLogGenerator.write_entry

    def short_entry(self: AccessLogGenerator, host: str, date: Any, request: str,
                    *args: Any, **kwargs: Any) -> None:
        write_entry(self, host, date, shorten(request), *args, **kwargs)

    # the marker install() looks for (a function's attributes live in its __dict__)
    short_entry.__dict__["shortened"] = True
    AccessLogGenerator.write_entry = short_entry


# --- one structured line per request and per socket message ----------------------------

#: the loggers of the structured lines (JSON objects, one a line; LOGGING in the settings)
REQUESTS = logging.getLogger("yuanzi.requests")
MESSAGES = logging.getLogger("yuanzi.messages")


def line(logger: logging.Logger, **fields: Any) -> None:
    """Log ``fields`` as one JSON line (string values shortened) at INFO."""
    if logger.isEnabledFor(logging.INFO):
        logger.info(json.dumps({k: shorten(v) if isinstance(v, str) else v
                                for k, v in fields.items()}, ensure_ascii=False,
                               separators=(",", ":")))


class RequestLines:
    """Middleware: one line per HTTP request — ``request_id`` (the request's
    ``X-Request-ID`` when it looks like one, as nginx can set it, else a new
    one; echoed in the response's ``X-Request-ID``), ``method``, ``path``, ``status``,
    ``user_id`` (or null), ``ms`` (the view's duration)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        start = time.perf_counter()
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _ID.fullmatch(given) else uuid.uuid4().hex[:16]
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        user = getattr(request, "user", None)
        line(REQUESTS, event="request", request_id=request_id, method=request.method,
             path=request.path, status=response.status_code,
             user_id=user.pk if user is not None and user.is_authenticated else None,
             ms=round((time.perf_counter() - start) * 1000, 1))
        return response


def socket_message(kind: str, outcome: str, user_id: int | None, table_id: int | None,
                   connection: str, ms: float) -> None:
    """One line per websocket message handled (``games.adapters.consumers``):
    ``type``, ``outcome`` (``ok`` or the refusal's reason code), ``user_id``,
    ``table_id``, ``connection`` (the channel name: every line of one socket),
    ``ms``."""
    line(MESSAGES, event="message", type=kind, outcome=outcome, user_id=user_id,
         table_id=table_id, connection=connection, ms=round(ms, 1))
