"""Authentication backends that refuse suspended accounts and fold the
username typed at log-in as sign-up folds a new one.

Sign-up stores a name folded by ``accounts.usernames.normalise`` (NFKC:
full-width ``ABCdef`` is stored as ASCII ``ABCdef``), so :class:`_FoldedUsername`
folds the name typed at log-in the same way before looking it up: the
spelling someone signed up with logs them in (a tester's full-width name was
refused while ``abcdef`` worked).

``user_can_authenticate`` is asked both when someone logs in and when a
session's user is loaded on every request and websocket connect
(``get_user``), so a suspension logs the account out everywhere at once and
keeps it out until it ends; nothing needs to run when it does.
:class:`SuspendedSessionMiddleware` tells such a session why, once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from asgiref.sync import sync_to_async
from django.contrib import messages
from django.contrib.auth import SESSION_KEY, logout
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from accounts import usernames
from games import wire
from moderation import hooks
from moderation.models import Sanction


def _suspended(user: User | AnonymousUser) -> bool:

    if user.pk is None:  # anonymous: never suspended (no row can match)
        return False

    return Sanction.objects.active().filter(user_id=user.pk, kind=Sanction.SUSPENSION).exists()


class _SyncCheck:
    """Django's async ``aget_user`` and ``aauthenticate`` call the synchronous
    ``user_can_authenticate`` on the event loop, where the suspension query is
    refused (``SynchronousOnlyOperation``: allauth's async middleware asks
    ``request.auser()`` on /accounts/, an HTTP 500 a tester met): they run the
    synchronous methods in a thread instead."""

    async def aget_user(self, user_id: Any) -> User | None:
        return await sync_to_async(self.get_user)(user_id)  # type: ignore[attr-defined,no-any-return]

    async def aauthenticate(self, request: HttpRequest | None, username: str | None = None,
                            password: str | None = None, **kwargs: Any) -> User | None:
        given = {k: v for k, v in (("username", username), ("password", password)) if v is not None}
        return await sync_to_async(self.authenticate)(  # type: ignore[attr-defined,no-any-return]
            request, **given, **kwargs)


class _FoldedUsername:
    """The typed ``username`` folded by :func:`accounts.usernames.normalise`,
    the sign-up's folding, before the backend looks it up (``aauthenticate``
    comes here too, through ``authenticate``). A name stored unfolded (signed
    up before names were folded) still logs in as it was typed."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None,
                     password: str | None = None, **kwargs: Any) -> User | None:
        folded = usernames.normalise(username) if isinstance(username, str) else username
        user: User | None = super().authenticate(  # type: ignore[misc]
            request, username=folded, password=password, **kwargs)
        if user is None and folded != username:
            user = super().authenticate(  # type: ignore[misc]
                request, username=username, password=password, **kwargs)
        return user


class ModelBackend(_SyncCheck, _FoldedUsername, DjangoModelBackend):
    """Django's backend, refusing suspended accounts."""

    def user_can_authenticate(self, user: User | AnonymousUser | None) -> bool:
        return (super().user_can_authenticate(user) and user is not None
                and not _suspended(user))


class AuthenticationBackend(_SyncCheck, _FoldedUsername, AllauthBackend):  # type: ignore[misc]  # allauth: no types
    """allauth's backend (log-in by username), refusing suspended accounts."""

    def user_can_authenticate(self, user: User | AnonymousUser | None) -> bool:
        return bool(super().user_can_authenticate(user) and user is not None
                    and not _suspended(user))


def suspension_text(sanction: Sanction) -> str:
    """What a suspended person is told: until when and why."""

    if sanction.until is None:
        return _("Your account is suspended for good: %(reason)s") % {"reason": sanction.reason}
    return _("Your account is suspended until %(until)s: %(reason)s") % {
        "until": hooks.until_text(sanction), "reason": sanction.reason}


class SuspendedSessionMiddleware:
    """A session whose account was suspended while no socket of theirs was
    open: the backends above no longer load its user, which alone would be a
    silent log-out. On its next page it is logged out with a message saying
    why and until when, not silently. After ``AuthenticationMiddleware`` and
    ``MessageMiddleware``; one query, only for such a session."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.user.is_authenticated:
            user_id = wire.whole(request.session.get(SESSION_KEY))
            if user_id is not None:
                suspension = hooks.active(user_id, Sanction.SUSPENSION)
                if suspension is not None:
                    logout(request)
                    messages.error(request, suspension_text(suspension))
        return self.get_response(request)
