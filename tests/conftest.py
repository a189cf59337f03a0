"""Shared fixtures and the CI no-skip rule.

Users: ``owner``, ``partner``, ``opponent``, ``outsider`` (password
``PASSWORD``), each with a Profile made by the post_save signal; ``rival`` (no
password), and ``players``, the four in seat order; ``table``, the owner's.

After every test that used the database, ``_ledger_holds`` proves the coins
ledger (``shop.ledger.audit``, what ``check_ledger`` runs) whenever coin entries
exist; a test that breaks it on purpose is marked ``ledger_unbalanced``.

CI rule: when the environment has ``CI=true`` a skipped test fails the session
(exit status 1): in CI every service is present, so a skip means a test that
should have run did not.
"""

from __future__ import annotations

import os

import pytest

PASSWORD = "atom-Jiaxing-2026"

_skipped: list[str] = []


def _ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


@pytest.fixture(autouse=True)
def _no_rate_limits(request):
    """Disable allauth rate limits: their counters live in the cache (Redis in
    CI, shared across runs) and would make repeated sign-ups flaky. The test
    of the sign-up limit itself re-enables it on a private local cache.
    Passwords use a fast hasher. Engine tests need no Django: under
    ``-p no:django`` this does nothing."""
    if request.config.pluginmanager.hasplugin("django"):
        settings = request.getfixturevalue("settings")
        settings.ACCOUNT_RATE_LIMITS = False
        # hashing test users' passwords with PBKDF2 cost seconds per test
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        # presence lives outside the database (process memory or Redis): no
        # test's connections may outlive it
        from games import clock, presence
        from games.adapters import lastview

        presence.clear()
        clock.forget()
        lastview.forget_all()  # keyed by table ids, which a test database reuses
        _forget_shared_copies()
        # tests move clocks by hand and sweep when they like: a pause between two
        # sweeps is no outage here (tests/test_outage.py sets its own)
        settings.GAMES_OUTAGE_SECONDS = 3600
        # in-process consumers use Channels' one database thread: pool threads
        # would hold connections past the test (tests/test_dbcalls.py tests the
        # pool; the site processes of the production-stack tests run with it)
        settings.GAMES_DB_THREADS = 0


#: the shared cache's copies of database rows (item state, table decor and
#: wagers, the moderators), keyed by ids: a test database reuses ids (SQLite
#: after a flush), so no copy may outlive its test
SHARED_COPIES = ("shop:itemstate:*", "shop:decor:*", "shop:wager:*", "games:moderators",
                 "social:online:*", "social:minimum:*", "social:blocked:*",
                 "games:deserted:*")


def _forget_shared_copies() -> None:
    from fnmatch import fnmatchcase

    from django.core.cache import cache

    from shop import itemstate

    itemstate.forget()  # this process's copies
    patterns = [cache.make_key(p) for p in SHARED_COPIES]
    store = getattr(cache, "_cache", None)
    if isinstance(store, dict):  # LocMemCache: this process's memory
        with cache._lock:
            for key in [k for k in store if any(fnmatchcase(k, p) for p in patterns)]:
                cache._delete(key)
    elif hasattr(store, "get_client"):  # RedisCache
        client = store.get_client(write=True)
        for p in patterns:
            keys = list(client.scan_iter(match=p))
            if keys:
                client.delete(*keys)


@pytest.fixture(autouse=True)
def _default_language(request):
    """A request through LocaleMiddleware leaves its language active in the
    thread: after each test the site's default (Chinese) is restored, so a test
    that asked for English cannot change the next test's pages."""
    yield
    if request.config.pluginmanager.hasplugin("django"):
        from django.utils import translation

        translation.deactivate()


@pytest.fixture(autouse=True)
def _fresh_channel_layer(request):
    """Each test gets channel-layer objects of its own: a Redis layer keeps a
    receive lock bound to the event loop that first used it, and a test that
    left a consumer receiving (its loop gone) failed a later test's receive
    ("bound to a different event loop")."""
    if request.config.pluginmanager.hasplugin("django"):
        from channels.layers import channel_layers

        channel_layers.backends.clear()
    return


