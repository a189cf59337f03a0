"""Where the site's Redis is, and the settings of every part that uses it.

Two shapes (docs/deploy.md "Redis" and "Redis with Sentinel"):

* ``REDIS_URL`` alone (``redis://host:6379/0``): one Redis server;
* ``REDIS_SENTINELS`` (``"10.0.0.1:26379,10.0.0.2:26379"``) with
  ``REDIS_SENTINEL_MASTER`` (the name the sentinels monitor), optional
  ``REDIS_DB`` (default 0), ``REDIS_PASSWORD`` (the master's and replicas'
  ``requirepass``) and ``REDIS_SENTINEL_PASSWORD`` (the sentinels' own): every
  part asks the sentinels which server is the master, and asks again after a
  failover.

:func:`redis_settings` turns either into the settings of the four parts —
Django's cache, the channel layer, Celery's broker and result backend,
celery-redbeat — and :func:`client` into a plain redis-py client (presence,
the readiness probe). Both shapes are pure values, so the tests read them
without reloading the settings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from redis.backoff import NoBackoff
from redis.retry import Retry

from yuanzi_site.settings_layers import redis_channel_layer

if TYPE_CHECKING:
    import redis

#: seconds a sentinel may take to accept a connection or answer: a dead
#: sentinel host must cost a moment, not the system's TCP timeout (minutes)
SENTINEL_TIMEOUT = 2.0


@dataclass(frozen=True)
class SentinelTarget:
    """A master found through Redis Sentinel.

    ``sentinels``: ``(host, port)`` pairs; ``master``: the name in the
    sentinels' ``sentinel monitor`` line; ``db``: database number;
    ``password``: the master's (and replicas') password; ``sentinel_password``:
    the sentinels' (``requirepass`` in sentinel.conf), or ``None``.
    """

    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int = 0
    password: str | None = None
    sentinel_password: str | None = None

    def sentinel_kwargs(self) -> dict[str, Any]:
        """Connection options for the sentinels themselves (not the master).

        No retry: the sentinels are asked in turn, so a dead one is passed over
        at once (redis-py's default of three retries with backoff cost 3-8 s
        per dead sentinel, at every new connection)."""
        kwargs: dict[str, Any] = {"socket_timeout": SENTINEL_TIMEOUT,
                                  "socket_connect_timeout": SENTINEL_TIMEOUT,
                                  "retry": Retry(NoBackoff(), 0)}
        if self.sentinel_password:
            kwargs["password"] = self.sentinel_password
        return kwargs

    def channel_host(self) -> dict[str, Any]:
        """channels_redis's host entry for this master (no pool options)."""
        host: dict[str, Any] = {"sentinels": [tuple(pair) for pair in self.sentinels],
                                "master_name": self.master,
                                "sentinel_kwargs": self.sentinel_kwargs(), "db": self.db}
        if self.password:
            host["password"] = self.password
        return host

    def celery_url(self) -> str:
        """Kombu's / Celery's form: ``sentinel://:pw@h1:p1/db;sentinel://:pw@h2:p2/db``
        (the password and db of the first entry are the master's)."""
        auth = f":{quote(self.password, safe='')}@" if self.password else ""
        return ";".join(f"sentinel://{auth}{_netloc(host, port)}/{self.db}"
                        for host, port in self.sentinels)

    def describe(self) -> str:
        """``sentinel://h1:p1,h2:p2/master/db`` (no password): for logs and LOCATION."""
        hosts = ",".join(_netloc(host, port) for host, port in self.sentinels)
        return f"sentinel://{hosts}/{self.master}/{self.db}"


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_sentinels(value: str, name: str = "REDIS_SENTINELS") -> tuple[tuple[str, int], ...]:
    """``"h1:26379, [::1]:26380"`` -> ``(("h1", 26379), ("::1", 26380))``.

    :raises ImproperlyConfigured: an entry without ``host:port``, a port that
        is not a number in 1..65535, or no entry at all (``name`` is named).
    """
    result: list[tuple[str, int]] = []
    for raw in value.split(","):
        entry = raw.strip()
        if not entry:
            continue
        if entry.startswith("["):  # [IPv6]:port
            host, sep, port_text = entry[1:].partition("]:")
        else:
            host, sep, port_text = entry.rpartition(":")
        if not sep or not host or (":" in host and not entry.startswith("[")):
            raise ImproperlyConfigured(
                f"{name}: {entry!r} is not host:port (for example 10.0.0.1:26379; "
                "an IPv6 address goes in brackets, [::1]:26379).")
        if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
            raise ImproperlyConfigured(
                f"{name}: {entry!r} has no valid port (a number from 1 to 65535).")
        result.append((host, int(port_text)))
    if not result:
        raise ImproperlyConfigured(f"{name} lists no sentinel (host:port, comma-separated).")
    return tuple(result)


