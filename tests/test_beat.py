"""Celery beat on two hosts (docs/deploy.md "Celery"): with celery-redbeat
only the holder of the Redis lock sends the periodic jobs; a second beat
waits, and takes over within ``CELERY_REDBEAT_LOCK_TIMEOUT`` when the first
dies without a word (SIGKILL). Real ``celery beat`` processes on the test
Redis (a database number of its own, emptied after), never the shared keys.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.servers import ROOT

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (Redis): redbeat's lock lives there")

SENT = "Sending due task"
LOCKED = "beat: Acquired lock"


def _redis_url(db: int = 15) -> str:
    base = os.environ["REDIS_URL"].rsplit("/", 1)[0]
    return f"{base}/{db}"


class Beat:
    """One ``celery beat`` child, its output in a file."""

    def __init__(self, env: dict[str, str]) -> None:
        # closed in stop(): the child writes it meanwhile
        self.log = tempfile.NamedTemporaryFile(prefix="beat-", suffix=".log", delete=False)  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "yuanzi_site", "beat", "-l", "info"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def wait_for(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return
            assert self.proc.poll() is None, self.output()[-3000:]
            time.sleep(0.2)
        raise AssertionError(f"no {text!r} in {timeout} s:\n{self.output()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.log.close()
        os.unlink(self.log.name)


def test_one_beat_sends_and_a_second_takes_over_when_it_dies():
    import redis

    prefix = f"beattest{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
           "REDIS_URL": _redis_url(), "REDIS_PREFIX": prefix,
           "CELERY_REDBEAT_LOCK_TIMEOUT": "3", "PYTHONUNBUFFERED": "1"}
    env.pop("DATABASE_URL", None)  # beat needs no database
    first = second = None
    try:
        first = Beat(env)
        first.wait_for(LOCKED, 60)
        first.wait_for(SENT, 10)
        second = Beat(env)
        time.sleep(5)  # long enough to have sent the every-second sweep several times
        assert LOCKED not in second.output()
        assert SENT not in second.output()
        assert second.proc.poll() is None  # waiting, not failed
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait(10)
        second.wait_for(LOCKED, 30)
        second.wait_for(SENT, 10)
    finally:
        for beat in (first, second):
            if beat is not None:
                beat.stop()
        client = redis.Redis.from_url(_redis_url())
        keys = [*client.scan_iter(f"{prefix}*"), *client.scan_iter("_kombu*")]
        client.delete("celery", *keys)  # the sweeps sent to nobody
        client.close()
