"""Why a play is refused, in one sentence that names the rule (RULES.md
§3–§4), in Chinese or English: the tutorial's explanations and the table's
(a selection that cannot be played, a refused move).

Pure text and engine calls, no database. Sentences are ``(English, 中文)``
pairs (:data:`Text`), as the tutorial's lesson prose is; :func:`say` picks
one for a language code, ``"zh"`` or ``"en"`` (:func:`lang_of` maps Django's).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from games import engine

Text = tuple[str, str]  # (English, 中文)


_HAN = "\u3400-\u4dbf\u4e00-\u9fff"
_CJK_PUNCT = "\u3000-\u303f\uff00-\uffef"  # 、。 and the full-width ，：；（）！？
_LATIN = "A-Za-z0-9§♠♥♣♦"  # ranks, counts, §, suits: set off by one space
_ZH_SPACING = (
    (re.compile(f"[ ]+(?=[{_CJK_PUNCT}])|(?<=[{_CJK_PUNCT}])[ ]+"), ""),
    (re.compile(f"(?<=[{_HAN}])[ ]+(?=[{_HAN}])"), ""),
    (re.compile(f"(?<=[{_HAN}])(?=[{_LATIN}])|(?<=[{_LATIN}])(?=[{_HAN}])"), " "),
)


def zh_spacing(s: str) -> str:
    """Chinese text spaced one way: no space between Chinese words or beside
    Chinese punctuation, one space between Chinese and a rank, count, § or suit
    ("单张 6 不比单张 8 大", "单张（王，当 3）不行"); the play names filled into
    a sentence follow it too."""
    for pattern, repl in _ZH_SPACING:
        s = pattern.sub(repl, s)
    return s


def say(text: Text, lang: str, **values: Any) -> str:
    """``text`` in ``lang`` ("zh" or "en"), ``%(name)s`` placeholders filled
    (Chinese spaced by :func:`zh_spacing`)."""
    s = text[1] if lang == "zh" else text[0]
    s = s % values if values else s
    return zh_spacing(s) if lang == "zh" else s


KIND_NAMES: dict[str, Text] = {
    "single": ("a single", "单张"), "pair": ("a pair", "对子"), "triple": ("a triple", "三连张"),
    "bomb": ("a bomb", "炸弹"), "atom": ("an atom", "原子"), "hydrogen": ("a hydro"
                                                                      "gen bomb", "氢弹"),
}


def rank_text(rank: str) -> str:
    """A rank as the table writes it ("T" is "10")."""
    return "10" if rank == "T" else rank


_SUITS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def play_text(play: engine.Play, lang: str) -> str:
    """A play in words: "a pair of Ks" / "对子 K", "the atom 8♥" / "原子 8♥"."""
    en = lang == "en"
    if play.kind in ("single", "pair", "triple") and play.jokers == play.size:
        return say(KIND_NAMES[play.kind], lang) + (" of jokers (3s)" if en else "（王，当 3）")
    rank = rank_text(play.rank)
    if play.kind == "atom":
        if play.jokers:
            big = play.cards[0] == "RJ"
            return say((("the big-joker atom", "大王原子") if big
                        else ("the small-joker atom", "小王原子")), lang)
        return f"the atom {rank}{_SUITS[play.cards[0][1]]}" if en \
            else f"原子 {rank}{_SUITS[play.cards[0][1]]}"
    if play.kind == "bomb":
        return f"a {play.size}-card bomb of {rank}s" if en else f"{play.size} 张 {rank} 的炸弹"
    if play.kind == "hydrogen":
        return f"a hydrogen bomb of {rank}s" if en else f"{rank} 的氢弹"
    if play.kind == "single":
        return f"a single {rank}" if en else f"单张 {rank}"
    if play.kind == "pair":
        return f"a pair of {rank}s" if en else f"一对 {rank}"
    return f"three {rank}s" if en else f"三连张 {rank}"


def why_not(play: engine.Play, table: engine.Play, lang: str) -> str:
    """One sentence, citing RULES.md §3, saying why ``play`` does not beat
    ``table`` (call only when ``engine.beats(play, table)`` is false)."""
    mine, theirs = play_text(play, lang), play_text(table, lang)
    nk, tk = play.kind, table.kind
    if tk == "hydrogen":
        if nk == "hydrogen":
            return say(("Rules §3: hydrogen bombs compare by rank, and %(mine)s is not above "
                        "%(theirs)s.", "规则 §3：氢弹比点数，%(mine)s 不比 %(theirs)s 大。"),
                       lang, mine=mine, theirs=theirs)
        return say(("Rules §3: only a higher hydrogen bomb beats a hydrogen bomb.",
                    "规则 §3：只有更大的氢弹能压氢弹。"), lang)
    if tk == "atom":
        if nk == "atom":
            return say(("Rules §3: atoms compare by rank, then suit ♠ > ♥ > ♣ > ♦: %(mine)s "
                        "is below %(theirs)s.", "规则 §3：原子先比点数，再比花色 "
                                                "♠ > ♥ > ♣ > ♦：%(mine)s 小于 %(theirs)s。"),
                       lang, mine=mine, theirs=theirs)
        return say(("Rules §3: only a higher atom or a hydrogen bomb beats an atom; %(mine)s "
                    "does not.", "规则 §3：只有更大的原子或氢弹能压原子，%(mine)s 不行。"),
                   lang, mine=mine)
    if tk == "bomb":
        if nk == "bomb":
            if play.size < table.size:
                return say(("Rules §3: among bombs more cards win first: %(mine)s loses to "
                            "%(theirs)s.", "规则 §3：炸弹先比张数：%(mine)s小于 %(theirs)s。"),
                           lang, mine=mine, theirs=theirs)
            return say(("Rules §3: bombs with as many cards compare by rank: %(mine)s is not "
                        "above %(theirs)s.", "规则 §3：张数相同的炸弹比点数：%(mine)s"
                                             " 不比 %(theirs)s 大。"),
                       lang, mine=mine, theirs=theirs)
        return say(("Rules §3: only a bigger bomb, an atom or a hydrogen bomb beats a bomb.",
                    "规则 §3：只有更大的炸弹、原子或氢弹能压炸弹。"), lang)
    if nk == "bomb" and table.is_dao:
        return say(("Rules §3: no bomb beats a single, pair or triple of the dao; only an atom "
                    "or a hydrogen bomb does.", "规则 §3：炸弹压不了刀的单张、"
                                                "对子、三连张，只有原子或氢弹可以。"),
                   lang)
    if nk != tk:
        return say(("Rules §3: %(kind)s beats only %(kind)s of a higher rank (or a bomb, atom or "
                    "hydrogen bomb); %(mine)s never does.",
                    "规则 §3：%(kind)s只能被更大的%(kind)s"
                    "（或炸弹、原子、氢弹）压，%(mine)s 不行。"),
                   lang, kind=say(KIND_NAMES[tk], lang), mine=mine)
    if play.jokers == play.size:
        return say(("Rules §3: jokers alone are 3s, the lowest rank: they do not beat %(theirs)s.",
                    "规则 §3：单出的王算 3，最小：压不了 %(theirs)s。"), lang, theirs=theirs)
    return say(("Rules §3: the same kind must be of a higher rank: %(mine)s is not above "
                "%(theirs)s.", "规则 §3：同一牌型要点数更大：%(mine)s 不比 %(theirs)s 大。"),
               lang, mine=mine, theirs=theirs)


#: RULES.md §3: cards that are no play at all
NO_PLAY: Text = (
    "Rules §3: these cards are no play: a play is cards of one rank (jokers "
    "wild, never with dao cards), three copies of one card, or a hydrogen bomb.",
    "规则 §3：这些牌不成牌型：要同一点数（王"
    "可配，但不能配刀）、同一张牌的三张，或氢弹。")
#: RULES.md §4: the leader may not pass
MUST_LEAD: Text = ("Rules §4: the leader must play; choose cards first.",
                   "规则 §4：领出的人必须出牌；先选牌。")
NOT_IN_HAND: Text = ("Those cards are not all in your hand.", "这些牌不全在你手里。")


def lang_of(language: str | None) -> str:
    """``"zh"`` for a Chinese Django language code (and none), else ``"en"``."""
    return "zh" if (language or "zh-hans").startswith("zh") else "en"


def refusal(hand: list[str], table: list[str] | None, dao: str, cards: list[str],
            lang: str) -> str | None:
    """Why ``cards`` cannot be played now from ``hand``, or ``None`` if they can.

    :param hand: the player's hand (§2 card strings).
    :param table: the play to beat (its cards), or ``None`` when the player leads.
    :param dao: the deal's dao rank (RULES.md §1).
    :param cards: the selection, §2 card strings; ``[]`` is a pass.
    :returns: one sentence citing RULES.md §3 or §4 (:data:`NO_PLAY`,
        :func:`why_not`, :data:`MUST_LEAD`), :data:`NOT_IN_HAND` for cards the
        hand does not hold; ``None`` for a legal play or pass.
    :raises ValueError: (``engine.CardError``) for a string that is no card.
    """
    cs = engine.parse_cards(cards)
    if not cs:
        return say(MUST_LEAD, lang) if table is None else None
    if Counter(cs) - Counter(hand):
        return say(NOT_IN_HAND, lang)
    play = engine.classify(cs, dao)
    if play is None:
        return say(NO_PLAY, lang)
    if table is not None:
        beaten = engine.classify(table, dao)
        if beaten is not None and not engine.beats(play, beaten):
            return why_not(play, beaten, lang)
    return None