def sentinel_target(
    sentinels: str | None,
    master: str | None,
    *,
    db: str | None = None,
    password: str | None = None,
    sentinel_password: str | None = None,
    url: str | None = None,
) -> SentinelTarget | None:
    """The :class:`SentinelTarget` of the raw variable values, or ``None``
    when no Sentinel variable is set (``REDIS_URL`` or no Redis at all).

    :raises ImproperlyConfigured: sentinels without a master name or the
        reverse, ``REDIS_URL`` set as well (two answers to "where is Redis"),
        a bad sentinel list (:func:`parse_sentinels`), a ``REDIS_DB`` that is
        not a number >= 0, or ``REDIS_DB``/``REDIS_SENTINEL_PASSWORD`` without
        sentinels (the URL carries those).
    """
    if not sentinels:
        for name, value in (("REDIS_SENTINEL_MASTER", master), ("REDIS_DB", db),
                            ("REDIS_SENTINEL_PASSWORD", sentinel_password)):
            if value:
                raise ImproperlyConfigured(
                    f"{name} is set but REDIS_SENTINELS is not: set REDIS_SENTINELS "
                    "(host:port,…) too, or give the database and password in REDIS_URL.")
        return None
    if url:
        raise ImproperlyConfigured(
            "REDIS_URL and REDIS_SENTINELS are both set: unset REDIS_URL to find the "
            "master through Sentinel, or unset REDIS_SENTINELS for one fixed server.")
    hosts = parse_sentinels(sentinels)
    if not master:
        raise ImproperlyConfigured(
            "REDIS_SENTINELS is set but REDIS_SENTINEL_MASTER is not: give the master "
            "name of the sentinels' `sentinel monitor <name> …` line.")
    number = 0
    if db:
        if not db.isdigit():
            raise ImproperlyConfigured(f"REDIS_DB={db!r} is not a database number (0, 1, …).")
        number = int(db)
    return SentinelTarget(sentinels=hosts, master=master, db=number,
                          password=password or None,
                          sentinel_password=sentinel_password or None)


def sentinel_from_env() -> SentinelTarget | None:
    """:func:`sentinel_target` of ``REDIS_SENTINELS``, ``REDIS_SENTINEL_MASTER``,
    ``REDIS_DB``, ``REDIS_PASSWORD``, ``REDIS_SENTINEL_PASSWORD`` and ``REDIS_URL``
    (blank counts as unset)."""

    def get(name: str) -> str | None:
        value = os.environ.get(name, "").strip()
        return value or None

    return sentinel_target(get("REDIS_SENTINELS"), get("REDIS_SENTINEL_MASTER"),
                           db=get("REDIS_DB"), password=get("REDIS_PASSWORD"),
                           sentinel_password=get("REDIS_SENTINEL_PASSWORD"),
                           url=get("REDIS_URL"))


