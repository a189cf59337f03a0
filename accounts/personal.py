"""你的数据: one person's own data as one JSON download (the account settings'
page ``/accounts/data/``).

Each app contributes its part through the plugin seam
(``GamePlugin.personal_data``): accounts its account, profile, rating entries
and notifications; games the finished games with their records; the shop the
ledger entries, inventory and replays; social the friends, blocks and
requests. Only what the person may see: never another person's coins, never a
running game's record (RULES.md §12).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import User
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from games import plugins

#: the download's format name and version (a new key is not a new version)
FORMAT, VERSION = "yuanzi-personal-data", 1


def export(user: User) -> dict[str, Any]:
    """``{"format", "version", "exported_at" (ISO 8601), ...every plugin's
    keys}`` for ``user`` (``games.plugins.personal_data``)."""
    return {"format": FORMAT, "version": VERSION, "exported_at": timezone.now().isoformat(),
            **plugins.personal_data(user)}


def as_json(user: User) -> str:
    """:func:`export` as UTF-8 JSON text (Chinese kept readable, indented)."""
    return json.dumps(export(user), cls=DjangoJSONEncoder, ensure_ascii=False, indent=1)


def filename(user: User) -> str:
    """The download's file name, e.g. ``yuanzi-data-42-20261202.json`` (the
    account id, not the name: a name may hold any character)."""
    return f"yuanzi-data-{user.pk}-{timezone.now():%Y%m%d}.json"
