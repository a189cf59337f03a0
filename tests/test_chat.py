"""Table chat through its service (``games.chat``): a line of 1–200 characters
after trimming, at a table that exists. Through the socket (rate limit, anonymous
visitors, the history a late arrival gets): tests/test_consumers.py; mutes
and the word filter: tests/test_moderation.py."""

from __future__ import annotations

import pytest

from games import chat
from tests.helpers import refused

pytestmark = pytest.mark.django_db


def test_chat_service_limits(table, owner):
    refused("too_long", chat.chat, table.pk, owner, "x" * 201)
    refused("empty", chat.chat, table.pk, owner, "")
    refused("no_table", chat.chat, 999999, owner, "hi")
    assert chat.chat(table.pk, owner, "  padded  ").text == "padded"
