"""原子 (Yuanzi) rules engine: pure Python, no Django, fully typed (RULES.md §2–§12).

Public contract (RULES.md §10) and the rest of the engine's API::

    classify(cards, dao) -> Play | None          # §3
    beats(new_play, table_play) -> bool          # §3
    dao_rank(indicator, half) -> str             # §2
    first_dealt_seat(dao) -> int                 # §2
    legal_plays(hand, table_play, dao) -> list[Play]
    new_game(seed, levels, bots) -> State        # plain JSON-able dict (shapes.State)
    apply(state, seat, action) -> (State, [Event]), raises IllegalAction
    abandon(state, reason, seat=None) -> (State, [Event])   # escape, moderators (§7, §12)
    view(state, seat | None) -> View             # what that seat may see (fresh data)
    bot_view(state, seat) -> BotView             # view + this half's history (§12), bots only
    upgrade(state) / upgrade_record(record)      # stored data at the current version
    replay / to_record / from_record             # §11 game records (docs/record.md)
    POLICIES[name](bot_view, rng) -> Action      # random, beginner, normal, expert, master
    expert_policy(bot_view, rng, budget_ms=40) -> Action   # 高手, budget: counted play-outs
    master_policy(bot_view, rng, samples=...) -> Action    # 大师, inference + counted search
    botmatch.run_match / run_ladder / run        # bot-vs-bot games (games.engine.botmatch)

Every error it raises is an :class:`EngineError` (a ``ValueError``) with a
``reason`` code. The data shapes are in :mod:`games.engine.shapes`.
"""

from .bots import Policy, beginner_policy, heuristic_policy, random_policy
from .cards import SHOE, card_points, cards_points, parse_card, parse_cards, sort_hand
from .combos import ATOM, BOMB, HYDROGEN, KINDS, PAIR, SINGLE, TRIPLE, Play, beats, classify
from .deal import Deal, dao_rank, deal_half, first_dealt_seat, next_seat, partner, team_of
from .errors import (
    REASONS,
    ArgumentError,
    CardError,
    EngineError,
    IllegalAction,
    RecordError,
)
from .expert import expert_policy
from .levels import LEVELS, escape_penalty, game_stake, level_for, points_to_next
from .master import master_policy
from .match import (
    OVER,
    PLAYING,
    abandon,
    apply,
    game_totals,
    new_game,
    settle_half,
    table_play,
    timeout_action,
    to_act,
)
from .moves import legal_plays
from .policies import POLICIES
from .record import from_record, record_actions, replay, to_record
from .shapes import (
    BOT_POLICIES,
    END_REASONS,
    Action,
    BotPolicy,
    BotView,
    EndReason,
    Event,
    Record,
    Result,
    State,
    View,
)
from .upgrade import RECORD_VERSION, STATE_VERSION, bot_policy, upgrade, upgrade_record
from .view import bot_view, view

__all__ = [
    "ATOM", "BOMB", "BOT_POLICIES", "END_REASONS", "HYDROGEN", "KINDS", "LEVELS", "OVER", "PAIR",
    "PLAYING", "POLICIES", "REASONS", "RECORD_VERSION", "SHOE", "SINGLE", "STATE_VERSION", "TRIPLE",
    "Action", "ArgumentError", "BotPolicy", "BotView", "CardError", "Deal", "EndReason",
    "EngineError", "Event", "IllegalAction", "Play", "Policy", "Record", "RecordError", "Result",
    "State", "View", "abandon", "apply", "beats", "beginner_policy", "bot_policy", "bot_view",
    "card_points", "cards_points", "classify", "dao_rank", "deal_half", "escape_penalty",
    "expert_policy", "first_dealt_seat", "from_record", "game_stake", "game_totals",
    "heuristic_policy", "legal_plays", "level_for", "master_policy", "new_game", "next_seat",
    "parse_card", "parse_cards", "partner", "points_to_next", "random_policy", "record_actions",
    "replay", "settle_half", "sort_hand", "table_play", "team_of", "timeout_action", "to_act",
    "to_record", "upgrade", "upgrade_record", "view",
]
