"""Project middleware."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class ChineseByDefaultMiddleware:
    """Make the UI Chinese unless the visitor picked a language on the site.

    Django's LocaleMiddleware would follow the browser's ``Accept-Language``
    header, so an English-language browser would never see the Chinese default.
    This middleware (placed before LocaleMiddleware) drops that header, leaving
    the language cookie set by the ``/i18n/setlang/`` switch as the only choice
    besides ``LANGUAGE_CODE`` (zh-hans).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.META.pop("HTTP_ACCEPT_LANGUAGE", None)
        return self.get_response(request)
