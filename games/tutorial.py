"""新手教程: eight scripted lessons, judged by the real engine (RULES.md §1–§6).

Pure data and engine calls, no database: a lesson is a list of steps on fixed
deals. The learner always sits South (seat 2, RULES.md §2); the bots' plays of a
step are scripted. A ``play`` step shows a hand and the play to beat; the
learner's cards are read by :func:`games.engine.classify` and compared with
:func:`games.engine.beats`, and a wrong play gets one sentence naming the rule.
A ``choice`` step is the lesson's check: a question with a few answers.

Nothing is kept between requests: the client names the step it answers, and
the last step's right answer returns a signed ``token`` that
``POST /api/tutorial/<n>/complete`` accepts (so progress is saved only for a
lesson actually finished). The lesson prose is bilingual here, as the rules
page's prose is (templates/games/rules_*.html): ``(English, 中文)`` pairs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.core import signing

from games import engine
from games.explain import (
    KIND_NAMES,
    MUST_LEAD,
    NO_PLAY,
    NOT_IN_HAND,
    Text,
    rank_text,
    say,
    why_not,
)

SOUTH = 2  # the learner's seat
TOKEN_SALT = "games.tutorial.complete"

@dataclass(frozen=True)
class BotPlay:
    """A scripted play (or pass, ``cards=()``) of a bot seat (0 N, 1 E, 3 W)."""

    seat: int
    cards: tuple[str, ...] = ()
    note: Text | None = None  # "…and has no cards left"


@dataclass(frozen=True)
class Option:
    """One answer of a ``choice`` step: its text and, when wrong, why."""

    text: Text
    why: Text | None = None  # None: the right answer


@dataclass(frozen=True)
class Step:
    """One step of a lesson.

    ``kind`` is ``"play"`` or ``"choice"``. A play step: ``hand`` (the learner's
    cards), ``before`` (bot plays already on the table; the last non-pass is the
    play to beat, none: the learner leads), ``want`` (what the step asks for:
    ``{"kind": ...}``, ``{"size": n}``, ``{"rank": r}``, ``{"pass": True}``;
    any legal play when empty), ``off_goal`` (why a legal play that is not
    ``want`` is not what the step asks) and ``after`` (bot plays shown once the
    learner got it right). A choice step: ``options``.
    """

    kind: str
    prompt: Text
    dao: str = "2"
    hand: tuple[str, ...] = ()
    before: tuple[BotPlay, ...] = ()
    want: dict[str, Any] = field(default_factory=dict)
    off_goal: Text | None = None
    after: tuple[BotPlay, ...] = ()
    done: Text | None = None  # said when the learner gets it right
    options: tuple[Option, ...] = ()


@dataclass(frozen=True)
class Lesson:
    """A lesson: ``code`` (stored in progress), title, intro and steps; the
    last step is the check."""

    code: str
    title: Text
    intro: Text
    steps: tuple[Step, ...]


def _h(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _bp(seat: int, cards: str = "", note: Text | None = None) -> BotPlay:
    return BotPlay(seat, _h(cards), note)


def _pass_round(*seats: int) -> tuple[BotPlay, ...]:
    return tuple(BotPlay(s) for s in seats)


LESSONS: tuple[Lesson, ...] = (
    # One deal per lesson: the cards a step's answer plays leave the hand of the
    # next play step (each step has exactly one right play), so the hand goes on
    # from step to step as at the table; a step that deals anew says so in its
    # prompt (NEW_HAND). tests/test_tutorial.py checks both from this data.
    Lesson(
        "basics",
        ("Singles, pairs and triples", "单张、对子和三连张"),
        ("Play goes North → West → South → East. Each player beats the last play with the "
         "same kind of a higher rank, or passes. You are South.",
         "出牌顺序是北 → 西 → 南 → 东。每人要么用"
         "同一牌型、更大的点数压过上一手，要么不出。你坐南家。"),
        (
            Step("play", ("West played a single K. Beat it with a single.",
                          "西家出了一张 K。用一张单张压过它。"),
                 hand=_h("4S 6H 6D 6C KH KD AS"), before=(_bp(3, "KS"),),
                 want={"kind": "single"},
                 after=_pass_round(1, 0, 3),
                 done=("Right: a higher single beats a single."
                       " Everyone passes and you win the trick.",
                       "对：更大的单张压单张。大家都不要，这一墩归你。")),
            Step("play", ("West played a pair of 10s. Beat it with a pair.",
                          "西家出了一对 10。用一对压过它。"),
                 hand=_h("4S 6H 6D 6C KH KD"), before=(_bp(3, "TS TH"),),
                 want={"kind": "pair"}, after=_pass_round(1, 0, 3),
                 done=("Right: a pair beats only a pair, of a higher rank.",
                       "对：对子只能被更大的对子压。")),
            Step("play", ("West played three 5s. Beat it with a triple.",
                          "西家出了三连张 5。用三连张压过它。"),
                 hand=_h("4S 6H 6D 6C"), before=(_bp(3, "5C 5C 5D"),),
                 want={"kind": "triple"}, after=_pass_round(1, 0, 3),
                 done=("Right: three 6s beat three 5s.", "对：三连张 6 压三连张 5。")),
            Step("choice", ("Check: West plays a pair of Ks. Which of these beats it?",
                            "小测：西家出一对 K。下面哪一手能压？"),
                 options=(
                     Option(("A single A", "一张 A"),
                            ("Rules §3: a single never beats a pair, however high.",
                             "规则 §3：单张再大也压不了对子。")),
                     Option(("A pair of As", "一对 A")),
                     Option(("Three 3s", "三连张 3"),
                            ("Rules §3: a triple never beats a pair: kinds do not cross.",
                             "规则 §3：三连张压不了对子，不同牌型不能互压。")),
                 )),
        ),
    ),
    Lesson(
        "bombs",
        ("Bombs by length", "炸弹看张数"),
        ("Four or more cards of one rank are a bomb. A bomb beats any single, pair or "
         "triple except the dao's (lesson 5); among bombs, more cards win, then the higher "
         "rank.",
         "同一点数四张或更多是炸弹。炸弹能压任何单张、对子、三连张，刀的除外（第 5 课）；"
         "炸弹之间先比张数，张数一样再比点数。"),
        (
            Step("play", ("West played a 5-card bomb of 8s. Beat it.",
                          "西家出了五个 8 的炸弹。压过它。"),
                 hand=_h("3C 4S 4H 4C 4D 5S 5H 5C 5D 5D 9D JS JS JH JC JD"),
                 before=(_bp(3, "8S 8H 8C 8D 8D"),),
                 want={"kind": "bomb", "size": 5}, after=_pass_round(1, 0, 3),
                 done=("Right: as many cards, and J is higher than 8.",
                       "对：张数一样，J 比 8 大。")),
            Step("play", ("West played a 4-card bomb of 6s. Beat it.",
                          "西家出了四个 6 的炸弹。压过它。"),
                 hand=_h("3C 4S 4H 4C 4D 5S 5H 5C 5D 5D 9D"), before=(_bp(3, "6S 6H 6C 6D"),),
                 want={"kind": "bomb", "size": 5}, after=_pass_round(1, 0, 3),
                 done=("Right: five cards beat four, whatever the rank.",
                       "对：五张的炸弹压四张的炸弹，不论点数。")),
            Step("play", ("West played a pair of As. You have no pair above A: bomb it.",
                          "西家出了一对 A。你没有比 A 大的对子：用炸弹炸。"),
                 hand=_h("3C 4S 4H 4C 4D 9D"), before=(_bp(3, "AS AD"),),
                 want={"kind": "bomb"}, after=_pass_round(1, 0, 3),
                 done=("Right: even a bomb of "
                       "4s beats a pair of As.", "对：四个 4 的炸弹也能炸一对 A。")),
            Step("choice", ("Check: which bomb is stronger?", "小测：哪个炸弹更大？"),
                 options=(
                     Option(("Four Ks", "四个 K"),
                            ("Rules §3: among bombs the card count decides first: five beat four.",
                             "规则 §3：炸弹先比张数，五张大于四张。")),
                     Option(("Five 4s", "五个 4")),
                 )),
        ),
    ),
    Lesson(
        "atoms",
        ("Atoms and their suit order", "原子与花色"),
        ("The three copies of one card (same rank and suit) are an atom. An atom beats "
         "every bomb; atoms compare by rank, then by suit ♠ > ♥ > ♣ > ♦.",
         "同一张牌的三张（点数和花色都相同）是原子。原子压任何炸弹"
         "；原子之间先比点数，再比花色 ♠ > ♥ > ♣ > ♦。"),
        (
            Step("play", ("West played the atom 9♣. Beat it.", "西家出了原子 9♣。压过它。"),
                 hand=_h("4C 5C 8S 8S 8S 8D 8D 8D KD KD KD"), before=(_bp(3, "9C 9C 9C"),),
                 want={"kind": "atom"}, after=_pass_round(1, 0, 3),
                 done=("Right: the rank comes first: K beats 9, whatever the suits.",
                       "对：先比点数：K 大于 9，花色不论。")),
            Step("play", ("West played the atom 8♥. Beat it.", "西家出了原子 8♥。压过它。"),
                 hand=_h("4C 5C 8S 8S 8S 8D 8D 8D"), before=(_bp(3, "8H 8H 8H"),),
                 want={"kind": "atom"}, after=_pass_round(1, 0, 3),
                 done=("Right: same rank, and ♠ is above ♥.", "对：点数相同，♠ 比 ♥ 大。")),
            Step("play", ("West played a 6-card bomb of Qs. Beat it.",
                          "西家出了六个 Q 的炸弹。压过它。"),
                 hand=_h("4C 5C 8D 8D 8D"), before=(_bp(3, "QS QS QH QH QC QD"),),
                 want={"kind": "atom"}, after=_pass_round(1, 0, 3),
                 done=("Right: three 8♦ are an atom, and any atom beats any bomb, "
                       "however long.",
                       "对：三张 8♦ 是原子，任何原子都压炸弹，炸弹再长也一样。")),
            Step("choice", ("Check: which atom is higher?", "小测：哪个原子更大？"),
                 options=(
                     Option(("Three 10♦", "三张 10♦"),
                            ("Rules §3: same rank, so the suit decides: ♣ is above ♦.",
                             "规则 §3：点数相同比花色：♣ 大于 ♦。")),
                     Option(("Three 10♣", "三张 10♣")),
                 )),
        ),
    ),
    Lesson(
        "hydrogen",
        ("The hydrogen bomb", "氢弹"),
        ("Exactly eight cards of one rank, two of each suit, no jokers: the hydrogen bomb. "
         "It beats everything, atoms too, except a higher hydrogen bomb.",
         "同一点数正好八张、每种花色各两张、不带王：氢弹。它压一切，包括原子，只有更大的氢弹能压它。"),
        (
            Step("play", ("West played a hydrogen bomb of 5s. Beat it.",
                          "西家出了 5 的氢弹。压过它。"),
                 hand=_h("3S 3S 3H 3H 3C 3C 3D 3D 4H JS JS JH JH JC JC JD JD"),
                 before=(_bp(3, "5S 5S 5H 5H 5C 5C 5D 5D"),),
                 want={"kind": "hydrogen"}, after=_pass_round(1, 0, 3),
                 done=("Right: hydrogen bombs compare by rank: J beats 5.",
                       "对：氢弹比点数：J 大于 5。")),
            Step("play", ("West played the atom A♠. Beat it.", "西家出了原子 A♠。压过它。"),
                 hand=_h("3S 3S 3H 3H 3C 3C 3D 3D 4H"), before=(_bp(3, "AS AS AS"),),
                 want={"kind": "hydrogen"}, after=_pass_round(1, 0, 3),
                 done=("Right: eight 3s, two of each suit, are a hydrogen bomb: even the "
                       "lowest beats any atom.",
                       "对：八张 3、每种花色两张，是氢弹：最小的氢弹也压任何原子。")),
            Step("choice", ("Check: which of these is a hydrogen bomb?", "小测：下面哪个是氢弹？"),
                 options=(
                     Option(("Eight 9s: three ♠, three ♥, one ♣, one ♦",
                             "八张 9：三张 ♠、三张 ♥、一张 ♣、一张 ♦"),
                            ("Rules §3: a hydrogen bomb has exactly two of each suit; this is an "
                             "8-card bomb.", "规则 §3：氢弹必须每种花色"
                                             "正好两张；这只是八张的炸弹。")),
                     Option(("Eight 9s, two of each suit", "八张 9，每种花色两张")),
                     Option(("Nine 9s", "九张 9"),
                            ("Rules §3: a hydrogen bomb is exactly eight cards; nine are a bomb.",
                             "规则 §3：氢弹正好八张；九张是炸弹。")),
                 )),
        ),
    ),
    Lesson(
        "dao",
        ("The dao and the jokers", "刀和王"),
        ("Each deal has a dao, the trump rank: it is above 2 and A. Jokers are wild in "
         "pairs, triples and bombs, but a joker alone is a 3, and jokers never join dao cards. "
         "Here the dao is 8.",
         "每副牌有一个刀，即主牌点数：比 2 和 A 都大。王在对子、三连张、炸弹里可以当任何点数，"
         "但单出的王就是 3，王也不能和刀一起出。这里刀是 8。"),
        (
            Step("play", ("The dao is 8. West played a single A. Beat it with a single.",
                          "刀是 8。西家出了一张 A。用单张压过它。"),
                 dao="8", hand=_h("4S 4H 4C 4D 6C 6C 6C KS 8D BJ"), before=(_bp(3, "AS"),),
                 want={"kind": "single"}, after=_pass_round(1, 0, 3),
                 done=("Right: the dao 8 is above A and 2.", "对：刀 8 比 A 和 2 都大。")),
            Step("play", ("West played a pair of Qs. Make a pair with your joker and beat it.",
                          "西家出了一对 Q。用王配一张牌组成对子压过它。"),
                 dao="8", hand=_h("4S 4H 4C 4D 6C 6C 6C KS BJ"), before=(_bp(3, "QS QD"),),
                 want={"kind": "pair"}, after=_pass_round(1, 0, 3),
                 done=("Right: the joker takes the K's rank: a pair of Ks.",
                       "对：王当作 K，组成一对 K。")),
            Step("play", ("West played a pair of 8s, the dao. Beat it.",
                          "西家出了一对 8，是刀。压过它。"),
                 dao="8", hand=_h("4S 4H 4C 4D 6C 6C 6C"), before=(_bp(3, "8S 8H"),),
                 want={"kind": "atom"}, after=_pass_round(1, 0, 3),
                 done=("Right: no bomb beats a dao pair, but an atom does.",
                       "对：炸弹压不了刀对，原子可以。")),
            Step("choice", ("Check: what is a smal"
                            "l joker played alone?", "小测：单出一张小王算什么？"),
                 options=(
                     Option(("Higher than the dao", "比刀还大"),
                            ("Rules §3: a joker alone is a 3, the lowest single.",
                             "规则 §3：单出的王就是 3，最小的单张。")),
                     Option(("A 3, the lowest single", "一张 3，最小的单张")),
                     Option(("A dao card", "一张刀"),
                            ("Rules §3: jokers are never dao cards; alone a joker is a 3.",
                             "规则 §3：王从来不是刀；单出就是 3。")),
                 )),
        ),
    ),
    Lesson(
        "jiefeng",
        ("接风: passing the lead", "接风"),
        ("When a player goes out with a play nobody beats, the lead passes to the next seat "
         "in turn order that still has cards (下家), not to the partner.",
         "一名玩家出完最后的牌且没人压时，出牌权交给按顺序的下一家（下家）中还有牌的人，而不是对家。"),
        (
            Step("play", ("West played a pair of Ks, their last cards. You cannot beat it: pass.",
                          "西家出了一对 K，是他最后的牌。你压不了：选择不出。"),
                 hand=_h("4C 6S 6D TS JH"),
                 before=(_bp(3, "KS KH", ("West has no cards left.", "西家出完了。")),),
                 want={"pass": True},
                 off_goal=("You have nothing that beats a pair of Ks here: pass.",
                           "你没有能压一对 K 的牌：不出。"),
                 after=_pass_round(1, 0),
                 done=("Everyone passed. West is out, so the lead goes to West's next seat: you.",
                       "大家都不要。西家已出完，出牌权交给西家的下家：你。")),
            Step("play", ("接风: the lead is yo"
                          "urs. Lead any play.", "接风：轮到你出牌。随便出一手。"),
                 hand=_h("4C 6S 6D TS JH"), want={}, after=_pass_round(1, 0),
                 done=("Right: you led; East and North pass, and the trick is yours.",
                       "对：你出了牌；东家、北家都不要，这一墩归你。")),
            Step("choice", ("Check: North goes out with a single"
                            " that nobody beats. Who leads next?",
                            "小测：北家最后一张单张没人压，出完了。谁接着出牌？"),
                 options=(
                     # the seats only: an answer must not name its own reason
                     Option(("South", "南家"),
                            ("Rules §4: South is North's partner; the lead goes to the next "
                             "seat in turn order (下家), not the partner.",
                             "规则 §4：南家是北家的对家；出牌权给下家，而不是对家。")),
                     Option(("West", "西家")),
                     Option(("East", "东家"),
                            ("Rules §4: play goes North → West, so West is North's next seat.",
                             "规则 §4：出牌顺序是北 → 西，北家的下家是西家。")),
                 )),
        ),
    ),
    Lesson(
        "scoring",
        ("Scoring: 5, 10, K", "计分：5、10、K"),
        ("Every 5 is worth 5 points, every 10 and K 10: 300 points in a half. The player who "
         "makes the last play of a trick takes its points for their team.",
         "每张 5 算 5 分，每张 10 和 K 算 10 分："
         "每个半局共 300 分。一墩的最后出牌者为本队拿走这墩的分。"),
        (
            Step("play", ("East, North and West played 5♦, 10♠ and K♥: 25 points. Take the trick.",
                          "东、北、西家出了 5♦、10♠、K♥：共 25 分。把这一墩拿下。"),
                 hand=_h("4C QD AS"), before=(_bp(1, "5D"), _bp(0, "TS"), _bp(3, "KH")),
                 want={"kind": "single"}, after=_pass_round(1, 0, 3),
                 done=("Right: everyone passes and your team takes the 25 points.",
                       "对：大家都不要，你们队拿到 25 分。")),
            Step("choice", ("Check: how many points are 5♠ 5♥ 10♣ K♦ K♦?",
                            "小测：5♠ 5♥ 10♣ K♦ K♦ 一共多少分？"),
                 options=(
                     Option(("25", "25"), ("Rules §2: a K counts 10, like a 10.",
                                           "规则 §2：K 和 10 一样算 10 分。")),
                     Option(("40", "40")),
                     Option(("50", "50"), ("Rules §2: a 5 counts 5, not 10.",
                                           "规则 §2：5 只算 5 分。")),
                 )),
            Step("choice", ("Check: North went out first; East is left last with K♠ 5♥ 9♣ in hand "
                            "and 40 points captured. Where do East's points go?",
                            "小测：北家上游；东家最后还剩 K♠ 5♥ "
                            "9♣，这个半局拿了 40 分。东家的分去哪儿？"),
                 options=(
                     Option(("All 55 to North–South", "全部 55 分归南北")),
                     Option(("40 to North–South, the 15 in hand stay with East–West",
                             "40 分归南北，手里的 15 分留给东西"),
                            ("Rules §5: the point cards left in the last player's hand go to the "
                             "other team too.", "规则 §5：下游手里剩下的分牌也归对方。")),
                     Option(("Nothing moves", "分不动"),
                            ("Rules §5: the last player hands what they captured to the first "
                             "out's team.", "规则 §5：下游要把拿到的分交给上游的队。")),
                 )),
        ),
    ),
    Lesson(
        "clamp",
        ("The double clamp and 300/305", "双夹与 300/305"),
        ("A game is one or two halves. After the first half it is a double clamp (双夹), and "
         "the game ends with the stake doubled, if one team went out before either opponent, "
         "or if a team scored under 60. Otherwise a second half decides: the team of the first "
         "half's first out needs 300 of 600, the other team 305.",
         "一局最多两个半局（上半局、下半局）。上半局后如果一队两人都先于对方出"
         "完，或有一队得分不到 60，就是双夹：这一局结束，"
         "输赢分翻倍。否则打下半局：两个半局共 600 分，上半局上游的队得 300 分就赢，"
         "另一队要 305 分。"),
        (
            Step("play", ("Your partner North is out. West played a pair of 7s; go out with your "
                          "last two cards and clamp East–West.",
                          "对家北家已出完。西家出了一对 7；出完你最后两张牌，夹住东西。"),
                 hand=_h("9S 9H"), before=(_bp(3, "7S 7C"),), want={"kind": "pair"},
                 after=(),
                 done=("Right: both of your team are out while East and West hold cards: a "
                       "double clamp, your team wins.",
                       "对：你们两人都出完了，东西还有牌：双夹，你们赢。")),
            Step("choice", ("Check: after the first half North–South have 250 points and East–West "
                            "50. What happens?", "小测：上半局后南北 250 "
                                                 "分，东西 50 分。结果如何？"),
                 options=(
                     Option(("A second half is dealt", "再打下半局"),
                            ("Rules §6: a team under 60 after the first half is a double clamp: "
                             "the game ends.", "规则 §6：上半局后有一队不到"
                                               " 60 分就是双夹，这一局结束。")),
                     Option(("Double clamp: North–South win, stake doubled",
                             "双夹：南北赢，输赢分翻倍")),
                     Option(("East–West win", "东西赢"),
                            ("Rules §6: the team with 60 or more wins a double clamp.",
                             "规则 §6：双夹时得 60 分以上的队赢。")),
                 )),
            Step("choice", ("Check: after two halves it is 300 to 300. East went out first in the "
                            "first half. Who wins?",
                            "小测：上下两个半局打完是 300 比 300。上半局东家上游。谁赢？"),
                 options=(
                     Option(("North–South", "南北"),
                            ("Rules §6: North–South are not the "
                             "first out's team, so they need 305.",
                             "规则 §6：南北不是上半局上游的队，要 305 分才赢。")),
                     Option(("East–West", "东西")),
                     Option(("A draw", "平局"),
                            ("Rules §6: there are no draws: the first out's team wins at 300.",
                             "规则 §6：没有平局：上半局上游的队 300 分就赢。")),
                 )),
        ),
    ),
)

COUNT = len(LESSONS)
CODES = tuple(lesson.code for lesson in LESSONS)
DAO_LESSON = CODES.index("dao") + 1  # the lesson that teaches the dao (RULES.md §1, §3)
# shown beside "刀 2" in the lessons before DAO_LESSON, which show the dao unexplained
DAO_NOTE: Text = ("The dao is each deal's trump rank, above A (here the %(dao)ss); lesson "
                  "%(n)s teaches it.",
                  "刀是每副牌的主牌点数，排在 A 之上（这里是 %(dao)s）；第 %(n)s 课会讲。")

SEAT_NAMES: dict[int, Text] = {0: ("North", "北家"), 1: ("East", "东家"),
                               2: ("You", "你"), 3: ("West", "西家")}


class TutorialError(ValueError):
    """A request the tutorial cannot judge: ``code`` is ``no_lesson``,
    ``no_step``, ``bad_cards``, ``bad_token`` or ``bad_request``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def lesson(n: object) -> Lesson:
    """Lesson ``n`` (1-based). :raises TutorialError: ``no_lesson``."""
    if not isinstance(n, int) or not 1 <= n <= COUNT:
        raise TutorialError("no_lesson", f"no lesson {n!r}: lessons are 1–{COUNT}")
    return LESSONS[n - 1]


