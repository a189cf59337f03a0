"""Every bot policy by name: :data:`POLICIES` (RULES.md §12: the levels a player picks).

Each is ``choose(bot_view, rng) -> action`` (:data:`~games.engine.bots.Policy`).
The simple ones live in :mod:`games.engine.bots`, the expert in
:mod:`games.engine.expert` (which plays its search's play-outs with the normal
bot), the master in :mod:`games.engine.master` (the expert's rules for its
candidates), so this registry sits above them all.
"""

from __future__ import annotations

from .bots import Policy, beginner_policy, heuristic_policy, random_policy
from .expert import expert_policy
from .master import master_policy

POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "beginner": beginner_policy,
    "normal": heuristic_policy,
    "heuristic": heuristic_policy,
    "expert": expert_policy,
    "master": master_policy,
}
"""The bots by name, each ``(bot_view, rng) -> action``: the site's levels
``beginner``, ``normal``, ``expert``, ``master`` (:data:`~games.engine.shapes.BOT_POLICIES`),
``heuristic`` (the old name of ``normal``, kept for existing callers) and
``random``."""
