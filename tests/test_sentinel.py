"""Redis through Sentinel (docs/deploy.md "Redis with Sentinel").

The settings: ``REDIS_SENTINELS`` and ``REDIS_SENTINEL_MASTER`` (with
``REDIS_DB``, ``REDIS_PASSWORD``, ``REDIS_SENTINEL_PASSWORD``) configure the
cache, the channel layer, Celery's broker and results and redbeat through the
sentinels; ``REDIS_URL`` alone gives the settings it always gave; a bad value
stops start-up naming the variable.

The failover drill: a master, a replica and a sentinel of our own on free
ports (never the shared Redis), the site's cache, channel layer, Celery broker
connection and redbeat client on them through the sentinel; the master is
killed, the sentinel promotes the replica, and the same settings read the
data written before and write again. Skipped without ``redis-server``
(``CI=true`` turns the skip into a failure, tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string
from redis.backoff import NoBackoff
from redis.retry import Retry

from yuanzi_site.redis_config import (
    SentinelTarget,
    parse_sentinels,
    redis_settings,
    sentinel_target,
)

ROOT = Path(__file__).resolve().parent.parent
MASTER = "yuanzi"

# --- the settings -----------------------------------------------------------------------


def test_a_redis_url_alone_gives_the_settings_it_always_gave():
    url = "redis://127.0.0.1:6379/3"
    assert sentinel_target(None, None, url=url) is None
    assert redis_settings(url, prefix="p") == {
        "CACHES": {"default": {"BACKEND": "yuanzi_site.cache.SiteRedisCache",
                               "LOCATION": url, "KEY_PREFIX": "p"}},
        "CHANNEL_LAYERS": {"default": {
            "BACKEND": "yuanzi_site.layers.PooledRedisChannelLayer",
            "CONFIG": {"hosts": [{"address": url, "socket_timeout": None,
                                  "max_connections": 64, "timeout": 20}],
                       "prefix": "p", "capacity": 2000}}},
        "CELERY_BROKER_URL": url,
        "CELERY_RESULT_BACKEND": url,
        "CELERY_REDBEAT_REDIS_URL": url,
        "CELERY_REDBEAT_KEY_PREFIX": "p:redbeat",
    }


def test_sentinel_variables_configure_every_part():
    target = sentinel_target("10.0.0.1:26379, 10.0.0.2:26380,[fd00::3]:26381", "yuanzi",
                             db="2", password="m/pw", sentinel_password="s-pw")
    assert target == SentinelTarget(
        sentinels=(("10.0.0.1", 26379), ("10.0.0.2", 26380), ("fd00::3", 26381)),
        master="yuanzi", db=2, password="m/pw", sentinel_password="s-pw")
    parts = redis_settings(target, prefix="p")
    to_sentinels = {"password": "s-pw", "socket_timeout": 2.0, "socket_connect_timeout": 2.0,
                    "retry": Retry(NoBackoff(), 0)}

    cache = parts["CACHES"]["default"]
    assert cache["BACKEND"] == "yuanzi_site.cache.SentinelRedisCache"
    assert cache["KEY_PREFIX"] == "p"
    assert cache["OPTIONS"] == {
        "sentinels": [["10.0.0.1", 26379], ["10.0.0.2", 26380], ["fd00::3", 26381]],
        "master_name": "yuanzi", "sentinel_kwargs": to_sentinels, "db": 2,
        "password": "m/pw"}

    layer = parts["CHANNEL_LAYERS"]["default"]
    assert layer["BACKEND"] == "yuanzi_site.layers.PooledRedisChannelLayer"
    assert layer["CONFIG"]["hosts"] == [{
        "sentinels": [("10.0.0.1", 26379), ("10.0.0.2", 26380), ("fd00::3", 26381)],
        "master_name": "yuanzi", "sentinel_kwargs": to_sentinels, "db": 2,
        "password": "m/pw", "socket_timeout": None, "max_connections": 64, "timeout": 20}]

    broker = ("sentinel://:m%2Fpw@10.0.0.1:26379/2;sentinel://:m%2Fpw@10.0.0.2:26380/2;"
              "sentinel://:m%2Fpw@[fd00::3]:26381/2")
    assert parts["CELERY_BROKER_URL"] == parts["CELERY_RESULT_BACKEND"] == broker
    options = {"master_name": "yuanzi", "sentinel_kwargs": to_sentinels}
    assert parts["CELERY_BROKER_TRANSPORT_OPTIONS"] == options
    assert parts["CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS"] == options

    assert parts["CELERY_REDBEAT_REDIS_URL"] == "redis-sentinel://"
    assert parts["CELERY_REDBEAT_REDIS_OPTIONS"] == {
        "sentinels": [("10.0.0.1", 26379), ("10.0.0.2", 26380), ("fd00::3", 26381)],
        "service_name": "yuanzi", "db": 2, "sentinel_kwargs": to_sentinels,
        "password": "m/pw"}
    assert parts["CELERY_REDBEAT_KEY_PREFIX"] == "p:redbeat"


def test_without_passwords_nothing_is_sent_and_the_db_defaults_to_0():
    target = sentinel_target("s1:26379", "yuanzi")
    assert target is not None
    assert (target.db, target.password) == (0, None)
    parts = redis_settings(target, prefix="p")
    assert "password" not in parts["CACHES"]["default"]["OPTIONS"]
    assert "password" not in parts["CHANNEL_LAYERS"]["default"]["CONFIG"]["hosts"][0]
    assert "password" not in parts["CELERY_BROKER_TRANSPORT_OPTIONS"]["sentinel_kwargs"]
    assert parts["CELERY_BROKER_URL"] == "sentinel://s1:26379/0"


@pytest.mark.parametrize(("sentinels", "message"), [
    ("10.0.0.1", "'10.0.0.1' is not host:port"),
    ("10.0.0.1:26379,10.0.0.2", "'10.0.0.2' is not host:port"),
    (":26379", "':26379' is not host:port"),
    ("fd00::3:26379", "IPv6 address goes in brackets"),
    ("10.0.0.1:sentinel", "no valid port"),
    ("10.0.0.1:0", "no valid port"),
    ("10.0.0.1:70000", "no valid port"),
    (" , ", "lists no sentinel"),
])
def test_a_bad_sentinel_list_is_refused(sentinels, message):
    with pytest.raises(ImproperlyConfigured, match="REDIS_SENTINELS") as refused:
        sentinel_target(sentinels, "yuanzi")
    assert message in str(refused.value)


def test_missing_or_conflicting_variables_are_refused():
    with pytest.raises(ImproperlyConfigured, match="REDIS_SENTINEL_MASTER is not"):
        sentinel_target("10.0.0.1:26379", None)
    with pytest.raises(ImproperlyConfigured, match="REDIS_SENTINEL_MASTER is set but"):
        sentinel_target(None, "yuanzi")
    with pytest.raises(ImproperlyConfigured, match="REDIS_DB is set but"):
        sentinel_target(None, None, db="1", url="redis://r:6379/0")
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL and REDIS_SENTINELS"):
        sentinel_target("10.0.0.1:26379", "yuanzi", url="redis://r:6379/0")
    with pytest.raises(ImproperlyConfigured, match="REDIS_DB='one'"):
        sentinel_target("10.0.0.1:26379", "yuanzi", db="one")
    with pytest.raises(ImproperlyConfigured, match="REDIS_DB='-1'"):
        sentinel_target("10.0.0.1:26379", "yuanzi", db="-1")
    assert parse_sentinels("[::1]:26379") == (("::1", 26379),)


def _setup(extra: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDIS_")}
    env.pop("DATABASE_URL", None)
    env.update(DJANGO_SETTINGS_MODULE="yuanzi_site.settings", **extra)
    return subprocess.run([sys.executable, "-c", "import django; django.setup()\n" + code],
                          env=env, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_the_settings_module_reads_the_sentinel_variables():
    """What ``django.setup()`` and the Celery app make of the variables (a child
    process: the settings are read once per process)."""
    run = _setup({"REDIS_SENTINELS": "10.0.0.1:26379,10.0.0.2:26379",
                  "REDIS_SENTINEL_MASTER": "yuanzi", "REDIS_DB": "1"}, """
