"""Django settings for 原子 online, read from the environment.

Two ways to run (DESIGN.md "Two ways to run"):

* embedded default (no variables set): SQLite file ``db.sqlite3``, in-memory
  channel layer, local-memory cache, Celery tasks run eagerly in-process,
  DEBUG off (the site's own 404 / 500 pages; ``DEBUG=1`` for Django's), cookies
  usable over plain http;
* production stack: ``DATABASE_URL`` selects PostgreSQL (psycopg 3),
  ``REDIS_URL`` (or ``REDIS_SENTINELS`` + ``REDIS_SENTINEL_MASTER``: Redis
  through Sentinel) selects the Redis channel layer, Redis cache and Celery on
  Redis; ``YUANZI_PRODUCTION=1`` turns DEBUG off by default, requires
  ``SECRET_KEY`` and ``ALLOWED_HOSTS`` and uses whitenoise's manifest storage.

Every variable is listed in ``.env.example``. Helpers in ``yuanzi_site.env``
raise ImproperlyConfigured on a malformed value.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from yuanzi_site.env import (
    email_settings_from_url,
    env_bool,
    env_choice,
    env_int,
    env_list,
    env_required,
    env_str,
)
from yuanzi_site.jobs import PERIODIC_JOBS
from yuanzi_site.redis_config import redis_settings, sentinel_from_env
from yuanzi_site.settings_layers import memory_channel_layer

# generic classes of Django usable with type arguments at run time
# (``admin.ModelAdmin[Profile]``, ``QuerySet[Game]``) as django-stubs declares them
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Mode ------------------------------------------------------------------

PRODUCTION = env_bool("YUANZI_PRODUCTION", False)
# off unless asked for: `make run` shows the site's own 404 and 500 pages
DEBUG = env_bool("DEBUG", False)

if PRODUCTION:
    SECRET_KEY = env_required("SECRET_KEY")
else:
    SECRET_KEY = env_str("SECRET_KEY", "dev-only-insecure-key-yuanzi-do-not-use-in-production")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when YUANZI_PRODUCTION=1.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Origins (scheme://host[:port]) a websocket handshake may come from, besides
# the request's own (yuanzi_site/origins.py); production: the public https origin
SITE_ORIGINS = env_list(
    "SITE_ORIGINS",
    CSRF_TRUSTED_ORIGINS if PRODUCTION else ["http://localhost", "http://127.0.0.1"],
)
# Addresses of the reverse proxy whose X-Forwarded-For is believed (with
# Daphne's --proxy-headers; yuanzi_site/proxy.py); from anyone else it is ignored
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
# Client addresses that may read /metrics (judged after TRUSTED_PROXIES, as Daphne
# sees the client): a Prometheus server scraping each process directly.
METRICS_ADDRESSES = env_list("METRICS_ADDRESSES", ["127.0.0.1", "::1"])

# --- Applications ----------------------------------------------------------

INSTALLED_APPS = [
    "daphne",  # first: its runserver replaces Django's
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "allauth",
    "allauth.account",
    "accounts",
    "games",
    "shop",
    "moderation",
    "social",
    "contests",
]

# What plugs into a game (games.plugins; docs/plugins.md). This list is the
# order every hook runs in: moderation first (a suspension is refused at a seat
# before anything else is asked), accounts' rating before the shop's wagers
# (which read its changes), social's blocks before the wager's coins.
GAME_PLUGINS = [
    "moderation.plugin.ModerationPlugin",
    "games.plugin.GamesPlugin",
    "accounts.plugin.AccountsPlugin",
    "social.plugin.SocialPlugin",
    "shop.plugin.ShopPlugin",
    "contests.plugin.ContestsPlugin",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # one JSON line per request (after the static files: those are not logged)
    "yuanzi_site.logs.RequestLines",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # the visitor's choice (language cookie), else Accept-Language, else zh-hans
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # a session whose account was suspended: logged out, told why and until when
    "moderation.backends.SuspendedSessionMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "yuanzi_site.urls"
WSGI_APPLICATION = "yuanzi_site.wsgi.application"
ASGI_APPLICATION = "yuanzi_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.me",  # the header figures
                "moderation.notices.page_notice",  # the site notice (维护公告) banner
            ],
        },
    },
]

# --- Database --------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL")
# PostgreSQL through Django's native connection pool (psycopg_pool), at most this
# many connections a process; 0: persistent connections (DATABASE_CONN_MAX_AGE)
DATABASE_POOL_SIZE = env_int("DATABASE_POOL_SIZE", 0, minimum=0)
# DATABASE_URL points at pgbouncer in transaction mode: no prepared statements,
# no server-side cursors, no persistent connections (pgbouncer pools)
DATABASE_PGBOUNCER = env_bool("DATABASE_PGBOUNCER", False)
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(
            # kept open between requests and messages (a new connection per move cost
            # more than the move), checked before reuse; with the pool, the pool
            # keeps them (Django refuses a pool with a non-zero CONN_MAX_AGE)
            DATABASE_URL,
            conn_max_age=0 if DATABASE_POOL_SIZE or DATABASE_PGBOUNCER else env_int(
                "DATABASE_CONN_MAX_AGE", 60, minimum=0),
            conn_health_checks=not DATABASE_POOL_SIZE,
        )
    }
    if DATABASE_PGBOUNCER:
        DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
        DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = None
    if DATABASE_POOL_SIZE:
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1, "max_size": DATABASE_POOL_SIZE, "timeout": 20}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "CONN_MAX_AGE": None,  # one file, no server: keep each thread's connection
            # IMMEDIATE: a write transaction takes the lock up front, so two
            # concurrent game actions queue instead of failing "database is locked".
            # WAL + synchronous=NORMAL: a commit costs no fsync of the main file
            # (still durable across a process crash; a power cut may lose the last moves).
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

# Websocket consumers' database calls (games/adapters/dbcalls.py): on PostgreSQL a pool of
# this many threads per process, so their round trips overlap (row locks order
# what must be ordered, as between processes); 0, and always on SQLite: Channels'
# one database thread.
GAMES_DB_THREADS = env_int("GAMES_DB_THREADS", 8, minimum=0) if DATABASE_URL else 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache, channel layer, Celery -----------------------------------

REDIS_URL = env_str("REDIS_URL")
# or the master of a Redis Sentinel group (REDIS_SENTINELS, REDIS_SENTINEL_MASTER…;
# docs/deploy.md "Redis with Sentinel"); None without those variables
REDIS_SENTINEL = sentinel_from_env()
# prefix of every Redis key the site writes (cache, channel layer, presence)
REDIS_PREFIX = env_str("REDIS_PREFIX", "yuanzi")

_redis_target = REDIS_SENTINEL or REDIS_URL
if _redis_target:
    # CACHES, CHANNEL_LAYERS, Celery's broker and results, redbeat's Redis
    globals().update(redis_settings(_redis_target, prefix=REDIS_PREFIX))
    CELERY_TASK_ALWAYS_EAGER = False
    # Beat may run on two hosts: celery-redbeat keeps the schedule in Redis and
    # only the holder of a lock sends; the other waits and takes over within
    # CELERY_REDBEAT_LOCK_TIMEOUT seconds of the holder's death (docs/deploy.md).
    CELERY_BEAT_SCHEDULER = "redbeat.RedBeatScheduler"
    CELERY_REDBEAT_LOCK_TIMEOUT = env_int("CELERY_REDBEAT_LOCK_TIMEOUT", 10, minimum=2)
    # the lock is extended at every tick: tick at least every second (the sweep's pace)
    CELERY_BEAT_MAX_LOOP_INTERVAL = 1
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # capacity: frames queued per connection before the layer drops them
    # (silently; the default 100 lost frames at a table of 400 spectators)
    CHANNEL_LAYERS = {"default": memory_channel_layer()}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND: str | None = None
    # Embedded default: tasks run in the calling process (countdowns are ignored;
    # DESIGN.md "Time, bots, departures" explains the in-process ticker).
    CELERY_TASK_ALWAYS_EAGER = True

CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = "Asia/Shanghai"
# Beat: the periodic jobs of yuanzi_site/jobs.py (the embedded ticker runs the same table).
CELERY_BEAT_SCHEDULE = {
    name: {"task": task, "schedule": interval} for name, task, interval in PERIODIC_JOBS
}
# A due turn's task must not run after its turn is long gone; run_due checks seq anyway.
# Reviews (复盘) have their own queue and worker (`-Q review`, docs/deploy.md):
# they never wait behind, nor hold up, turn clocks and bot moves.
CELERY_TASK_ROUTES = {"games.tasks.run_review": {"queue": "review"}}
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# --- Authentication (django-allauth 65) ------------------------------------

# Django's and allauth's backends, refusing suspended accounts at log-in and on
# every request and socket (moderation/backends.py).
AUTHENTICATION_BACKENDS = [
    "moderation.backends.ModelBackend",
    "moderation.backends.AuthenticationBackend",
]
# Usernames with a moderator-blocked word are refused at sign-up.
ACCOUNT_ADAPTER = "moderation.adapter.AccountAdapter"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm"}
# names that would pass for the site's own voice (any case; accounts/usernames.py)
ACCOUNT_USERNAME_BLACKLIST = [
    "admin", "administrator", "moderator", "mod", "root", "system", "staff", "support",
    "official", "yuanzi", "管理员", "管理", "版主", "客服", "系统", "官方", "原子", "站长",
]
ACCOUNT_EMAIL_VERIFICATION = env_str("ACCOUNT_EMAIL_VERIFICATION", "optional")
ACCOUNT_RATE_LIMITS = {"signup": env_str("SIGNUP_RATE_LIMIT", "20/m/ip")}

# --- Email -----------------------------------------------------------------

DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "原子 online <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
_email_url = env_str("EMAIL_URL")
if _email_url:
    globals().update(email_settings_from_url(_email_url))
elif env_str("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = env_str("EMAIL_HOST")
    EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"

# --- Internationalisation --------------------------------------------------

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [
    ("zh-hans", _("Simplified Chinese")),
    ("en", _("English")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = env_str("TIME_ZONE", "Asia/Shanghai")
USE_TZ = True

# --- Static files ----------------------------------------------------------

STATIC_URL = "static/"
# Production serves `manage.py collectstatic` output from STATIC_ROOT; elsewhere
# whitenoise serves straight from the finders (static/ and apps), DEBUG or not
# (tests run with DEBUG off and still need the CSS).
STATIC_ROOT = BASE_DIR / "staticfiles" if PRODUCTION else None
WHITENOISE_USE_FINDERS = not PRODUCTION
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# --- Security --------------------------------------------------------------

# secure (https-only) cookies in production; the embedded default serves plain http
SECURE_COOKIES = env_bool("SECURE_COOKIES", PRODUCTION)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
if env_bool("USE_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Expected refusals (403, 404, 400) log one short line, no traceback;
# Django's own logging otherwise unchanged. One JSON line per request and per
# websocket message at LOG_LINES (INFO; WARNING silences them).
LOG_LINES = env_choice("LOG_LINES", "INFO", ("INFO", "WARNING"))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line_refusals": {"()": "yuanzi_site.logs.OneLineRefusals"}},
    # the structured lines (yuanzi_site/logs.py): JSON objects, one a line, on stderr
    "formatters": {"line": {"format": "%(message)s"}},
    "handlers": {"lines": {"class": "logging.StreamHandler", "formatter": "line"}},
    "loggers": {
        "django.request": {"filters": ["one_line_refusals"]},
        "yuanzi.requests": {"handlers": ["lines"], "level": LOG_LINES, "propagate": False},
        "yuanzi.messages": {"handlers": ["lines"], "level": LOG_LINES, "propagate": False},
    },
}

# --- Games -------------------------------------------------------------------

# Seconds a human has for a turn (RULES.md §8) and a bot's pause before it moves.
GAMES_TURN_SECONDS = env_int("GAMES_TURN_SECONDS", 30, minimum=1)
GAMES_BOT_DELAY_SECONDS = float(env_str("GAMES_BOT_DELAY_SECONDS", "1.0"))
# celery: a turn due further away than this gets no countdown task, only the
# beat sweep's (every second); see games/adapters/scheduler.py
GAMES_COUNTDOWN_HORIZON_SECONDS = float(env_str("GAMES_COUNTDOWN_HORIZON_SECONDS", "5"))
# A connection whose heartbeat is older than this no longer counts as online.
# 90 s: a tab hidden for minutes has its timers (our 10 s ping) throttled to once a
# minute by the browser; it is still there and must not be stood up.
GAMES_PRESENCE_TTL_SECONDS = env_int("GAMES_PRESENCE_TTL_SECONDS", 90, minimum=5)
# ping and sync per connection: a token bucket of this many a second, bursts of
# GAMES_PING_BURST; the excess is dropped (and counted) for that connection only
GAMES_PING_RATE = float(env_str("GAMES_PING_RATE", "2"))
GAMES_PING_BURST = env_int("GAMES_PING_BURST", 5, minimum=1)
# a table's snapshot after connects/disconnects waits this long, so a storm of
# them makes one broadcast per table
GAMES_SNAPSHOT_DEBOUNCE_SECONDS = float(env_str("GAMES_SNAPSHOT_DEBOUNCE_SECONDS", "0.25"))
# the scheduler's heartbeat older than this: the site counts as down and turn
# clocks pause (RULES.md §12); the ticker beats 5×/s, Celery beat every second
GAMES_OUTAGE_SECONDS = float(env_str("GAMES_OUTAGE_SECONDS", "4"))
# on resume a person's turn also gets this long for their page to reconnect
# (when it has no live connection at the table then)
# (static/js/socket.js retries a lost connection at most 5 s apart)
GAMES_RESUME_GRACE_SECONDS = float(env_str("GAMES_RESUME_GRACE_SECONDS", "6"))
# on SIGTERM a Daphne lets its in-flight actions finish for at most this long,
# then closes every websocket with 1012 (games/adapters/drain.py)
GAMES_DRAIN_SECONDS = float(env_str("GAMES_DRAIN_SECONDS", "10"))
# saturation (games/adapters/overload.py): the event loop lagging more than
# GAMES_SATURATION_LAG_MS for GAMES_SATURATION_SECONDS, or more than
# GAMES_MAX_SOCKETS websockets in one process; new connections other than a
# running game's players are then closed with 4503
GAMES_SATURATION_LAG_MS = env_int("GAMES_SATURATION_LAG_MS", 200, minimum=1)
GAMES_SATURATION_SECONDS = float(env_str("GAMES_SATURATION_SECONDS", "2"))
GAMES_MAX_SOCKETS = env_int("GAMES_MAX_SOCKETS", 5000, minimum=1)
# the expert bot's endgame search budget per move, milliseconds (at most 50)
GAMES_BOT_BUDGET_MS = env_int("GAMES_BOT_BUDGET_MS", 50, minimum=0)
# celery: countdown tasks + beat sweep; ticker: the in-process ticker of `manage.py
# runsite`; none: nothing acts on due turns (tests and benchmarks that drive the
# clock themselves). See games/adapters/scheduler.py.
GAMES_SCHEDULER = env_choice(
    "GAMES_SCHEDULER", "celery" if _redis_target else "ticker", ("celery", "ticker", "none")
)
# Rate limits as (hits, window in seconds), per user.
GAMES_ACTION_RATE = (env_int("GAMES_ACTION_RATE", 20, minimum=1), 5)
GAMES_CHAT_RATE = (env_int("GAMES_CHAT_RATE", 5, minimum=1), 10)
GAMES_TABLE_CREATE_RATE = (env_int("GAMES_TABLE_CREATE_RATE", 10, minimum=1), 60)
# 快捷语: the quick phrases and emoji reactions a player sends by index (games/phrases.py)
GAMES_QUICK_PHRASES = ["快点吧", "配合得好", "好牌！", "不好意思", "再来一局", "谢谢"]
GAMES_REACTIONS = ["👍", "😄", "😮", "😭", "🎉"]
# A user may own this many open tables where nobody sits; idle tables close after
# this many minutes with nobody seated or watching.
GAMES_MAX_IDLE_TABLES = env_int("GAMES_MAX_IDLE_TABLES", 3, minimum=1)
GAMES_IDLE_TABLE_MINUTES = env_int("GAMES_IDLE_TABLE_MINUTES", 15, minimum=1)
# 复盘 (games/reviews.py): expected team points lost (per half) at which a decision
# is 不精确, 失误, 大错; the sampled deals per decision, the alternatives judged
# beside the play made and who plays the play-outs (games/engine/review.py);
# the reviews queued site-wide before more are refused; who runs them: celery (the
# `review` queue's own worker, the default with REDIS_URL), process (the
# `manage.py reviewworker` child of runsite, at nice 19), none (nothing: tests).
GAMES_REVIEW_THRESHOLDS = (10.0, 25.0, 50.0)
GAMES_REVIEW_SAMPLES = env_int("GAMES_REVIEW_SAMPLES", 8, minimum=1)
# play-out actions a judged decision may spend on more deals than SAMPLES (0: none)
GAMES_REVIEW_BUDGET = env_int("GAMES_REVIEW_BUDGET", 4000, minimum=0)
GAMES_REVIEW_WIDTH = env_int("GAMES_REVIEW_WIDTH", 3, minimum=1)
GAMES_REVIEW_PLAYOUT = env_choice("GAMES_REVIEW_PLAYOUT", "expert", ("expert", "normal"))
GAMES_REVIEW_QUEUE_MAX = env_int("GAMES_REVIEW_QUEUE_MAX", 20, minimum=1)
GAMES_REVIEW_RUNNER = env_choice(
    "GAMES_REVIEW_RUNNER", "celery" if REDIS_URL else "process", ("celery", "process", "none")
)
# a running review with no progress for this long counts as failed (its worker
# died): its player may ask again
GAMES_REVIEW_STALE_SECONDS = 300

# --- Moderation ----------------------------------------------------------------

# Minutes a player a moderator kicked from a table may not sit there again.
MODERATION_KICK_BAN_MINUTES = env_int("MODERATION_KICK_BAN_MINUTES", 30, minimum=1)
# Reports one player may make in an hour.
MODERATION_REPORTS_PER_HOUR = 5
# Seconds a process keeps the site notice (维护公告) it read; every save drops it.
MODERATION_NOTICE_CACHE_SECONDS = 30
# --- Shop (RULES.md §8–§9, §12) -------------------------------------------------

# Coin sources: the daily check-in's 7-day cycle (a day is a calendar day in
# SHOP_DAY_TIME_ZONE; a missed day restarts it) and relief (救济金).
SHOP_CHECKIN_REWARDS = (100, 150, 200, 300, 400, 500, 600)
SHOP_DAY_TIME_ZONE = "Asia/Shanghai"
SHOP_RELIEF_AMOUNT = 500
SHOP_RELIEF_BELOW = 200  # a player under this many coins may claim relief
SHOP_RELIEF_HOURS = 24  # once in any rolling window of this many hours
# The inventory: slots, and the most of one item a slot holds.
SHOP_INVENTORY_SLOTS = 24
SHOP_STACK_MAX = 99
# 定时器: seconds added, what its owner pays, what each other human receives.
SHOP_TIMER_SECONDS = 90
SHOP_TIMER_FEE = 270
SHOP_TIMER_SHARE = 90
# 招牌 / 金字招牌: hours a name is protected.
SHOP_SIGN_HOURS = {"sign": 1, "gold_sign": 24}
# Drops (rated games that ended normally): each winner's chance of an item and
# the weights of the items; each half's first_out's gem roll ("" = nothing).
SHOP_DROP_CHANCE = 0.2
SHOP_DROP_WEIGHTS = {"sign": 20, "timer": 25, "card_counter": 30, "tablecloth": 10,
                     "recorder": 30, "gold_sign": 2}
SHOP_GEM_WEIGHTS = {"": 50, "gem_shard": 40, "gem_standard": 9, "gem_perfect": 1}
# A seed makes drops reproducible (tests); None draws from the system's randomness.
SHOP_DROP_SEED = None
# --- Contests: the weekly board, daily tasks, achievements (RULES.md §12) -------

# 每日任务: the pool each player's three tasks of a day (Asia/Shanghai) are drawn
# from, deterministically (contests.quests): (code, fact, target, coin reward).
# Facts: rated_game, win, first_out (上游), jiefeng (接风), atom, friend_game,
# item_game, challenge (counted by the daily challenge).
CONTESTS_TASK_POOL = (
    ("play3", "rated_game", 3, 100),
    ("win2", "win", 2, 150),
    ("first_out", "first_out", 1, 100),
    ("jiefeng", "jiefeng", 1, 100),
    ("atom", "atom", 1, 150),
    ("friend", "friend_game", 1, 100),
    ("item", "item_game", 1, 80),
    ("challenge", "challenge", 1, 100),
)
CONTESTS_TASKS_PER_DAY = 3
# 成就: each achievement's coin reward (0: none); level_N for every level reached.
CONTESTS_ACHIEVEMENTS = {
    "first_win": 50, "first_atom": 100, "first_hydrogen": 300, "first_double_clamp": 200,
    "first_jiefeng": 50, "games_100": 500, "checkin_7": 100, "challenge_top10": 200,
    **{f"level_{n}": 50 * n for n in range(1, 17)},
}
# Rated games an account needs before tasks and achievements pay (RULES.md §12).
CONTESTS_REWARD_MIN_RATED_GAMES = 10
# The weekly board's length and how many of a closed week get a badge.
CONTESTS_WEEKLY_TOP = 100
CONTESTS_WEEKLY_BADGES = 3

# --- Contests: the daily challenge (每日挑战, RULES.md §12) ---------------------
# The challenge's dates and its close (00:30 the next day) are in this zone.
CHALLENGE_TIME_ZONE = "Asia/Shanghai"
CHALLENGE_BOARDS = 8
CHALLENGE_CLOSE_AFTER_MIDNIGHT_MINUTES = 30
# A board's turn (RULES.md §8), counted only while its player is connected; a
# gap between two signs of life longer than CHALLENGE_GAP_SECONDS is time away.
CHALLENGE_TURN_SECONDS = 30
CHALLENGE_GAP_SECONDS = 10
# Ranked: accounts with at least this many rated games (Profile.rated_games).
CHALLENGE_RANKED_GAMES = 10
# Prizes: a day with at least CHALLENGE_PRIZE_MIN_PLAYERS ranked results pays
# its top ⌈CHALLENGE_PRIZE_SHARE⌉ (ties at the boundary all paid): place 1, 2,
# 3 … get CHALLENGE_PRIZES in order, every later paid place CHALLENGE_PRIZE_REST.
CHALLENGE_PRIZE_MIN_PLAYERS = 20
CHALLENGE_PRIZE_SHARE = 0.10
CHALLENGE_PRIZES = (500, 300, 200)
CHALLENGE_PRIZE_REST = 100
