"""How a refused request is told on the next page (Django's messages
framework), for every app's form views.

A refusal that names a table the person plays at (``seated_elsewhere``, whose
``params`` carry ``table_id``: RULES.md §12 "One seat per person") is followed
by a link back to that game: testers refused from the lobby, an invite or the
daily challenge otherwise had to find their game themselves.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _

from yuanzi_site.refusals import Refused


def say_refused(request: HttpRequest, refusal: Refused, text: str = "",
                level: int = messages.ERROR) -> None:
    """Put ``text`` (default: the refusal's message) on the next page at
    ``level``, with a link back to the game the refusal names, if any."""
    text = text or str(refusal)
    table_id = refusal.params.get("table_id")
    if table_id is not None:
        text = format_html('{} <a href="{}">{}</a>', text,
                           reverse("table", args=[table_id]), _("Back to your game"))
    messages.add_message(request, level, text)
