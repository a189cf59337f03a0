"""``{% tutorial_offer %}``: the lobby's small link to the tutorial, offered to
visitors and to accounts younger than ``OFFER_DAYS`` that have not finished
every lesson (with how many they have). For an account it carries the lesson
codes in order, so ``static/js/tutorial_offer.js`` can hand the lessons this
browser finished logged out to the account (``/api/tutorial/sync``) on the
first page after signing up, and count them at once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import template
from django.utils import timezone

from games import tutorial
from games.models import TutorialProgress

register = template.Library()

OFFER_DAYS = 30  # days an account counts as new; the page stays at /tutorial/ for everyone


@register.inclusion_tag("games/_tutorial_offer.html", takes_context=True)
def tutorial_offer(context: dict[str, Any]) -> dict[str, Any]:
    """``{show, done, count, visitor, codes}`` for the signed-in user or the
    visitor of the page (``codes``: the lesson codes, space-separated, lesson 1
    first)."""
    user = getattr(context.get("request"), "user", None)
    if user is None or not user.is_authenticated:
        return {"show": True, "done": 0, "count": tutorial.COUNT, "visitor": True}
    done = TutorialProgress.objects.filter(user=user, lesson__in=tutorial.CODES).count()
    new = user.date_joined >= timezone.now() - timedelta(days=OFFER_DAYS)
    return {"show": new and done < tutorial.COUNT, "done": done, "count": tutorial.COUNT,
            "visitor": False, "codes": " ".join(tutorial.CODES)}
