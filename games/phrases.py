"""快捷语: quick phrases and emoji reactions a player sends by index
into the server's list, so nothing but the list's own words can go out this
way. The list is ``settings.GAMES_QUICK_PHRASES`` (phrases) followed by
``settings.GAMES_REACTIONS`` (emoji); a phrase goes out as a chat line,
through the chat rate limit and the chat policies (``games.chat``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import chat, wire
from yuanzi_site.refusals import Refused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.models import ChatMessage

DEFAULT_PHRASES = ("快点吧", "配合得好", "好牌！", "不好意思", "再来一局", "谢谢")
DEFAULT_REACTIONS = ("👍", "😄", "😮", "😭", "🎉")


#: the default phrases in the page's language (an English page once showed
#: them in Chinese): each has an English msgid whose Chinese is the phrase itself
LABELS = {
    "快点吧": gettext_lazy("Hurry up!"), "配合得好": gettext_lazy("Well played, partner!"),
    "好牌！": gettext_lazy("Good cards!"), "不好意思": gettext_lazy("Sorry!"),
    "再来一局": gettext_lazy("One more game!"), "谢谢": gettext_lazy("Thanks!"),
}


def phrases() -> list[str]:
    """The phrases, then the reactions: what index ``i`` of a ``phrase`` means."""
    return [*getattr(settings, "GAMES_QUICK_PHRASES", DEFAULT_PHRASES),
            *getattr(settings, "GAMES_REACTIONS", DEFAULT_REACTIONS)]


def labels() -> list[str]:
    """:func:`phrases` as the page shows them, in its language (a phrase the
    site does not know by :data:`LABELS`, and every emoji, as it is). Only the
    words shown change: a phrase still goes out as the list's own text."""
    return [str(LABELS[p]) if p in LABELS else p for p in phrases()]


def reactions_from() -> int:
    """The index of the first reaction (emoji) in :func:`phrases`."""
    return len(getattr(settings, "GAMES_QUICK_PHRASES", DEFAULT_PHRASES))


def say(table_id: int, user: User, index: Any) -> ChatMessage:
    """Post phrase ``index`` as a chat line.

    :param index: as the client sent it: a whole number as
        :func:`games.wire.whole` reads one (``2`` or ``"2"``).
    :raises Refused: ``bad_message`` for an index that is not a number or not
        one of the list; whatever :func:`games.chat.chat` raises.
    """
    items = phrases()
    number = wire.whole(index)
    if number is None or number >= len(items):
        raise Refused("bad_message", _("There is no such quick phrase."))
    return chat.chat(table_id, user, items[number])
