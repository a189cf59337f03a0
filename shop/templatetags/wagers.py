"""Template tags for wager tables (``{% load wagers %}``): the ladder and the
table page's wager strings, so that templates of other apps show wagers
without any of them importing ``shop`` (RULES.md §12 "Wagers")."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

from shop import wagers

register = template.Library()


@register.simple_tag
def wager_ladder() -> tuple[int, ...]:
    """The wagers a table may carry (``shop.wagers.LADDER``), in coins."""
    return wagers.LADDER


@register.simple_tag
def wager_seat_factor() -> int:
    """Coins needed to sit per coin of wager (``shop.wagers.SEAT_FACTOR``, RULES.md §9)."""
    return wagers.SEAT_FACTOR


@register.simple_tag
def wager_strings() -> dict[str, str]:
    """The words of ``static/js/wager.js`` (``%(name)s`` placeholders), translated."""
    return {
        "no_wager": _("No wager"),
        "wager_amount": _("Wager: %(wager)s coins"),
        "my_coins": _("Your coins: %(coins)s"),
        "coins_held": _("%(held)s held"),
        "held_title": _("Held by your running wager game until it ends: shown in your coins, "
                        "not spendable."),
        "wager_too_high": _("Greyed out: you need 100 × the wager in coins to set it "
                            "(you have %(coins)s)."),
        "wager_stakes": _("Stake %(stake)s: win or lose %(normal)s coins, %(double)s on a "
                          "double clamp"),
        "can_afford": _("can afford"),
        "cannot_afford": _("cannot afford"),
        "coin_changes": _("Coins"),
        "coins_signed": _("%(coins)s coins"),
        "wager_badge": _("Wager %(wager)s"),
        "wager_no_bots": _("A wager table takes no bots."),
        "bots_no_wager": _("Bots are seated: remove them to set a wager."),
        "wager_short": _("You need %(needed)s coins to play at this wager: Ready waits until "
                         "you have them or the owner lowers the wager; once the other three "
                         "are ready, your seat goes to someone else."),
        "escape_wager": _("At this wager table you also pay %(coins)s coins (all you have, "
                          "if less), shared by the other three."),
    }
