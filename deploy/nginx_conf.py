"""Run ``deploy/nginx.conf`` as written on one machine: the tests' nginx
(tests/test_nginx.py) and ``make prod`` (deploy/Procfile).

:func:`render` replaces only what differs from the documented deployment —
the Daphne ports, the two listening ports, the certificate paths and the
static folder — and wraps the result in a minimal main configuration whose
pid, logs and temporary files live in one folder. :func:`self_signed` makes
the certificate (``openssl``). ``python deploy/nginx_conf.py DIR HTTPS_PORT
HTTP_PORT DAPHNE_PORT...`` writes ``DIR/nginx.conf`` (and a certificate) and
execs nginx in the foreground.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "deploy" / "nginx.conf"
DOC_UPSTREAMS = ("127.0.0.1:8001", "127.0.0.1:8002")
DOC_CERT = "/etc/letsencrypt/live/yuanzi.example/fullchain.pem"
DOC_KEY = "/etc/letsencrypt/live/yuanzi.example/privkey.pem"
DOC_STATIC = "/srv/yuanzi/app/staticfiles/"

MAIN = """\
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
daemon off;
events {{ worker_connections 4096; }}
http {{
    include /etc/nginx/mime.types;
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
{site}
}}
"""


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` in ``folder`` (made once):
    ``(certificate, key)`` paths."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    if not cert.exists():
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
                        "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
                       check=True, capture_output=True)
    return cert, key


def render(folder: Path, https_port: int, http_port: int, daphne_ports: list[int],
           static_dir: Path | None = None) -> Path:
    """Write ``folder/nginx.conf`` running the documented site file with these
    ports; returns its path. ``daphne_ports``: one server line each in every
    upstream block (each block's documented two lines are the pattern).

    :raises ValueError: if the documented file no longer has what is replaced.
    """
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = self_signed(folder)
    site = SITE.read_text()
    lines = [line for line in site.splitlines(keepends=True) if DOC_UPSTREAMS[0] in line]
    if not lines or DOC_UPSTREAMS[1] not in site:
        raise ValueError("deploy/nginx.conf: the upstream lines changed")
    # the documented second lines go first: a port list that names 8002 again keeps it
    site = "".join(line for line in site.splitlines(keepends=True)
                   if DOC_UPSTREAMS[1] not in line)
    for pattern in lines:  # each upstream block: one server line per port
        site = site.replace(pattern, "".join(pattern.replace(DOC_UPSTREAMS[0], f"127.0.0.1:{p}")
                                             for p in daphne_ports))
    for old, new in ((DOC_CERT, str(cert)), (DOC_KEY, str(key)),
                     (DOC_STATIC, f"{static_dir or ROOT / 'static'}/"),
                     ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
                     ("listen 80;", f"listen 127.0.0.1:{http_port};")):
        if old not in site:
            raise ValueError(f"deploy/nginx.conf: {old!r} not found")
        site = site.replace(old, new)
    path = folder / "nginx.conf"
    path.write_text(MAIN.format(dir=folder, site=site))
    return path


def main(argv: list[str]) -> None:
    """``DIR HTTPS_PORT HTTP_PORT DAPHNE_PORT...``: render (static files from
    collectstatic's ``staticfiles/``), then exec nginx."""
    folder, https_port, http_port, *daphnes = argv
    conf = render(Path(folder).resolve(), int(https_port), int(http_port),
                  [int(p) for p in daphnes], static_dir=ROOT / "staticfiles")
    os.execvp("nginx", ["nginx", "-c", str(conf), "-p", str(conf.parent)])


if __name__ == "__main__":
    main(sys.argv[1:])
