"""The previous trick as it was played (上一轮), the read side.

Derived from the current half's action log (``state["actions"]``, every play
and pass in order) by the trick rule of RULES.md §4: a trick ends when every
other player still holding cards has passed since its last play. The plays of
the running trick are the log's last ``len(trick.plays)`` entries; the
completed ones before them are walked with each seat's card count, rebuilt
from the current hands plus what each seat played since the half began.
"""

from __future__ import annotations

from .shapes import PreviousTrick, SeatCards, State, seat_cards


def previous_trick(state: State) -> PreviousTrick | None:
    """The last completed trick of the current half, or ``None`` (none yet).

    :returns: ``{"plays": [[seat, cards], …] (cards ``[]`` for a pass),
        "winner": the seat whose play took it}``.
    """
    actions = [(int(seat), list(cards)) for seat, cards in state["actions"]]
    running = len(state["trick"]["plays"])
    done = actions[: len(actions) - running] if running else actions
    if not done:
        return None
    counts = [len(h) for h in state["hands"]]
    for seat, cards in actions:
        counts[seat] += len(cards)
    last: PreviousTrick | None = None
    plays: list[SeatCards] = []
    winner: int | None = None
    passes = 0
    for seat, cards in done:
        plays.append(seat_cards(seat, cards))
        if cards:
            counts[seat] -= len(cards)
            winner, passes = seat, 0
            continue
        passes += 1
        others = sum(1 for x in range(4) if x != winner and counts[x])
        if passes >= others:  # the trick ends (§4)
            last = {"plays": plays, "winner": winner}
            plays, winner, passes = [], None, 0
    return last
