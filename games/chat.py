"""Table chat, the write side: post a line (its history is read in
:mod:`games.queries`).

Errors: :class:`yuanzi_site.refusals.Refused`; nothing has changed when it is raised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from games import events, plugins
from games.models import ChatMessage, Table
from games.queries import chat_line
from yuanzi_site.refusals import Refused

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def chat(table_id: int, user: User, text: str) -> ChatMessage:
    """Post a chat line at the table (trimmed, at most 200 characters; escaped on
    display). The chat policies (``GamePlugin.filter_chat``: mutes, the word
    filter) are asked first; the raw line is stored, the filtered one sent.

    :raises Refused: ``empty``, ``too_long``, ``no_table``, or a policy's reason.
    """
    text = (text or "").strip()
    if not text:
        raise Refused("empty", _("Say something."))
    if len(text) > ChatMessage.MAX_LENGTH:
        raise Refused("too_long", _("A chat message has at most 200 characters."))
    if not Table.objects.filter(pk=table_id, closed=False).exists():
        raise Refused("no_table", _("This table does not exist or is closed."))
    shown = plugins.filter_chat(table_id, user, text)
    msg = ChatMessage.objects.create(table_id=table_id, user=user, text=text)
    line = plugins.chat_lines(table_id, [{**chat_line(msg), "text": shown}])[0]
    events.publish(events.ChatPosted(table_id, line))
    return msg
