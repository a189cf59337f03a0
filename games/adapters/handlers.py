"""The table socket's own message types, plugged in like any other app's
(:data:`MESSAGES`, served by ``games.plugin``; docs/protocol.md lists them).
Each parses its message into a call of a write module; validation that is
about the message's shape happens here, the rules in the write modules.

Errors: :class:`yuanzi_site.refusals.Refused` (``bad_message`` for a malformed field).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import chat, fairness, metrics, phrases, play, queries, tables
from games.plugins import SocketContext, SocketMessage
from yuanzi_site.refusals import Refused


def flag(msg: dict[str, Any], key: str, default: bool = True) -> bool:
    """A boolean field: a JSON ``true``/``false``; missing means ``default``.

    :raises Refused: ``bad_message`` for anything else (``"false"`` is not false).
    """
    value = msg.get(key, default)
    if not isinstance(value, bool):
        raise Refused("bad_message", _("“%(key)s” must be true or false.") % {"key": key})
    return value


def running_game(table_id: int) -> int:
    """The id of the game running (or last played) at the table.

    :raises Refused: ``no_game`` when the table has had none.
    """
    game_id = queries.current_game_id(table_id)
    if game_id is None:
        raise Refused("no_game", _("No game is running at this table."))
    return game_id


def _sit(ctx: SocketContext, msg: dict[str, Any]) -> None:
    tables.sit(ctx.table_id, ctx.user, msg.get("seat"))


def _stand(ctx: SocketContext, msg: dict[str, Any]) -> None:
    tables.stand(ctx.table_id, ctx.user)


def _ready(ctx: SocketContext, msg: dict[str, Any]) -> None:
    try:
        seed = fairness.clean_seed(msg.get("seed"))
    except ValueError:
        raise Refused("bad_message", _("“seed” must be a string of 1 to 64 characters.")
                      ) from None
    # the message goes along: it says what the page showed (its wager), which
    # the plugins check under the table's lock (docs/protocol.md)
    tables.set_ready(ctx.table_id, ctx.user, flag(msg, "ready"), seed=seed, shown=msg)


def _add_bot(ctx: SocketContext, msg: dict[str, Any]) -> None:
    tables.add_bot(ctx.table_id, ctx.user, msg.get("seat"), msg.get("bot", "normal"))


def _remove_bot(ctx: SocketContext, msg: dict[str, Any]) -> None:
    tables.remove_bot(ctx.table_id, ctx.user, msg.get("seat"))


def _chat(ctx: SocketContext, msg: dict[str, Any]) -> None:
    text = msg.get("text")
    chat.chat(ctx.table_id, ctx.user, text if isinstance(text, str) else "")


#: the most cards one play can hold (a whole 41-card hand)
MAX_CARDS = 41


def _cards(msg: dict[str, Any]) -> list[str]:
    """The message's ``cards``: a list of strings, at most :data:`MAX_CARDS`.

    :raises Refused: ``bad_card``, ``not_in_hand`` (more than a hand holds).
    """
    cards = msg.get("cards")
    # a string is not a list of one card ("7S" is refused, not read as ["7S"])
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise Refused("bad_card", _("That is not a card."))
    if len(cards) > MAX_CARDS:  # more than any hand holds, read or not
        raise Refused("not_in_hand", _("Those cards are not in your hand."))
    return cards


def _move(ctx: SocketContext, msg: dict[str, Any]) -> None:
    action: dict[str, Any] = {"type": msg["type"]}
    if msg["type"] == "play":
        action["cards"] = _cards(msg)
    with metrics.MOVE_SECONDS.time():  # the game lookup, the move, its commit and broadcast
        if ctx.game_id is not None:  # the connection's hint, checked under the game's lock
            play.act(ctx.game_id, ctx.user, msg.get("seq"), action, table_id=ctx.table_id)
        else:
            play.act(running_game(ctx.table_id), ctx.user, msg.get("seq"), action)


def _why(ctx: SocketContext, msg: dict[str, Any]) -> dict[str, Any]:
    return play.why(running_game(ctx.table_id), ctx.user, _cards(msg))


def _escape(ctx: SocketContext, msg: dict[str, Any]) -> None:
    play.escape(running_game(ctx.table_id), ctx.user)


def _auto_play(ctx: SocketContext, msg: dict[str, Any]) -> None:
    on = flag(msg, "on")  # a malformed message first, whatever the table's state
    play.set_auto_play(running_game(ctx.table_id), ctx.user, on)


def _phrase(ctx: SocketContext, msg: dict[str, Any]) -> None:
    phrases.say(ctx.table_id, ctx.user, msg.get("index"))


def _spectators(ctx: SocketContext, msg: dict[str, Any]) -> None:
    tables.set_spectators(ctx.table_id, ctx.user, flag(msg, "allowed"))


#: the table socket's own message types (docs/protocol.md), served by
#: ``games.plugin.GamesPlugin``
MESSAGES: dict[str, SocketMessage] = {
    "sit": SocketMessage(_sit),
    "stand": SocketMessage(_stand),
    "ready": SocketMessage(_ready),
    "add_bot": SocketMessage(_add_bot),
    "remove_bot": SocketMessage(_remove_bot),
    "chat": SocketMessage(_chat, rate="chat"),
    "phrase": SocketMessage(_phrase, rate="chat"),
    "play": SocketMessage(_move),
    "pass": SocketMessage(_move),
    # read only, asked by the page after a pause on a selection it cannot play
    "why": SocketMessage(_why),
    "escape": SocketMessage(_escape),
    "auto_play": SocketMessage(_auto_play),
    "spectators": SocketMessage(_spectators),
}