import json
from django.conf import settings
from yuanzi_site.celery import app
print(json.dumps({
    "cache": settings.CACHES["default"]["BACKEND"],
    "layer": settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["master_name"],
    "scheduler": settings.GAMES_SCHEDULER, "eager": app.conf.task_always_eager,
    "broker": app.conf.broker_url,
    "broker_options": app.conf.broker_transport_options["master_name"],
    "backend": type(app.backend).__name__,
    "redbeat": app.conf.redbeat_redis_options["service_name"],
}))
""")
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {
        "cache": "yuanzi_site.cache.SentinelRedisCache", "layer": "yuanzi",
        "scheduler": "celery", "eager": False,
        "broker": "sentinel://10.0.0.1:26379/1;sentinel://10.0.0.2:26379/1",
        "broker_options": "yuanzi", "backend": "SentinelBackend", "redbeat": "yuanzi"}


def test_a_bad_sentinel_value_stops_start_up():
    run = _setup({"REDIS_SENTINELS": "10.0.0.1", "REDIS_SENTINEL_MASTER": "yuanzi"}, "")
    assert run.returncode != 0
    assert "ImproperlyConfigured" in run.stderr
    assert "'10.0.0.1' is not host:port" in run.stderr


def test_every_sentinel_variable_is_documented():
    """The Sentinel variables are read in yuanzi_site/redis_config.py, out of
    reach of tests/test_docs.py's scan of the settings."""
    import re

    read = set(re.findall(r'get\("(REDIS_\w+)"\)',
                          (ROOT / "yuanzi_site/redis_config.py").read_text()))
    assert read == {"REDIS_SENTINELS", "REDIS_SENTINEL_MASTER", "REDIS_DB", "REDIS_PASSWORD",
                    "REDIS_SENTINEL_PASSWORD", "REDIS_URL"}
    example = set(re.findall(r"^([A-Z_]+)=", (ROOT / ".env.example").read_text(), re.M))
    deploy = (ROOT / "docs/deploy.md").read_text()
    assert read <= example
    assert all(f"`{name}`" in deploy for name in read)
    assert "## Redis with Sentinel" in deploy
    assert "--sentinel" in deploy


