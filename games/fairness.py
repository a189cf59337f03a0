"""Provably fair deals (RULES.md §11–§12): the deal's seed combines
the server's secret seed with one seed from each seat, and everyone at the
table sees a commitment to the server seed before anyone plays.

- ``server_seed``: 32 hex characters from ``secrets``, made when the table opens
  or its last game started (``Table.next_server_seed``) and committed to in the
  table's snapshot (``next_commitment``) while it waits: before any player sends
  the seed that goes with ``ready``;
- ``player_seeds``: per seat, the string (≤ 64 characters) the player's page
  sent with ``ready``, or one the server makes (a bot, or a page that sent none);
- the deal seed given to ``engine.new_game``:
  ``sha256(server_seed + ":" + ":".join(player_seeds))`` in hex (UTF-8);
- the commitment: ``sha256(server_seed)`` in hex (UTF-8).

While the game runs the view carries only ``fairness.commitment`` (and the
players' seeds, which the server cannot take back); once it is over also the
server seed, so anyone can recompute the deal (docs/fairness.md). Because the
server committed to its seed before the players sent theirs, it could not
pick a seed to suit their seeds (a seed made at the start, after the seeds
came, could have been drawn again and again until the deal suited); because
the players' seeds enter the hash, nobody could compute it in advance.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from typing import Any, NotRequired, TypedDict

from games import engine
from games.engine.shapes import Record

SEED_MAX_LENGTH = 64


class Fairness(TypedDict):
    """A game's fairness inputs, kept in its state as ``state["fairness"]``
    (module docstring): ``server_seed`` (secret while the game runs),
    ``player_seeds`` (per seat) and ``commitment``. :func:`new_inputs` also
    returns ``seed``, the deal seed, which the caller hands to the engine and
    drops (the state keeps it as ``state["seed"]``)."""

    server_seed: str
    player_seeds: list[str]
    commitment: str
    seed: NotRequired[str]


class PublicFairness(TypedDict):
    """What a client may see of :class:`Fairness` (:func:`public`): the
    ``commitment`` and the ``player_seeds``; the ``server_seed`` once the game
    is over."""

    commitment: str
    player_seeds: list[str]
    server_seed: NotRequired[str]


class SiteState(engine.State):
    """A game's state as the site stores it (``Game.state``): the engine's
    :class:`~games.engine.State` plus the site's ``fairness`` entry, absent in
    games dealt before provably fair deals. The engine copies every key it does
    not know (``state.copy()``), so a state it returns keeps ``fairness``."""

    fairness: NotRequired[Fairness]


def clean_seed(seed: Any) -> str | None:
    """A player's seed as sent with ``ready``: ``None`` if absent, else a string
    of 1–64 characters without control characters.

    :raises ValueError: for anything else.
    """
    if seed is None:
        return None
    if (not isinstance(seed, str) or not 0 < len(seed) <= SEED_MAX_LENGTH
            or any(unicodedata.category(c).startswith("C") for c in seed)):
        raise ValueError("a seed is a string of 1 to 64 characters")
    return seed


def commitment(server_seed: str) -> str:
    """SHA-256 of the server seed's UTF-8 bytes, in hex."""
    return hashlib.sha256(server_seed.encode()).hexdigest()


def deal_seed(server_seed: str, player_seeds: list[str]) -> str:
    """The seed the deal is shuffled from (module docstring)."""
    return hashlib.sha256(f"{server_seed}:{':'.join(player_seeds)}".encode()).hexdigest()


def new_inputs(player_seeds: list[str | None], server_seed: str | None = None) -> Fairness:
    """A game's fairness inputs: ``{"server_seed", "player_seeds", "commitment",
    "seed"}`` (``seed``: the deal seed), a server-made seed where a seat gave none.

    :param server_seed: the table's ``next_server_seed``, whose commitment its
        players saw before they sent their seeds; ``None``: a fresh one.
    """
    server = server_seed or secrets.token_hex(16)
    seeds = [s or secrets.token_hex(8) for s in player_seeds]
    return {"server_seed": server, "player_seeds": seeds, "commitment": commitment(server),
            "seed": deal_seed(server, seeds)}


def public(state: SiteState) -> PublicFairness | None:
    """What of a state's fairness inputs a client may see: the commitment and
    the players' seeds; the server seed only once the game is over."""
    inputs = state.get("fairness")
    if not inputs:
        return None
    out: PublicFairness = {"commitment": inputs["commitment"],
                           "player_seeds": list(inputs["player_seeds"])}
    if state["status"] == engine.OVER:
        out["server_seed"] = inputs["server_seed"]
    return out


def check(record: Record, fairness: PublicFairness) -> list[str]:
    """Check a finished game's deal from its §11 record and its revealed
    fairness (``commitment``, ``server_seed``, ``player_seeds``).

    :returns: the problems found, ``[]`` when the commitment matches, the deal
        seed is the one the record was played from, and every half's hands are
        the ones that seed deals.
    """
    problems = []
    server = fairness.get("server_seed") or ""
    if commitment(server) != fairness.get("commitment"):
        problems.append("the server seed does not match the commitment")
    if deal_seed(server, list(fairness.get("player_seeds") or [])) != str(record["seed"]):
        problems.append("the record's seed is not the one the seeds make")
    first_out = None
    for half in record["halves"]:
        dealt = engine.deal_half(str(record["seed"]), half["half"], first_out)
        if [list(h) for h in dealt.hands] != [list(h) for h in half["hands"]]:
            problems.append(f"half {half['half']}: the hands are not the ones dealt")
        if dealt.indicator != half["indicator"]:
            problems.append(f"half {half['half']}: the indicator is not the one dealt")
        if half["finish_order"]:  # the next half's first seat dealt (RULES.md §2)
            first_out = half["finish_order"][0]
    return problems