def _step(n: int, index: object) -> Step:
    steps = lesson(n).steps
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(steps):
        raise TutorialError("no_step", f"lesson {n} has steps 0–{len(steps) - 1}")
    return steps[index]


def table_play(step: Step) -> engine.Play | None:
    """The play the learner must beat: the last scripted play before them, or
    ``None`` when they lead."""
    for bp in reversed(step.before):
        if bp.cards:
            return engine.classify(bp.cards, step.dao)
    return None


def _kind(play: engine.Play | None) -> dict[str, Any] | None:
    # the shape cards.js playName() reads (the table's trick_kinds)
    if play is None:
        return None
    return {"kind": play.kind, "rank": play.rank, "jokers": play.jokers}


def _bot_plays(plays: tuple[BotPlay, ...], dao: str, lang: str) -> list[dict[str, Any]]:
    return [{"seat": bp.seat, "name": say(SEAT_NAMES[bp.seat], lang),
             "cards": list(engine.sort_hand(bp.cards, dao)),
             "kind": _kind(engine.classify(bp.cards, dao)) if bp.cards else None,
             "note": say(bp.note, lang) if bp.note else ""} for bp in plays]


def lesson_summary(n: int, lang: str) -> dict[str, Any]:
    """``{n, code, title, intro, steps, dao_note}`` of lesson ``n`` (steps: how
    many; dao_note: one line on the dao, before the lesson that teaches it,
    else empty)."""
    les = lesson(n)
    dao = next((s.dao for s in les.steps if s.kind == "play"), "2")
    note = say(DAO_NOTE, lang, dao=rank_text(dao), n=DAO_LESSON) if n < DAO_LESSON else ""
    return {"n": n, "code": les.code, "title": say(les.title, lang),
            "intro": say(les.intro, lang), "steps": len(les.steps), "dao_note": note}


