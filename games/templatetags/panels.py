"""``{% plugin_panels "slot" as found %}``: the templates the plugins put at a
page's slot (``games.plugins.panels``), so a page includes other apps' parts
without naming them: ``{% for p in found %}{% include p %}{% endfor %}``."""

from __future__ import annotations

from django import template

from games import plugins
from games.plugins import Slot

register = template.Library()


@register.simple_tag
def plugin_panels(slot: Slot) -> list[str]:
    """The panel templates of ``slot``, in ``GAME_PLUGINS`` order."""
    return plugins.panels(slot)
