"""Request types for the type checker.

A view behind ``login_required`` (or the moderator console's
``moderator_required``) only ever sees a logged-in user; annotating its
request as :class:`AuthenticatedHttpRequest` says so, and ``request.user``
is then a ``User``, not ``User | AnonymousUser`` (django-stubs' documented
pattern). Nothing changes at run time: Django hands over its ``HttpRequest``.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest


class AuthenticatedHttpRequest(HttpRequest):
    """An ``HttpRequest`` whose ``user`` is logged in (a type only)."""

    user: User