def redis_settings(target: str | SentinelTarget, prefix: str) -> dict[str, Any]:
    """The Django settings of the parts on Redis, for a URL or a Sentinel master.

    Keys: ``CACHES``, ``CHANNEL_LAYERS``, ``CELERY_BROKER_URL``,
    ``CELERY_RESULT_BACKEND``, ``CELERY_REDBEAT_REDIS_URL``,
    ``CELERY_REDBEAT_KEY_PREFIX``; with Sentinel also
    ``CELERY_BROKER_TRANSPORT_OPTIONS``,
    ``CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS`` and
    ``CELERY_REDBEAT_REDIS_OPTIONS`` (the master's name and the sentinels'
    options). ``prefix`` starts every key the site writes.
    """
    if isinstance(target, str):
        return {
            "CACHES": {"default": {"BACKEND": "yuanzi_site.cache.SiteRedisCache",
                                   "LOCATION": target, "KEY_PREFIX": prefix}},
            "CHANNEL_LAYERS": {"default": redis_channel_layer(target, prefix=prefix)},
            "CELERY_BROKER_URL": target,
            "CELERY_RESULT_BACKEND": target,
            "CELERY_REDBEAT_REDIS_URL": target,
            "CELERY_REDBEAT_KEY_PREFIX": f"{prefix}:redbeat",
        }
    sentinels = [list(pair) for pair in target.sentinels]
    cache_options: dict[str, Any] = {"sentinels": sentinels, "master_name": target.master,
                                     "sentinel_kwargs": target.sentinel_kwargs(),
                                     "db": target.db}
    if target.password:
        cache_options["password"] = target.password
    celery_options = {"master_name": target.master,
                      "sentinel_kwargs": target.sentinel_kwargs()}
    redbeat_options: dict[str, Any] = {
        "sentinels": [tuple(pair) for pair in target.sentinels],
        "service_name": target.master, "db": target.db,
        "sentinel_kwargs": target.sentinel_kwargs(),
        "password": target.password,
    }
    return {
        "CACHES": {"default": {"BACKEND": "yuanzi_site.cache.SentinelRedisCache",
                               "LOCATION": target.describe(), "KEY_PREFIX": prefix,
                               "OPTIONS": cache_options}},
        "CHANNEL_LAYERS": {"default": redis_channel_layer(target.channel_host(),
                                                          prefix=prefix)},
        "CELERY_BROKER_URL": target.celery_url(),
        "CELERY_BROKER_TRANSPORT_OPTIONS": celery_options,
        "CELERY_RESULT_BACKEND": target.celery_url(),
        "CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS": dict(celery_options),
        # redbeat reads "redis-sentinel" as "ask the sentinels in the options"
        "CELERY_REDBEAT_REDIS_URL": "redis-sentinel://",
        "CELERY_REDBEAT_REDIS_OPTIONS": redbeat_options,
        "CELERY_REDBEAT_KEY_PREFIX": f"{prefix}:redbeat",
    }


def client(target: str | SentinelTarget, **options: Any) -> redis.Redis:
    """A redis-py client on ``target``'s server (through Sentinel: its current
    master, asked again on every new connection); ``options`` are connection
    options (``socket_timeout``…)."""
    # here, not at the top: the settings import this module, and the embedded
    # mode (no Redis) never needs redis-py
    import redis
    from redis.sentinel import Sentinel

    if isinstance(target, str):
        return redis.Redis.from_url(target, **options)
    # redis-py ships no annotations for its sentinel module
    sentinel = Sentinel(  # type: ignore[no-untyped-call]
        list(target.sentinels), sentinel_kwargs=target.sentinel_kwargs())
    master: redis.Redis = sentinel.master_for(  # type: ignore[no-untyped-call]
        target.master, db=target.db, password=target.password, **options)
    return master


def configured_target() -> str | SentinelTarget | None:
    """The running site's Redis: ``settings.REDIS_URL``, else
    ``settings.REDIS_SENTINEL``, else ``None`` (the embedded default)."""

    url: str | None = getattr(settings, "REDIS_URL", None)
    target: SentinelTarget | None = getattr(settings, "REDIS_SENTINEL", None)
    return url or target
