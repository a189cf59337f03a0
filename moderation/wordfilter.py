"""The chat filter: moderator-edited blocked words, matched as
substrings (Chinese has no word boundaries), case-insensitively; the game's own
vocabulary (原子, 原子弹, 氢弹, 刀, 炸弹 and the level titles) is never masked,
even where a blocked word overlaps it.

Chat is stored raw and masked when sent; usernames at sign-up and table names
are refused outright when they contain a blocked word.
"""

from __future__ import annotations

from django.core.cache import cache

from accounts import levels
from moderation.models import BlockedWord

CACHE_KEY = "moderation:blocked-words"
MASK = "＊"


def vocabulary() -> tuple[str, ...]:
    """The words never masked: the game's terms and every level title (zh, en)."""
    titles = [r.title for r in levels.LEVELS] + [r.title_en for r in levels.LEVELS]
    return ("原子弹", "原子", "氢弹", "炸弹", "刀", *titles)


def blocked_words() -> list[str]:
    """The blocked words, lower-cased (cached; :func:`forget` after edits)."""
    words: list[str] | None = cache.get(CACHE_KEY)
    if words is None:
        words = [w.lower() for w in BlockedWord.objects.values_list("word", flat=True) if w]
        cache.set(CACHE_KEY, words, 300)
    return words


def forget() -> None:
    """Drop the cached word list (after a moderator's edit)."""
    cache.delete(CACHE_KEY)


def _protected(text: str) -> list[bool]:
    low = text.lower()
    keep = [False] * len(text)
    for term in vocabulary():
        t = term.lower()
        start = low.find(t)
        while start >= 0:
            for i in range(start, start + len(t)):
                keep[i] = True
            start = low.find(t, start + 1)
    return keep


def masked(text: str, words: list[str] | None = None) -> str:
    """``text`` with every blocked word's characters replaced by ``＊``, except
    characters inside the game's vocabulary.

    >>> masked("你这个笨蛋", ["笨蛋"])
    '你这个＊＊'
    >>> masked("原子弹!", ["原子"])
    '原子弹!'
    """
    words = blocked_words() if words is None else words
    if not words or not text:
        return text
    low = text.lower()
    hit = [False] * len(text)
    for w in words:
        start = low.find(w)
        while start >= 0:
            for i in range(start, start + len(w)):
                hit[i] = True
            start = low.find(w, start + 1)
    if not any(hit):
        return text
    keep = _protected(text)
    return "".join(MASK if h and not k else c for c, h, k in zip(text, hit, keep, strict=True))


def is_clean(text: str, words: list[str] | None = None) -> bool:
    """Whether ``text`` holds no blocked word (outside the vocabulary)."""
    return masked(text, words) == text
