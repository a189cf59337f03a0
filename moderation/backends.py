"""Authentication backends that refuse suspended accounts (issue 10).

``user_can_authenticate`` is asked both when someone logs in and when a
session's user is loaded on every request and websocket connect
(``get_user``), so a suspension logs the account out everywhere at once and
keeps it out until it ends; nothing needs to run when it does.
"""

from __future__ import annotations

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend


def _suspended(user) -> bool:
    from moderation.models import Sanction

    return Sanction.objects.active().filter(user_id=user.pk, kind=Sanction.SUSPENSION).exists()


class ModelBackend(DjangoModelBackend):
    """Django's backend, refusing suspended accounts."""

    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and not _suspended(user)


class AuthenticationBackend(AllauthBackend):
    """allauth's backend (log-in by username), refusing suspended accounts."""

    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and not _suspended(user)
