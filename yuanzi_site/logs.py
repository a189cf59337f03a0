"""Expected refusals log one short line.

Django logs a 403 (``PermissionDenied``) and a 400 with the exception's whole
traceback, and Daphne's access log writes a request's whole path — 8,000
characters for a made-up table id. A refusal is the site working as meant,
not a fault: :class:`OneLineRefusals` (``LOGGING`` in the settings, on
``django.request``) drops the traceback of every 4xx record and shortens its
arguments; :func:`install` (called by ``yuanzi_site.asgi``, so in every
Daphne process) shortens the access log's request field. 5xx records keep
their tracebacks.
"""

from __future__ import annotations

import logging
from typing import Any

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
