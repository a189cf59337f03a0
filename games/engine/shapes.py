"""The shapes of the engine's plain data: states, views, actions, events, records.

Everything the engine takes or returns, apart from :class:`~games.engine.Play`,
is JSON-able data (``dict``, ``list``, ``str``, ``int``, ``bool``, ``None``), so
one form serves fixtures, storage (``Game.state``), logs and the wire. These
``TypedDict`` and ``Literal`` types name that form for ``mypy --strict``; at run
time they are ordinary dicts and strings.

A ``[seat, cards]`` entry (an action of a half, a play of a trick) is a
two-element JSON array; it is typed as the pair :data:`SeatCards` and always
built with :func:`seat_cards`, so the engine writes lists, as JSON reads them.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict, cast

Card: TypeAlias = str
"""A card in RULES.md §2 notation: ``"TS"``, ``"2D"``, ``"RJ"``, ``"BJ"``."""
Seat: TypeAlias = int
"""0 = North, 1 = East, 2 = South, 3 = West (RULES.md §2)."""
Team: TypeAlias = int
"""0 = N–S (seats 0, 2), 1 = E–W (seats 1, 3) (RULES.md §11)."""

Kind = Literal["single", "pair", "triple", "bomb", "atom", "hydrogen"]
"""A play's kind (RULES.md §3, §10)."""
Status = Literal["playing", "over"]
HalfEnd = Literal["A", "B"]
"""How a half ended (RULES.md §4): ``A`` one team out, ``B`` three players out."""
EndReason = Literal["normal", "escape", "moderator_close", "moderator_kick", "suspension"]
"""Why a game ended (RULES.md §7, §12; docs/record.md): ``normal`` for every ending
by play; ``escape`` a player left (§7 penalty); the other three end it with no
rating change for anyone (§12)."""
BotPolicy = Literal["beginner", "normal", "expert", "master"]
"""A bot seat's policy (新手 / 普通 / 高手 / 大师); ``None`` in its place is a human."""

END_REASONS: tuple[EndReason, ...] = (
    "normal", "escape", "moderator_close", "moderator_kick", "suspension")
BOT_POLICIES: tuple[BotPolicy, ...] = ("beginner", "normal", "expert", "master")
"""The site's bot levels, weakest first: 新手, 普通, 高手, 大师 (the one list of them)."""

SeatCards: TypeAlias = tuple[Seat, list[Card]]
"""``[seat, cards]``: one action (``[]`` is a pass) or one play of a trick."""


def seat_cards(seat: Seat, cards: list[Card]) -> SeatCards:
    """A ``[seat, cards]`` entry as the engine stores it: a JSON-style list."""
    return cast(SeatCards, [seat, cards])


# --- actions ----------------------------------------------------------------------


class PlayAction(TypedDict):
    """Play these cards (RULES.md §3–§4)."""

    type: Literal["play"]
    cards: list[Card]


class PassAction(TypedDict):
    """Pass (only when following, §4)."""

    type: Literal["pass"]


class EscapeAction(TypedDict):
    """Leave the running game: any seat, any time (RULES.md §7)."""

    type: Literal["escape"]


Action: TypeAlias = PlayAction | PassAction | EscapeAction
"""A seat's action for :func:`~games.engine.apply`."""


# --- the state --------------------------------------------------------------------


class Trick(TypedDict):
    """The current trick: who led it, every play and pass in it, the play to beat
    (``None`` on a lead), consecutive passes since it, and its points."""

    leader: Seat
    plays: list[SeatCards]
    last: SeatCards | None
    passes: int
    points: int


class Transfer(TypedDict):
    """One move of points when a half is scored (RULES.md §5)."""

    seat: Seat
    to_team: Team
    points: int
    what: Literal["captured", "hand"]


class HalfSummary(TypedDict):
    """A finished half as the state keeps it (RULES.md §4–§5)."""

    half: int
    indicator: Card
    dao: str
    first_dealt: Seat
    leader: Seat
    actions: list[SeatCards]
    finish_order: list[Seat]
    end: HalfEnd
    captured: list[int]
    left: list[list[Card]]
    transfers: list[Transfer]
    points: list[int]


class Result(TypedDict):
    """How a game ended (RULES.md §6–§7, §12).

    ``winner``: the winning team, ``None`` unless ``reason`` is ``normal``;
    ``abandoned_by``: the seat whose leaving ended it (the escaper, the kicked or
    suspended player), else ``None``; ``totals``: team points over the finished
    halves; ``stake``: what the game was worth (doubled by a double clamp);
    ``rating_changes``: per seat.
    """

    winner: Team | None
    double_clamp: bool
    abandoned_by: Seat | None
    reason: EndReason
    totals: list[int]
    stake: int
    rating_changes: list[int]


class State(TypedDict):
    """A game's whole state (version 2): never mutated by the engine, see
    :func:`~games.engine.apply`. The current half's fields (``half`` … ``actions``)
    are replaced when the second half is dealt; finished halves are in ``halves``.
    ``seed`` is secret while the game runs; so are ``hands``, but for each seat's own.
    """

    version: int
    seed: str
    levels: list[int]
    bots: list[BotPolicy | None]
    practice: bool
    stake: int
    status: Status
    seq: int
    halves: list[HalfSummary]
    result: Result | None
    half: int
    indicator: Card
    indicator_seat: Seat
    dao: str
    first_dealt: Seat
    leader: Seat
    hands: list[list[Card]]
    turn: Seat | None
    trick: Trick
    captured: list[int]
    finish_order: list[Seat]
    actions: list[SeatCards]