def step_view(n: int, index: int, lang: str) -> dict[str, Any]:
    """What the page shows of step ``index`` of lesson ``n``: ``{index, kind,
    prompt, last, ...}``; a play step adds ``dao``, ``hand`` (sorted weakest
    first), ``table`` (the scripted plays before the learner) and ``can_pass``;
    a choice step adds ``options`` (``[{id, text}]``). Never the answer.

    :raises TutorialError: ``no_lesson`` / ``no_step``.
    """
    step = _step(n, index)
    out: dict[str, Any] = {"index": index, "kind": step.kind, "prompt": say(step.prompt, lang),
                           "last": index == len(lesson(n).steps) - 1}
    if step.kind == "play":
        out.update(dao=step.dao, hand=list(engine.sort_hand(step.hand, step.dao)),
                   table=_bot_plays(step.before, step.dao, lang),
                   can_pass=table_play(step) is not None)
    else:
        out["options"] = [{"id": i, "text": say(o.text, lang)} for i, o in enumerate(step.options)]
    return out


def _off_goal(step: Step, play: engine.Play | None, lang: str) -> str:
    if play is None and not step.want.get("pass"):
        return say(("Rules §4: you may pass, but here you hold a play that beats it: find it.",
                    "规则 §4：可以不出，但你手里有能压的牌：找出来。"), lang)
    if step.off_goal:
        return say(step.off_goal, lang)
    want = step.want
    if "kind" in want:
        return say(("That is legal, but this step asks for %(kind)s.",
                    "这一手可以出，但这一步要你出%(kind)s。"), lang,
                   kind=say(KIND_NAMES[want["kind"]], lang))
    return say(("That is legal, but no"
                "t what this step asks.", "这一手可以出，但不是这一步要的。"), lang)


