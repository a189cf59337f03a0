"""Transitional facade: the write side now lives in one module per concern
(:mod:`games.tables`, :mod:`games.play`, :mod:`games.chat`,
:mod:`games.presence`) and the read side in :mod:`games.seatview` and
:mod:`games.queries`. Kept only so the tests run unchanged across the move.
"""

from games.chat import chat
from games.errors import Refused
from games.play import act, escape, finish, run_due, set_auto_play, sweep_due
from games.presence import drop_presence, expire_presence, online_cutoff, touch_presence
from games.queries import chat_line
from games.seatview import seat_of, view_for
from games.tables import add_bot, close_idle_tables, create_table, remove_bot, set_ready, sit, stand

__all__ = [
    "Refused", "act", "add_bot", "chat", "chat_line", "close_idle_tables", "create_table",
    "drop_presence", "escape", "expire_presence", "finish", "online_cutoff", "remove_bot",
    "run_due", "seat_of", "set_auto_play", "set_ready", "sit", "stand", "sweep_due",
    "touch_presence", "view_for",
]
