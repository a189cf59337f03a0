"""Views of the games app."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def lobby(request: HttpRequest) -> HttpResponse:
    """Home page at ``/``. For now a placeholder saying the lobby is coming."""
    return render(request, "games/lobby.html")
