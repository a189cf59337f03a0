"""``manage.py moderator add USER | remove USER | list``: who is a moderator
(the ``moderators`` group)."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from moderation import roles


class Command(BaseCommand):
    help = "Add or remove a moderator, or list the moderators."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("verb", choices=["add", "remove", "list"])
        parser.add_argument("username", nargs="?")

    def handle(self, *args: Any, verb: str, username: str | None, **options: Any) -> None:
        group = roles.group()
        if verb == "list":
            for name in group.user_set.order_by("username").values_list("username", flat=True):
                self.stdout.write(name)
            return
        if not username:
            raise CommandError(f"moderator {verb} needs a username")
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        if verb == "add":
            roles.add(user)
            self.stdout.write(f"{username} is a moderator")
        else:
            roles.remove(user)
            self.stdout.write(f"{username} is no longer a moderator")
