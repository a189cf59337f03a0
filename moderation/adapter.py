"""The allauth account adapter: usernames are folded and refused as
``accounts.usernames`` says (full-width forms folded, invisible characters and
deleted accounts' names refused), usernames with a blocked word are refused at
sign-up (the chat filter applies to usernames too), and a suspended
account is refused at log-in with a message saying until when."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.internal.stagekit import clear_login
from django import forms
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from accounts import usernames
from moderation import hooks, wordfilter
from moderation.backends import suspension_text
from moderation.models import Sanction


class AccountAdapter(DefaultAccountAdapter):  # type: ignore[misc]  # allauth ships no types
    """allauth's adapter with the username rules and the blocked-word check."""

    def clean_username(self, username: str, shallow: bool = False) -> str:
        """Folded and checked (``accounts.usernames.clean``) first, so the
        uniqueness check sees the folded name (a full-width ``ABC`` is
        taken when ``ABC`` is); then allauth's checks; then no blocked word
        (``forms.ValidationError``)."""
        username = super().clean_username(usernames.clean(username), shallow=shallow)
        if not wordfilter.is_clean(username):
            raise forms.ValidationError(_("That username contains a word that is not allowed."))
        return username

    def pre_login(self, request: HttpRequest, user: AbstractBaseUser,
                  **kwargs: Any) -> HttpResponse | None:
        """Refuse a suspended account (``moderation.backends`` also keeps its
        sessions from loading)."""

        suspension = hooks.active(user.pk, Sanction.SUSPENSION)
        if suspension is not None:
            clear_login(request)
            messages.error(request, suspension_text(suspension))
            return redirect("account_login")
        response: HttpResponse | None = super().pre_login(request, user, **kwargs)
        return response
