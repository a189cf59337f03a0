"""The moderators group, which carries the moderation permissions
(``migrations`` creates it), and the permission each console action needs.
Who *is* a moderator is one test for the whole site,
:func:`games.access.is_moderator`: the group's members and superusers (who
hold every permission). Not ``is_staff``.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, Group, Permission, User
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.access import MODERATORS_GROUP

GROUP = MODERATORS_GROUP
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


#: every app's permissions the moderators group holds, ``{app_label: codenames}``:
#: moderation's own, and what an app above it adds (:func:`hold`)
GROUP_PERMISSIONS: dict[str, tuple[str, ...]] = {"moderation": PERMISSIONS}


def hold(app_label: str, codenames: tuple[str, ...]) -> None:
    """The moderators group also holds these permissions of ``app_label`` (an
    app above moderation, e.g. contests' ``manage_arena``; in its ``ready()``)."""
    GROUP_PERMISSIONS[app_label] = codenames


def group() -> Group:
    """The moderators group with its permissions (made by migrations; made
    again here, with every app's :data:`GROUP_PERMISSIONS`, if a test database
    was flushed)."""
    found, created = Group.objects.get_or_create(name=GROUP)
    wanted = Q()
    for app_label, codenames in GROUP_PERMISSIONS.items():
        wanted |= Q(content_type__app_label=app_label, codename__in=codenames)
    perms = Permission.objects.filter(wanted)
    if created or found.permissions.filter(wanted).count() < perms.count():
        found.permissions.add(*perms)
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
