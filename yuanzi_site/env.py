"""Typed helpers that read settings from the environment and fail loudly.

Every helper takes the variable name and a default used when the variable is
unset or empty. A value that is set but cannot be read as the asked type raises
``django.core.exceptions.ImproperlyConfigured`` naming the variable and the bad
value, so a typo in a deployment stops the process at start-up instead of
silently falling back to a default.
"""

from __future__ import annotations

import os
from typing import overload
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    """Return the variable's value stripped, or ``None`` when unset or blank."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...


def env_str(name: str, default: str | None = None) -> str | None:
    """Return the variable as a string, or ``default`` when unset or blank."""
    value = _raw(name)
    return default if value is None else value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """Return the variable, which must be one of ``choices``; ``default`` when unset.

    :raises ImproperlyConfigured: for any other value (a typo must not run silently).
    """
    value = _raw(name)
    if value is None:
        return default
    if value not in choices:
        raise ImproperlyConfigured(
            f"Environment variable {name}={value!r} must be one of {', '.join(choices)}."
        )
    return value


def env_required(name: str) -> str:
    """Return the variable as a string; raise ImproperlyConfigured when unset."""
    value = _raw(name)
    if value is None:
        raise ImproperlyConfigured(f"Environment variable {name} is required here but unset.")
    return value


def env_bool(name: str, default: bool) -> bool:
    """Return the variable as a bool.

    Accepts ``1/true/yes/on`` and ``0/false/no/off`` (any case). Anything else
    raises ImproperlyConfigured.
    """
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false).")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """Return the variable as an int (base 10), at least ``minimum`` if given."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer.") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum {minimum}.")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """Return the variable as a list split on commas, blank items dropped."""
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def email_settings_from_url(url: str) -> dict[str, object]:
    """Turn an ``EMAIL_URL`` into Django email settings.

    Shapes: ``smtp://user:password@host:587?tls=1`` (STARTTLS with ``tls=1``),
    ``smtps://user:password@host:465`` (implicit TLS), ``console://`` and
    ``locmem://``. User and password are URL-decoded. Any other scheme raises
    ImproperlyConfigured.

    >>> email_settings_from_url("smtp://a%40b.cn:pw@mail.example:2525?tls=1")["EMAIL_PORT"]
    2525
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "console":
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if scheme == "locmem":
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    if scheme not in {"smtp", "smtps"}:
        raise ImproperlyConfigured(f"EMAIL_URL scheme {parts.scheme!r} is not supported.")
    if not parts.hostname:
        raise ImproperlyConfigured("EMAIL_URL has no host.")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    tls = query.get("tls", "0").lower() in _TRUE
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured("EMAIL_URL has a port that is not a number.") from None
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port or (465 if scheme == "smtps" else 587 if tls else 25),
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": tls and scheme == "smtp",
        "EMAIL_USE_SSL": scheme == "smtps",
    }