@pytest.fixture(autouse=True)
def _ledger_holds(request):
    """Fail a test (at teardown) that leaves the coins ledger wrong: every
    balance equal to the sum of its entries, every transfer summing to zero
    (DESIGN.md "Money and points"). Runs only for tests that used the database
    and only when coin entries exist; the database is torn down after it."""
    uses_db = "_django_db_helper" in request.fixturenames or request.node.get_closest_marker(
        "django_db"
    )
    if (
        not uses_db
        or not request.config.pluginmanager.hasplugin("django")
        or request.node.get_closest_marker("ledger_unbalanced")
    ):
        yield
        return
    request.getfixturevalue("_django_db_helper")  # set up first, so torn down after this
    yield
    from django.db import connection

    if connection.needs_rollback:  # the test left its transaction broken: nothing to read
        return
    from shop import ledger
    from shop.models import CoinEntry

    if CoinEntry.objects.exists():
        result = ledger.audit()
        assert result.ok, "\n".join([result.summary(), *result.differences])


def _make_user(django_user_model, username: str):
    return django_user_model.objects.create_user(
        username=username, email=f"{username}@example.com", password=PASSWORD
    )


@pytest.fixture
def plug(monkeypatch):
    """``plug(plugin, at=None)`` adds a ``GamePlugin`` to ``GAME_PLUGINS``'s
    list for one test (at the end, or at index ``at``); gone after it."""
    from games import plugins as seam

    current = list(seam.plugins())

    def add(plugin, at=None):
        current.insert(len(current) if at is None else at, plugin)
        monkeypatch.setattr(seam, "plugins", lambda: tuple(current))
        seam.reload()
        return plugin

    yield add
    monkeypatch.undo()
    seam.reload()


@pytest.fixture
def owner(db, django_user_model):
    """A table owner."""
    return _make_user(django_user_model, "owner")


@pytest.fixture
def partner(db, django_user_model):
    """The owner's partner (对家)."""
    return _make_user(django_user_model, "partner")


@pytest.fixture
def opponent(db, django_user_model):
    """A player of the other team."""
    return _make_user(django_user_model, "opponent")


@pytest.fixture
def outsider(db, django_user_model):
    """A user with nothing to do with the game at hand."""
    return _make_user(django_user_model, "outsider")


@pytest.fixture
def rival(db, django_user_model):
    """The opponent's partner: the fourth human (no password)."""
    return django_user_model.objects.create_user(username="rival")


@pytest.fixture
def players(owner, opponent, partner, rival):
    """The four humans in seat order: N owner, E opponent, S partner, W rival."""
    return [owner, opponent, partner, rival]


@pytest.fixture
def table(owner):
    """A waiting public table of ``owner``'s, "测试桌", nobody seated."""
    from games import tables

    return tables.create_table(owner, "测试桌")


@pytest.fixture
def mod(db, django_user_model):
    """A moderator, ``laoli`` (the moderators group; not staff, not superuser)."""
    from moderation import roles

    user = django_user_model.objects.create_user(username="laoli")
    roles.add(user)
    return user


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:
        _skipped.append(report.nodeid or "<collection>")


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if _ci() and _skipped:
        terminalreporter.write_sep("=", "CI=true: skipped tests fail the run", red=True)
        for nodeid in _skipped:
            terminalreporter.write_line(f"SKIPPED in CI: {nodeid}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _ci() and _skipped and session.exitstatus == 0:
        session.exitstatus = 1


# Real Celery worker / beat fixtures (``celery_worker``, ``celery_beat``) for the
# production-stack tests; they skip without DATABASE_URL and REDIS_URL.
pytest_plugins = ["tests.celery_fixtures"]


@pytest.fixture(scope="module")
def site():
    """One embedded site process (:class:`tests.servers.Site`) per test
    module that asks for it (the browser tests); a module may define its own."""
    from tests.servers import Site

    site = Site()
    try:
        yield site.wait_listening()
    finally:
        site.stop()


@pytest.fixture(scope="module")
def browser():
    """One headless chromium (:func:`tests.browser.launch`) per test module."""
    from playwright.sync_api import sync_playwright

    from tests.browser import launch

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            yield browser
        finally:
            browser.close()
