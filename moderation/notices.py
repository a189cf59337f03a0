"""维护公告, the site-wide notice (``SiteNotice``): which one is shown now, and
telling every open page when that changes.

:func:`current` is read for every page (the context processor
:func:`page_notice`), so it is cached (``MODERATION_NOTICE_CACHE_SECONDS``) and
the cache is dropped by every save. A save publishes
``games.events.SiteNoticeChanged`` after commit: every open socket (tables,
the lobby, ``/ws/me/``) is sent ``{"type": "site_notice", "notice": … | null}``
(docs/protocol.md), so pages already open show or hide it at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest
from django.utils import timezone

from games import events
from moderation.models import SiteNotice

_KEY = "moderation:site-notice"


def current() -> dict[str, Any] | None:
    """The notice shown now (``SiteNotice.as_frame``), or ``None``; cached."""
    found = cache.get(_KEY)
    if found is None:
        notice = next((n for n in SiteNotice.objects.filter(active=True)[:5] if n.shown()), None)
        found = (notice.as_frame(), notice.until) if notice else (None, None)
        cache.set(_KEY, found, settings.MODERATION_NOTICE_CACHE_SECONDS)
    frame: dict[str, Any] | None = found[0]
    until: datetime | None = found[1]
    if until is not None and until <= timezone.now():
        return None  # it ended since it was cached
    return frame


def _announce() -> None:
    cache.delete(_KEY)
    events.publish(events.SiteNoticeChanged(current()))


def changed(**_: Any) -> None:
    """A notice was saved or deleted: once that commits, forget the cached one
    and tell every open page what is shown now."""
    transaction.on_commit(_announce)


def page_notice(request: HttpRequest) -> dict[str, Any]:
    """Template context for every page: ``site_notice`` (base.html's banner)."""
    return {"site_notice": current()}


def connect() -> None:
    """Listen to saves and deletes (``ModerationConfig.ready``)."""
    post_save.connect(changed, sender=SiteNotice, dispatch_uid="site-notice-saved")
    post_delete.connect(changed, sender=SiteNotice, dispatch_uid="site-notice-deleted")
