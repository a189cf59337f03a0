"""``{% shop_panel %}``: the player's coins, check-in, relief and inventory grid,
shown on the shop page and on one's own profile."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import Profile
from shop import coins, inventory
from shop.models import Item

register = template.Library()


@register.inclusion_tag("shop/_panel.html", takes_context=True)
def shop_panel(context: dict[str, Any], user: User) -> dict[str, Any]:
    """The panel for ``user`` (the signed-in one: it has forms and buttons)."""
    profile = Profile.objects.get(user=user)
    slots = inventory.slots_of(user.pk)
    return {
        "request": context.get("request"),
        "csrf_token": context.get("csrf_token"),
        "coins": profile.coins,
        "held": profile.coins_held,  # of coins, held by a running wager game (RULES.md §12)
        "checkin": coins.check_in_status(user),
        "relief": coins.relief_status(user, profile.coins),
        "slots": slots,
        # 停用定时器 only while a timer is armed
        "armed_timer": any(s.armed for s in slots),
        # the grid redraws its slots' names (tooltips, alt texts) after a swap or a use
        "strings": {**strings(), "items": {i.code: i.name for i in Item.objects.all()}},
    }


def strings() -> dict[str, str]:
    """The inventory script's texts, translated."""
    return {
        "at_table": _("Use this at a table: open the table and use it there."),
        "at_result": _("Use the recorder on a finished game: from its result, or your "
                       "replays page."),
        "armed": _("Timer armed: it fires the first time your turn would time out in a "
                   "rated game."),
        "disarmed": _("Timer disarmed."),
        "gem": _("+%(points)s rating points."),
        "select": _("Selected: click another slot to swap, double-click to use."),
        "failed": _("That did not work; try again."),
        "no_recorder": _("You have no recorder: buy one in the shop."),
        "saved": _("Saved to your replays."),
        "saved_badge": _("Saved"),
        "open_replay": _("Watch the replay"),
        "armed_mark": _("armed"),
        "held": _("%(held)s held"),
    }


@register.inclusion_tag("shop/_table_items.html", takes_context=True)
def shop_table_items(context: dict[str, Any]) -> dict[str, Any]:
    """The table page's items panel and theme (``static/shop/table_items.js``)."""

    user = context["request"].user
    return {
        "user": user,
        "shop_table": {
            "user_id": user.pk if user.is_authenticated else None,
            "me_url": reverse("api_me"),
            "items": {i.code: i.name for i in Item.objects.all()},
            "strings": {
                "done": _("Done."),
                "replay_saved": _("Saved to your replays."),
                "open_replay": _("Watch the replay"),
                "renamed": _("The table is renamed."),
                "themed": _("The tablecloth is laid."),
                "counting": _("The card counter is on for this half."),
                "none": _("You have none of that item: buy it in the shop."),
                "protected": _("Name protected by %(by)s until %(until)s."),
                "big_joker": _("Big joker"),
                "small_joker": _("Small joker"),
                "counter_title": _("Card counter: what the other three still hold this half"),
                "counter_label": _("Cards the other three hold"),
                "dao": _("dao"),
                "drops": _("Drops: %(drops)s"),
                "drop_line": _("%(name)s receives %(item)s"),
                "drop_lost": _("%(name)s would receive %(item)s, but the inventory is full"),
            },
        },
    }


@register.inclusion_tag("shop/_lobby_signs.html")
def shop_lobby_signs() -> dict[str, Any]:
    """The lobby's 招牌 badges (``static/shop/lobby_signs.js``)."""
    return {"shop_lobby": {"sign": _("Sign: name protected until %(until)s"),
                           "gold": _("Gold sign: name protected until %(until)s")}}
