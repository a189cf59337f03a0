"""The documented proxy, run as documented (docs/deploy.md "nginx"): nginx with
``deploy/nginx.conf`` (a self-signed certificate, its ports changed by
``deploy/nginx_conf.py``) in front of two Daphne processes of the production
stack (PostgreSQL, Redis, ``--proxy-headers``, ``TRUSTED_PROXIES=127.0.0.1``).

Pages, static files and a websocket over TLS reach the site; a client's own
``X-Forwarded-For`` is overwritten (the sign-up limit per address holds); and
nginx fails over from a Daphne that died. Skipped without ``DATABASE_URL``,
``REDIS_URL`` or nginx (``.ci/run`` installs it; with ``CI=true`` a skip fails).
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from tests.servers import ROOT, ServerProcess, free_port, test_database_url

sys.path.insert(0, str(ROOT / "deploy"))
import nginx_conf  # deploy/ is scripts, not a package

NEEDS = "needs DATABASE_URL (PostgreSQL), REDIS_URL (Redis) and nginx"
pytestmark = [
    pytest.mark.skipif(
        not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")
             and shutil.which("nginx")), reason=NEEDS),
    pytest.mark.django_db(transaction=True),
]
TLS = ssl.create_default_context()
TLS.check_hostname, TLS.verify_mode = False, ssl.CERT_NONE  # self-signed


class ProxiedDaphne(ServerProcess):
    """A Daphne as docs/deploy.md runs it behind nginx (``--proxy-headers``)."""

    name = "daphne"

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self._spawn([sys.executable, "-m", "daphne", "-e",
                     f"tcp:port={self.port}:interface=127.0.0.1:backlog=1024",
                     "--websocket_connect_timeout", "30", "--proxy-headers",
                     "yuanzi_site.asgi:application"], env)


class Nginx(ServerProcess):
    """nginx in the foreground with the documented site file."""

    name = "nginx"

    def __init__(self, daphne_ports: list[int]) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="yuanzi-nginx-")
        self.port = free_port()
        conf = nginx_conf.render(Path(self._dir.name), self.port, free_port(), daphne_ports)
        self._spawn(["nginx", "-c", str(conf), "-p", self._dir.name], dict(os.environ))
        self.base_url = f"https://localhost:{self.port}"

    def stop(self, show_output: bool = True) -> None:
        if show_output:
            print((Path(self._dir.name) / "error.log").read_text(errors="replace")[-3000:])
        super().stop(show_output)
        self._dir.cleanup()


@pytest.fixture
def proxied():
    """Two Daphnes behind nginx; ``(nginx, [daphne, daphne])``, all stopped after."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
        "DATABASE_URL": test_database_url(),
        "SECRET_KEY": settings.SECRET_KEY,
        "GAMES_SCHEDULER": "none",
        "TRUSTED_PROXIES": "127.0.0.1",
        "USE_X_FORWARDED_PROTO": "1",
        "SIGNUP_RATE_LIMIT": "3/m/ip",
        "PYTHONUNBUFFERED": "1",
    }
    daphnes = [ProxiedDaphne(env) for _ in range(2)]
    started: list[ServerProcess] = list(daphnes)
    try:
        for d in daphnes:
            d.wait_listening()
        nginx = Nginx([d.port for d in daphnes])
        started.append(nginx)
        nginx.wait_listening()
        yield nginx, daphnes
    finally:
        for p in started:
            p.stop()


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.HTTPSHandler(context=TLS),
                                       urllib.request.HTTPCookieProcessor(
                                           http.cookiejar.CookieJar()))


def _get(opener, url: str, headers: dict[str, str] | None = None):
    try:
        return opener.open(urllib.request.Request(url, headers=headers or {}), timeout=15)
    except urllib.error.HTTPError as e:
        return e


def test_pages_static_files_and_websockets_through_nginx(proxied, owner):
    """What a browser does through the documented proxy: a page over TLS, a
    static file with its long cache header, and a logged-in websocket whose
    handshake passes the Origin check (``Host`` passed through)."""
    nginx, _ = proxied
    opener = _opener()
    page = _get(opener, nginx.base_url + "/")
    assert page.status == 200
    assert "原子" in page.read().decode()
    css = _get(opener, nginx.base_url + "/static/css/site.css")
    assert css.status == 200
    assert "immutable" in " ".join(css.headers.get_all("Cache-Control"))

    from django.test import Client

    client = Client()
    client.force_login(owner)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"

    async def lobby_frame() -> dict:
        from websockets.asyncio.client import connect

        async with connect(f"wss://localhost:{nginx.port}/ws/lobby/", ssl=TLS,
                           origin=nginx.base_url, additional_headers={"Cookie": cookie},
                           open_timeout=15) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), 15))

    frame = asyncio.run(lobby_frame())
    assert frame == {"type": "tables", "tables": []}


