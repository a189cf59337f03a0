"""The allauth account adapter: usernames with a blocked word are refused at
sign-up (issue 10, the chat filter applies to usernames too)."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from django import forms
from django.utils.translation import gettext as _

from moderation import wordfilter


class AccountAdapter(DefaultAccountAdapter):
    """allauth's adapter with the blocked-word check on usernames."""

    def clean_username(self, username, shallow=False):
        """allauth's checks, then: no blocked word (``forms.ValidationError``)."""
        username = super().clean_username(username, shallow=shallow)
        if not wordfilter.is_clean(username):
            raise forms.ValidationError(_("That username contains a word that is not allowed."))
        return username