# --- the failover drill -----------------------------------------------------------------


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _wait(what: str, check, timeout: float = 30):
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except Exception as e:  # not up yet
            last = e
        time.sleep(0.1)
    raise AssertionError(f"{what}: not after {timeout} s (last: {last!r})")


class Group:
    """A master, its replica and a sentinel watching them, on free ports."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.master_port, self.replica_port, self.sentinel_port, self.dead_port = _free_ports(4)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def _start(self, name: str, *args: str) -> None:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115  closed with the process
        self.procs[name] = subprocess.Popen(["redis-server", *args], stdout=log,
                                            stderr=subprocess.STDOUT, cwd=self.tmp)
        log.close()

    def start(self) -> None:
        import redis

        common = ("--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
        self._start("master", "--port", str(self.master_port), *common)
        self._start("replica", "--port", str(self.replica_port), *common,
                    "--replicaof", "127.0.0.1", str(self.master_port))
        conf = self.tmp / "sentinel.conf"  # the sentinel rewrites it: a file of the test's own
        conf.write_text(
            f"port {self.sentinel_port}\nbind 127.0.0.1\ndir {self.tmp}\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {self.master_port} 1\n"
            f"sentinel down-after-milliseconds {MASTER} 1000\n"
            f"sentinel failover-timeout {MASTER} 5000\n"
            f"sentinel parallel-syncs {MASTER} 1\n")
        self._start("sentinel", str(conf), "--sentinel")
        replica = redis.Redis(port=self.replica_port)
        _wait("replica linked", lambda: replica.info("replication")["master_link_status"] == "up")
        replica.close()
        sentinel = redis.Redis(port=self.sentinel_port)
        _wait("sentinel sees the replica", lambda: sentinel.sentinel_slaves(MASTER))
        sentinel.close()

    def master_address(self) -> tuple[str, int]:
        from redis.sentinel import Sentinel

        return Sentinel([("127.0.0.1", self.sentinel_port)]).discover_master(MASTER)

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)

    def stop(self) -> None:
        for name in list(self.procs):
            self.kill(name)


@pytest.fixture
def group(tmp_path: Path) -> Iterator[Group]:
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server (the failover drill runs its own master, replica "
                    "and sentinel)")
    g = Group(tmp_path)
    try:
        g.start()
        yield g
    finally:
        g.stop()


def test_every_part_works_again_after_the_master_dies(group):
    """Cache, channel layer, Celery broker and redbeat on one settings block
    through the sentinel (the first sentinel listed is dead: the next answers);
    the master is killed; once the sentinel has promoted the replica the same
    objects read what was written before and write again."""
    import redis
    from celery import Celery
    from kombu import Connection
    from redbeat.schedulers import get_redis

    target = sentinel_target(f"127.0.0.1:{group.dead_port},127.0.0.1:{group.sentinel_port}",
                             MASTER, db="0")
    assert target is not None
    prefix = f"drill{uuid.uuid4().hex[:6]}"
    parts = redis_settings(target, prefix=prefix)

    cache_conf = parts["CACHES"]["default"]
    cache = import_string(cache_conf["BACKEND"])(cache_conf["LOCATION"], cache_conf)
    layer_conf = parts["CHANNEL_LAYERS"]["default"]
    layer = import_string(layer_conf["BACKEND"])(**layer_conf["CONFIG"])
    app = Celery("drill", set_as_current=False)
    app.conf.update(redbeat_redis_url=parts["CELERY_REDBEAT_REDIS_URL"],
                    redbeat_redis_options=parts["CELERY_REDBEAT_REDIS_OPTIONS"])

    def broker_round_trip(payload: dict[str, int]) -> object:
        with Connection(parts["CELERY_BROKER_URL"],
                        transport_options=parts["CELERY_BROKER_TRANSPORT_OPTIONS"]) as conn:
            queue = conn.SimpleQueue(f"{prefix}-queue")
            queue.put(payload)
            message = queue.get(timeout=10)
            message.ack()
            body = message.payload
            queue.close()
            return body

    async def layer_round_trip(text: str) -> object:
        channel = await layer.new_channel()
        await layer.group_add("drill", channel)
        await layer.group_send("drill", {"type": "drill.note", "text": text})
        return (await asyncio.wait_for(layer.receive(channel), 10))["text"]

    async def drill() -> None:
        first = group.master_address()
        assert first == ("127.0.0.1", group.master_port)

        cache.set("before", "written before", 600)
        assert cache.get("before") == "written before"
        assert await layer_round_trip("one") == "one"
        assert broker_round_trip({"n": 1}) == {"n": 1}
        get_redis(app).set(f"{prefix}:beat", "b1")
        master = redis.Redis(port=group.master_port)
        assert master.wait(1, 5000) == 1  # the replica has every write
        master.close()

        group.kill("master")
        promoted = _wait("the sentinel promotes the replica",
                         lambda: group.master_address() != first and group.master_address())
        assert promoted == ("127.0.0.1", group.replica_port)

        # the same cache and layer objects: their old connections fail once, the
        # retry reconnects through the sentinel to the new master
        assert cache.get("before") == "written before"
        cache.set("after", "written after", 600)
        assert cache.get("after") == "written after"
        assert await layer_round_trip("two") == "two"
        assert broker_round_trip({"n": 2}) == {"n": 2}
        assert get_redis(app).get(f"{prefix}:beat") == "b1"
        get_redis(app).set(f"{prefix}:beat", "b2")
        replica = redis.Redis(port=group.replica_port, decode_responses=True)
        assert replica.get(f"{prefix}:beat") == "b2"  # written on the promoted replica
        replica.close()
        await layer.flush()

    asyncio.run(drill())