# --- the view ---------------------------------------------------------------------


class TrickView(TypedDict):
    """The current trick as every seat sees it (no ``passes`` count)."""

    leader: Seat
    plays: list[SeatCards]
    last: SeatCards | None
    points: int


class HalfView(TypedDict):
    """A finished half's public summary (its actions and left cards are not shown
    while the game runs: the left cards are hidden hands)."""

    half: int
    indicator: Card
    dao: str
    first_dealt: Seat
    leader: Seat
    finish_order: list[Seat]
    end: HalfEnd
    captured: list[int]
    transfers: list[Transfer]
    points: list[int]


class View(TypedDict):
    """What one seat (or a spectator, ``seat`` ``None``) may see: :func:`~games.engine.view`.

    ``hands`` and ``seed`` are present only once the game is over.
    """

    seq: int
    status: Status
    half: int
    dao: str
    indicator: Card
    indicator_seat: Seat
    leader: Seat
    turn: Seat | None
    seat: Seat | None
    hand: list[Card] | None
    counts: list[int]
    trick: TrickView
    captured: list[int]
    finish_order: list[Seat]
    halves: list[HalfView]
    stake: int
    practice: bool
    bots: list[BotPolicy | None]
    result: Result | None
    hands: NotRequired[list[list[Card]]]
    seed: NotRequired[str]


class PreviousTrick(TypedDict):
    """The half's last completed trick (上一轮, :func:`~games.engine.tricks.previous_trick`):
    every play and pass in it as ``[seat, cards]`` (``[]`` a pass), and the seat
    whose play took it."""

    plays: list[SeatCards]
    winner: Seat | None


class BotView(View):
    """What a bot in one seat may know: :func:`~games.engine.bot_view` (RULES.md §12).

    The seat's :class:`View` plus ``history``: every action of the current half
    in order as ``[seat, cards]`` (``[]`` a pass), as the §11 record's ``actions``.
    Never sent to a client.
    """

    history: list[SeatCards]


# --- events -----------------------------------------------------------------------


class PlayEvent(TypedDict):
    type: Literal["play"]
    seat: Seat
    cards: list[Card]


class PassEvent(TypedDict):
    type: Literal["pass"]
    seat: Seat


class TrickEvent(TypedDict):
    """A trick ended: ``seat`` won its ``points``."""

    type: Literal["trick"]
    seat: Seat
    points: int


class OutEvent(TypedDict):
    """``seat`` went out, ``place``-th (1 = first_out)."""

    type: Literal["out"]
    seat: Seat
    place: int


JiefengEvent = TypedDict("JiefengEvent", {"type": Literal["jiefeng"], "from": Seat, "to": Seat})
"""接风: the lead passes ``from`` a seat that went out ``to`` its 下家 still holding cards."""


class HalfEndEvent(TypedDict):
    type: Literal["half_end"]
    half: int
    finish_order: list[Seat]
    end: HalfEnd
    captured: list[int]
    transfers: list[Transfer]
    points: list[int]


class DealEvent(TypedDict):
    """The second half was dealt."""

    type: Literal["deal"]
    half: int
    indicator: Card
    dao: str
    leader: Seat


class GameEndEvent(TypedDict):
    """The game ended: the :class:`Result`'s fields."""

    type: Literal["game_end"]
    winner: Team | None
    double_clamp: bool
    abandoned_by: Seat | None
    reason: EndReason
    totals: list[int]
    stake: int
    rating_changes: list[int]


class EscapeEvent(TypedDict):
    """``seat`` escaped and loses ``penalty`` rating points (0 in a practice game)."""

    type: Literal["escape"]
    seat: Seat
    penalty: int


class AbandonEvent(TypedDict):
    """The game was ended by the site (a moderator, a suspension): ``seat`` is the
    player concerned, ``None`` for a closed table."""

    type: Literal["abandon"]
    reason: EndReason
    seat: Seat | None


Event: TypeAlias = (
    PlayEvent | PassEvent | TrickEvent | OutEvent | JiefengEvent | HalfEndEvent | DealEvent
    | GameEndEvent | EscapeEvent | AbandonEvent
)
"""What :func:`~games.engine.apply` and :func:`~games.engine.abandon` report, in order."""


# --- the §11 record ---------------------------------------------------------------


class RecordHalf(TypedDict):
    """One half of a record (RULES.md §11): ``end`` and ``points`` are ``None`` for
    a half cut short by an abandon."""

    half: int
    indicator: Card
    dao: str
    first_dealt: Seat
    hands: list[list[Card]]
    leader: Seat
    actions: list[SeatCards]
    finish_order: list[Seat]
    end: HalfEnd | None
    points: list[int] | None


class RecordResult(TypedDict):
    winner: Team | None
    double_clamp: bool
    abandoned_by: Seat | None
    reason: EndReason


class ChallengeMark(TypedDict):
    """What marks a record as a daily challenge board (version 3): its day
    (``YYYY-MM-DD``, Asia/Shanghai) and board number (1–8)."""

    date: str
    board: int


class Record(TypedDict):
    """A finished or abandoned game, RULES.md §11 as amended in docs/record.md (version 3).

    ``challenge``: ``None`` for a game; a daily challenge board's day and number
    for a board, whose record holds its first half only (docs/record.md)."""

    version: int
    seed: str
    levels: list[int]
    bots: list[BotPolicy | None]
    halves: list[RecordHalf]
    result: RecordResult
    challenge: NotRequired[ChallengeMark | None]
