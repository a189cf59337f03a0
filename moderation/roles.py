"""Who is a moderator: a member of the ``moderators`` group, which
carries the moderation permissions (``migrations`` creates it). Not ``is_staff``,
not superuser: a superuser may use the console (Django grants them every
permission) but is neither badged nor a moderator's target.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Group, Permission, User
from django.utils.translation import gettext_lazy as _

GROUP = "moderators"
PERMISSIONS = ("use_console", "sanction_users", "manage_tables", "grant_coins")

#: the permission each console action needs besides ``use_console`` (the
#: ``moderators`` group holds them all; another group may hold fewer)
ACTION_PERMISSIONS = {
    "close": "manage_tables", "rename": "manage_tables",
    "kick": "sanction_users", "mute": "sanction_users", "unmute": "sanction_users",
    "suspend": "sanction_users", "unsuspend": "sanction_users",
    "grant": "grant_coins", "revoke": "grant_coins", "gem_cap": "grant_coins",
}
#: what each permission allows, for the refusal's message
PERMISSION_LABELS = {
    "use_console": _("use the moderator console"),
    "manage_tables": _("close and rename tables"),
    "sanction_users": _("kick, mute and suspend players"),
    "grant_coins": _("grant and revoke coins and set the gem cap"),
}


def is_moderator(user: User | AnonymousUser | None) -> bool:
    """Whether ``user`` is in the moderators group (anonymous: ``False``)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    cached: bool | None = getattr(user, "_is_moderator", None)
    if cached is None:
        cached = user.groups.filter(name=GROUP).exists()
        # kept on the instance (a lazy request.user passes it on to its User);
        # not a field of User, so the type checker knows no such attribute
        setattr(user, "_is_moderator", cached)  # noqa: B010
    return cached


def can_use_console(user: User | AnonymousUser) -> bool:
    """Moderators (and superusers, who hold every permission)."""
    return bool(getattr(user, "is_authenticated", False)
                and user.has_perm("moderation.use_console"))


def may(user: User | AnonymousUser, action: str) -> bool:
    """Whether ``user`` holds the permission console ``action`` needs
    (:data:`ACTION_PERMISSIONS`; an action not listed needs ``use_console``).
    Superusers hold every permission."""
    codename = ACTION_PERMISSIONS.get(action, "use_console")
    return bool(getattr(user, "is_authenticated", False)
                and user.has_perm(f"moderation.{codename}"))


def moderator_ids(user_ids: Iterable[int | None]) -> set[int]:
    """Which of ``user_ids`` are moderators (one query; ``None`` entries are skipped)."""
    ids = [i for i in user_ids if i is not None]
    if not ids:
        return set()
    return set(get_user_model().objects.filter(pk__in=ids, groups__name=GROUP)
               .values_list("pk", flat=True))


def group() -> Group:
    """The moderators group with its permissions (made by a migration; made
    again here if a test database was flushed)."""
    found, created = Group.objects.get_or_create(name=GROUP)
    if created or not found.permissions.exists():
        found.permissions.add(*Permission.objects.filter(
            content_type__app_label="moderation", codename__in=PERMISSIONS))
    return found


def add(user: User) -> None:
    """Make ``user`` a moderator."""
    user.groups.add(group())
    user.__dict__.pop("_is_moderator", None)
    for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cache, None)


def remove(user: User) -> None:
    """Make ``user`` no longer a moderator."""
    user.groups.remove(group())
    user.__dict__.pop("_is_moderator", None)