def _sign_up(opener, base: str, n: int, forged: str) -> int:
    """One sign-up POST with a forged ``X-Forwarded-For``; its HTTP status."""
    form = _get(opener, base + "/accounts/signup/", {"X-Forwarded-For": forged})
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.read().decode())[1]
    data = urllib.parse.urlencode({
        "csrfmiddlewaretoken": token, "username": f"nginx{n}",
        "password1": "atom-Jiaxing-2026", "password2": "atom-Jiaxing-2026",
    }).encode()
    request = urllib.request.Request(base + "/accounts/signup/", data=data, headers={
        "X-Forwarded-For": forged, "Referer": base + "/accounts/signup/"})
    try:
        return opener.open(request, timeout=15).status
    except urllib.error.HTTPError as e:
        return e.code


def test_a_forged_forwarded_for_is_overwritten(proxied):
    """Each sign-up claims another address in its own ``X-Forwarded-For``;
    nginx overwrites the header with the real peer (127.0.0.1), so the limit
    of 3 sign-ups a minute per address refuses the fourth (429)."""
    nginx, _ = proxied
    statuses = [_sign_up(_opener(), nginx.base_url, n, f"203.0.113.{n}") for n in range(4)]
    assert statuses[:3] == [200, 200, 200], statuses
    assert statuses[3] == 429, statuses


def test_nginx_fails_over_from_a_dead_daphne(proxied):
    """One Daphne killed outright: every request still gets its answer from the
    other (``max_fails``, ``proxy_next_upstream``)."""
    nginx, daphnes = proxied
    daphnes[0].proc.send_signal(signal.SIGKILL)
    daphnes[0].proc.wait(10)
    opener = _opener()
    statuses = [_get(opener, nginx.base_url + "/healthz").status for _ in range(20)]
    assert statuses == [200] * 20


def test_make_prod_serves_the_stack_through_nginx():
    """``make prod``'s script (deploy/prod.sh, honcho, deploy/Procfile) on free
    ports and the test database: the site answers through nginx over TLS and
    ``/readyz`` sees the database, Redis and a fresh heartbeat from beat's
    sweep run by the worker; SIGTERM to honcho stops every process."""
    import time

    ports = {k: str(free_port()) for k in ("HTTPS_PORT", "HTTP_PORT", "WEB1_PORT", "WEB2_PORT")}
    with tempfile.TemporaryDirectory(prefix="yuanzi-prod-") as folder:
        env = {**os.environ, **ports, "PROD_DIR": folder, "DATABASE_URL": test_database_url(),
               "SECRET_KEY": settings.SECRET_KEY}
        log = Path(folder) / "prod.log"
        with log.open("w") as out:
            proc = subprocess.Popen(["deploy/prod.sh"], cwd=ROOT, env=env, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        url = f"https://localhost:{ports['HTTPS_PORT']}"
        body = None
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and proc.poll() is None:
                answer = _get(_opener(), url + "/readyz") if _listening(ports["HTTPS_PORT"]) \
                    else None
                if answer is not None and answer.status == 200:
                    body = json.loads(answer.read())
                    break
                time.sleep(1)
            assert body == {"ready": True, "checks": {
                "database": "ok", "redis": "ok", "scheduler": "ok"}}, log.read_text()[-3000:]
            assert _get(_opener(), url + "/").status == 200
            # a Daphne killed: nginx serves from the other, and the Procfile starts it again
            web1 = _daphne_on(ports["WEB1_PORT"])
            os.kill(web1, signal.SIGKILL)
            statuses = [_get(_opener(), url + "/healthz").status for _ in range(10)]
            assert statuses == [200] * 10, log.read_text()[-3000:]
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not _listening(ports["WEB1_PORT"]):
                time.sleep(0.5)
            assert _daphne_on(ports["WEB1_PORT"]) != web1, log.read_text()[-3000:]
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        assert proc.returncode is not None


def _daphne_on(port: str) -> int:
    """The pid of the Daphne process started for ``port`` (not its restart loop)."""
    for pid in map(int, subprocess.run(["pgrep", "-f", f"daphne -e tcp:port={port}:"],
                                       capture_output=True, text=True).stdout.split()):
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if not argv[0].endswith(b"sh"):
            return pid
    raise AssertionError(f"no Daphne on port {port}")


def test_the_documented_file_gets_one_server_line_per_daphne(tmp_path):
    """``nginx_conf.render`` with the documented ports (make prod's defaults)
    keeps both Daphnes in both upstream blocks (it once dropped 8002)."""
    conf = nginx_conf.render(tmp_path, 8443, 8080, [8001, 8002]).read_text()
    for upstream in ("yuanzi", "yuanzi_ws"):
        block = re.search(r"upstream " + upstream + r" \{(.*?)\}", conf, re.S)
        assert block is not None
        servers = re.findall(r"server (127\.0\.0\.1:\d+)", block.group(1))
        assert servers == ["127.0.0.1:8001", "127.0.0.1:8002"]
    three = nginx_conf.render(tmp_path, 8443, 8080, [9001, 9002, 9003]).read_text()
    assert re.findall(r"server (127\.0\.0\.1:\d+)", three) == [
        f"127.0.0.1:{p}" for p in (9001, 9002, 9003)] * 2


def _listening(port: str) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=0.5):
            return True
    except OSError:
        return False
