"""The account forms: sign-up (allauth's, its username box as long as a new
name may be), the avatar chooser and deleting an account."""

from __future__ import annotations

from typing import Any

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from accounts import usernames
from accounts.models import AVATARS


class SignupForm(AllauthSignupForm):  # type: ignore[misc]  # allauth ships no types
    """allauth's sign-up form (``ACCOUNT_FORMS``) whose username box stops at
    :data:`accounts.usernames.MAX_LENGTH` characters: the column allows 150,
    a new name 20 (a tester typed 150 and was told 20 only after sending)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["username"]
        field.max_length = usernames.MAX_LENGTH
        field.widget.attrs["maxlength"] = str(usernames.MAX_LENGTH)


class AvatarForm(forms.Form):
    """Choose one of the built-in avatars (``accounts.models.AVATARS``);
    anything else is a form error."""

    avatar = forms.ChoiceField(label=_("Avatar"), choices=[(c, c) for c in AVATARS],
                               widget=forms.RadioSelect)


class DeleteAccountForm(forms.Form):
    """Deleting an account asks for its password (RULES.md §12): a wrong one
    is a form error and nothing changes."""

    password = forms.CharField(
        label=_("Password"), strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))

    def __init__(self, user: User, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        """The account's own password, else ``ValidationError``."""
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."))
        return password
