"""原子 (Yuanzi) rules engine: pure Python, no Django (RULES.md §2–§11).

Public contract (RULES.md §10) and the rest of the engine's API::

    classify(cards, dao) -> Play | None          # §3
    beats(new_play, table_play) -> bool          # §3
    dao_rank(indicator, half) -> str             # §2
    first_dealt_seat(dao) -> int                 # §2
    legal_plays(hand, table_play, dao) -> list[Play]
    new_game(seed, levels, bots) -> state        # plain JSON-able dict
    apply(state, seat, action) -> (state, events), raises IllegalAction
    view(state, seat | None) -> dict             # what that seat may see
    bot_view(state, seat) -> dict                # view + this half's history (§12)
    replay / to_record / from_record             # §11 game records
    POLICIES[name](bot_view, rng) -> action      # random, beginner, normal (heuristic), expert
"""

from .bots import BOT_LEVELS, POLICIES, beginner_policy, heuristic_policy, random_policy
from .cards import SHOE, CardError, card_points, cards_points, parse_card, parse_cards, sort_hand
from .combos import ATOM, BOMB, HYDROGEN, KINDS, PAIR, SINGLE, TRIPLE, Play, beats, classify
from .deal import Deal, dao_rank, deal_half, first_dealt_seat, next_seat, partner, team_of
from .expert import expert_policy
from .levels import LEVELS, escape_penalty, game_stake, level_for, points_to_next
from .match import (
    OVER,
    PLAYING,
    IllegalAction,
    apply,
    game_totals,
    new_game,
    settle_half,
    table_play,
    timeout_action,
    to_act,
)
from .moves import legal_plays
from .record import from_record, record_actions, replay, to_record
from .view import bot_view, view

__all__ = [
    "ATOM", "BOMB", "BOT_LEVELS", "HYDROGEN", "KINDS", "LEVELS", "OVER", "PAIR", "PLAYING",
    "POLICIES", "SHOE", "SINGLE", "TRIPLE", "CardError", "Deal", "IllegalAction", "Play", "apply",
    "beats", "beginner_policy", "bot_view", "card_points", "cards_points", "classify", "dao_rank",
    "deal_half", "escape_penalty", "expert_policy", "first_dealt_seat", "from_record", "game_stake",
    "game_totals", "heuristic_policy", "legal_plays", "level_for", "new_game", "next_seat",
    "parse_card", "parse_cards", "partner", "points_to_next", "random_policy", "record_actions",
    "replay", "settle_half", "sort_hand", "table_play", "team_of", "timeout_action", "to_act",
    "to_record", "view",
]
