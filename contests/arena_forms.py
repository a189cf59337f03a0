"""The moderators' arena form (``/arenas/new/``): text in, an
:class:`contests.arena.ArenaSpec` out (the bounds are checked again by
``contests.arena.check_spec``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import levels
from contests import arena

BEIJING = ZoneInfo("Asia/Shanghai")


class ArenaForm(forms.Form):
    """Name, start (Beijing time, Asia/Shanghai, whatever the site's time
    zone), duration 15–180 min, entry fee,
    minimum level, maximum players, prize split (per cent, comma-separated,
    default 50,30,20), house prize."""

    name = forms.CharField(label=_("Name"), max_length=40,
                           widget=forms.TextInput(attrs={"data-count": ""}))
    starts_at = forms.DateTimeField(label=_("Starts at (Beijing time, Asia/Shanghai)"),
                                    widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    duration_minutes = forms.IntegerField(label=_("Duration (minutes)"), initial=60,
                                          min_value=arena.MIN_MINUTES,
                                          max_value=arena.MAX_MINUTES)
    entry_fee = forms.IntegerField(label=_("Entry fee (coins)"), initial=0, min_value=0,
                                   max_value=arena.MAX_FEE)
    min_level = forms.IntegerField(label=_("Minimum level"), initial=0, min_value=0,
                                   max_value=levels.MAX_LEVEL)
    max_players = forms.IntegerField(label=_("Maximum players"), initial=64, min_value=4,
                                     max_value=arena.MAX_PLAYERS)
    prize_split = forms.CharField(label=_("Prize split (per cent by place)"),
                                  initial="50,30,20", max_length=100)
    house_prize = forms.IntegerField(label=_("House prize (coins)"), initial=0, min_value=0,
                                     max_value=arena.MAX_FEE)

    def clean_starts_at(self) -> datetime:
        """The wall-clock time typed, read as Beijing time (the label says so),
        in the future: said beside the field with every other field's error,
        not after them (``contests.arena.check_spec`` checks it again)."""
        value: datetime = self.cleaned_data["starts_at"]
        wall = timezone.localtime(value).replace(tzinfo=None)
        starts = wall.replace(tzinfo=BEIJING)
        if starts < timezone.now() - arena.START_GRACE:
            raise forms.ValidationError(_("An arena starts in the future."))
        return starts

    def clean_prize_split(self) -> tuple[int, ...]:
        """``"50,30,20"`` → ``(50, 30, 20)``: whole numbers above 0 summing to 100."""
        text = self.cleaned_data["prize_split"]
        parts = [p.strip() for p in text.replace("，", ",").split(",") if p.strip()]
        if not parts or not all(p.isascii() and p.isdigit() for p in parts):
            raise forms.ValidationError(_("Whole numbers separated by commas, e.g. 50,30,20."))
        split = tuple(int(p) for p in parts)
        if any(p <= 0 for p in split) or sum(split) != 100:
            raise forms.ValidationError(_("Each place above 0, summing to 100."))
        return split

    def spec(self) -> arena.ArenaSpec:
        """The valid form as a spec (call after ``is_valid()``)."""
        data: dict[str, Any] = self.cleaned_data
        return arena.ArenaSpec(**data)
