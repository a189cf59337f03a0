"""``{{ table.name|table_name }}``: a table's name in the page's language
(:func:`games.names.display_name`)."""

from __future__ import annotations

from django import template

from games.names import display_name

register = template.Library()


@register.filter
def table_name(name: str) -> str:
    """The stored ``name`` as the active language reads it."""
    return display_name(str(name))
