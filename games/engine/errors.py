"""Every error the engine raises, under one base: :class:`EngineError` (RULES.md §10).

As in python-chess (``InvalidMoveError``, ``IllegalMoveError`` under
``ValueError``), callers catch exactly what they mean: ``IllegalAction`` for an
action the rules refuse, ``CardError`` for a string that is not a card, and so
on; ``except EngineError`` (or ``except ValueError``, as RULES.md §10 promises for
``classify``) catches them all. Each carries ``reason``, a stable code from one of
the ``Literal`` types below, and a message for people; raising one never changes
a state.

>>> try:
...     raise IllegalAction("must_lead", "the leader must play, not pass")
... except EngineError as e:
...     (e.reason, str(e), isinstance(e, ValueError))
('must_lead', 'the leader must play, not pass', True)
"""

from __future__ import annotations

from typing import Literal, get_args

CardReason = Literal["bad_card", "too_many_copies"]
"""``bad_card``: not the §2 notation (``"10S"``, ``"ts"``, a number …);
``too_many_copies``: more copies of a card than the shoe's three."""

IllegalReason = Literal[
    "game_over", "not_your_turn", "bad_action", "bad_card", "not_in_hand",
    "not_a_combination", "does_not_beat", "must_lead", "bad_seat", "bad_reason",
]
"""Why :func:`~games.engine.apply` or :func:`~games.engine.abandon` refused."""

ArgumentReason = Literal[
    "bad_level", "bad_bot", "bad_seats", "bad_dao", "bad_half", "needs_first_out", "bad_seat",
    "dao_mismatch", "bad_count", "bad_thresholds",
]
"""A function's argument outside its domain (a level, a bot policy, a dao …)."""

RecordReason = Literal["game_running", "bad_version", "bad_record", "record_mismatch"]
"""A §11 record or a stored state the engine cannot write or read."""

Reason = CardReason | IllegalReason | ArgumentReason | RecordReason

REASONS: frozenset[str] = frozenset(
    r for t in (CardReason, IllegalReason, ArgumentReason, RecordReason) for r in get_args(t)
)
"""Every reason code the engine can raise (for the site's reason-code registry)."""


class EngineError(ValueError):
    """Base of every error the engine raises; a ``ValueError`` (RULES.md §10).

    :ivar reason: a stable code for programs (one of :data:`REASONS`).
    :ivar message: the explanation for people (also ``str(error)``).
    """

    reason: str

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __reduce__(self) -> tuple[type[EngineError], tuple[str, str]]:
        # pickles (e.g. across processes) as its two arguments, not as ``args``
        return (type(self), (self.reason, self.message))


class CardError(EngineError):
    """A string that is not a card of RULES.md §2, or too many copies of one.

    ``reason``: ``bad_card`` or ``too_many_copies`` (:data:`CardReason`).
    """

    reason: CardReason

    def __init__(self, reason: CardReason, message: str) -> None:
        super().__init__(reason, message)


class IllegalAction(EngineError):
    """An action the rules do not allow (RULES.md §3–§7, §12); the state is unchanged.

    ``reason`` (:data:`IllegalReason`), a stable code for clients: ``game_over``,
    ``not_your_turn``, ``bad_action``, ``bad_card``, ``not_in_hand``,
    ``not_a_combination``, ``does_not_beat``, ``must_lead`` (passing on a lead),
    ``bad_seat``, ``bad_reason`` (an ending :func:`~games.engine.abandon` does not know).
    """

    reason: IllegalReason

    def __init__(self, reason: IllegalReason, message: str) -> None:
        super().__init__(reason, message)


class ArgumentError(EngineError):
    """An argument outside its domain: ``bad_level`` (not 0–16, §7), ``bad_bot`` (not a
    bot policy name), ``bad_seats`` (not one entry per seat), ``bad_dao``, ``bad_half``,
    ``needs_first_out`` (a second half dealt without the first's first_out, §2),
    ``bad_seat`` (a view for a seat outside 0–3), ``dao_mismatch`` (plays compared
    under different daos, §3), ``bad_count`` (a number of deals or processes out of
    range), ``bad_thresholds`` (a review's label thresholds not rising from above
    0). :data:`ArgumentReason`.
    """

    reason: ArgumentReason

    def __init__(self, reason: ArgumentReason, message: str) -> None:
        super().__init__(reason, message)


class RecordError(EngineError):
    """A §11 record or stored state that cannot be written or read (RULES.md §11,
    docs/record.md): ``game_running`` (no record of a running game: its seed is
    secret), ``bad_version`` (a version this engine does not know), ``bad_record``
    (a malformed record or state), ``record_mismatch`` (a record that differs from
    its own replay). :data:`RecordReason`.
    """

    reason: RecordReason

    def __init__(self, reason: RecordReason, message: str) -> None:
        super().__init__(reason, message)
