"""Contests' models, one module per contest kind (Django loads this package
as ``contests.models``): each module's models are imported here."""

from contests.models.challenge import ChallengeBoard, ChallengeDay, ChallengeEntry

__all__ = ["ChallengeBoard", "ChallengeDay", "ChallengeEntry"]