def _meets(step: Step, play: engine.Play | None) -> bool:
    want = step.want
    if want.get("pass"):
        return play is None
    if play is None:
        return False
    return all(getattr(play, k) == v for k, v in want.items())


def judge(n: int, index: object, cards: object = None, choice: object = None,
          lang: str = "zh") -> dict[str, Any]:
    """Judge the learner's answer to step ``index`` of lesson ``n``.

    A play step reads ``cards`` (a list of §2 card strings; ``[]`` passes), a
    choice step ``choice`` (an option id). Returns ``{ok, explanation, after,
    next, token}``: on a wrong answer ``ok`` is false, ``explanation`` names the
    rule and nothing else is given (the step stays as it was); on the right
    one ``after`` lists the scripted bot plays that follow, ``next`` is the
    next step's :func:`step_view` (``None`` after the check) and ``token`` is
    set only after the last step (for :func:`verify_token`).

    :raises TutorialError: ``no_lesson``, ``no_step``, ``bad_cards`` (not a
        list of card strings, or an answer of the wrong shape).
    """
    step = _step(n, index)
    assert isinstance(index, int)
    wrong: dict[str, Any] = {"ok": False, "after": [], "next": None, "token": None}
    cs: list[str] = []
    if step.kind == "choice":
        if not isinstance(choice, int) or isinstance(choice, bool) \
                or not 0 <= choice < len(step.options):
            raise TutorialError("bad_cards", "choice must be one of the option ids")
        why = step.options[choice].why
        if why is not None:
            return {**wrong, "explanation": say(why, lang)}
        done = say(("Right.", "对。"), lang)
    else:
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise TutorialError("bad_cards", "cards must be a list of card strings")
        try:
            cs = engine.parse_cards(cards)
        except engine.EngineError as e:
            raise TutorialError("bad_cards", str(e)) from e
        table = table_play(step)
        play: engine.Play | None = None
        if not cs:
            if table is None:
                return {**wrong, "explanation": say(MUST_LEAD, lang)}
        else:
            if Counter(cs) - Counter(step.hand):
                return {**wrong, "explanation": say(NOT_IN_HAND, lang)}
            play = engine.classify(cs, step.dao)
            if play is None:
                return {**wrong, "explanation": say(NO_PLAY, lang)}
            if table is not None and not engine.beats(play, table):
                return {**wrong, "explanation": why_not(play, table, lang)}
        if not _meets(step, play):
            return {**wrong, "explanation": _off_goal(step, play, lang)}
        done = say(step.done, lang) if step.done else say(("Right.", "对。"), lang)
    steps = lesson(n).steps
    last = index == len(steps) - 1
    return {"ok": True, "explanation": done,
            "after": [] if step.kind != "play" else _bot_plays(
                (BotPlay(SOUTH, tuple(cs)), *step.after), step.dao, lang),
            "next": None if last else step_view(n, index + 1, lang),
            "token": signing.dumps({"lesson": lesson(n).code}, salt=TOKEN_SALT) if last else None}


def verify_token(n: int, token: object) -> str:
    """The code of lesson ``n`` if ``token`` is the one :func:`judge` gave for
    its last step. :raises TutorialError: ``bad_token``."""
    les = lesson(n)
    try:
        data = signing.loads(str(token), salt=TOKEN_SALT, max_age=24 * 3600)
    except signing.BadSignature as e:
        raise TutorialError("bad_token", "finish the lesson's check first") from e
    if not isinstance(data, dict) or data.get("lesson") != les.code:
        raise TutorialError("bad_token", "finish the lesson's check first")
    return les.code
