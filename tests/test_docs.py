"""docs/protocol.md and docs/deploy.md keep up with the code: every message
type the table consumer handles, every reason code it can send, every
environment variable the settings read (and .env.example lists them all)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games import plugins
from yuanzi_site.refusals import REASONS, Refused

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text()
DEPLOY = (ROOT / "docs" / "deploy.md").read_text()


def _source(*paths: str) -> str:
    return "\n".join((ROOT / p).read_text() for p in paths)


def test_every_client_message_type_is_documented():
    kinds = {"ping", "sync"} | set(plugins.socket_message_types())
    assert {"chat", "sit", "play", "pass", "escape", "auto_play"} <= kinds
    missing = sorted(k for k in kinds if f'{{"type": "{k}"' not in PROTOCOL)
    assert not missing, f"docs/protocol.md lacks client messages {missing}"


def test_every_server_message_type_is_documented():
    src = _source("games/adapters/consumers.py", "games/events.py")
    kinds = set(re.findall(r'"type": "(\w+)"', src))
    assert {"table", "game", "chat", "chat_history", "error", "pong", "tables", "notice"} <= kinds
    missing = sorted(k for k in kinds if f'{{"type": "{k}"' not in PROTOCOL)
    assert not missing, f"docs/protocol.md lacks server messages {missing}"


def test_every_reason_code_is_registered_and_documented():
    assert {"stale", "not_your_turn", "does_not_beat", "bad_message", "seated_elsewhere",
            "bad_name"} <= set(REASONS)
    missing = sorted(r for r in REASONS if f"`{r}`" not in PROTOCOL)
    assert not missing, f"docs/protocol.md lacks reason codes {missing}"
    # every code written literally in the source is registered (Refused checks at run time too)
    apps = ("games", "accounts", "shop", "social", "moderation", "contests")
    src = "\n".join(p.read_text() for app in apps
                    for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts)
    written = set(re.findall(r'Refused\(\s*"(\w+)"', src))
    assert written
    assert not written - set(REASONS), sorted(written - set(REASONS))


def test_an_unregistered_reason_cannot_be_raised():
    with pytest.raises(ValueError, match="unregistered"):
        Refused("no_such_code", "x")


def test_every_setting_variable_is_in_env_example_and_deploy_doc():
    src = _source("yuanzi_site/settings.py")
    names = set(re.findall(r'env_\w+\(\s*"([A-Z_]+)"', src))
    assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "GAMES_SCHEDULER"} <= names
    example = set(re.findall(r"^([A-Z_]+)=", (ROOT / ".env.example").read_text(), re.M))
    assert not names - example, f".env.example lacks {sorted(names - example)}"
    missing = sorted(n for n in names if f"`{n}`" not in DEPLOY)
    assert not missing, f"docs/deploy.md lacks {missing}"


def test_deploy_doc_names_the_commands():
    for needed in ("celery -A yuanzi_site worker -l info", "celery -A yuanzi_site beat -l info",
                   "collectstatic", "proxy_set_header Upgrade $http_upgrade",
                   "yuanzi_site.asgi:application"):
        assert needed in DEPLOY


def test_every_readme_image_is_committed_and_small():
    """Every picture the README shows is in the tree, a PNG, under 300 KB; the
    shop's three (the shop, the inventory, a replay) among them."""
    readme = (ROOT / "README.md").read_text()
    images = re.findall(r"!\[[^\]]+\]\((docs/img/[\w.-]+)\)", readme)
    assert {"docs/img/shop.png", "docs/img/inventory.png", "docs/img/replay.png"} <= set(images)
    for name in images:
        path = ROOT / name
        assert path.is_file(), f"README shows {name}, which is not there"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{name} is not a PNG"
        assert path.stat().st_size < 300 * 1024, f"{name} is {path.stat().st_size} bytes"


def test_deploy_doc_shows_the_nginx_file_verbatim():
    """The recipe and what CI runs cannot drift apart."""
    doc = (ROOT / "docs" / "deploy.md").read_text()
    assert "```nginx\n" + (ROOT / "deploy" / "nginx.conf").read_text() + "```" in doc


def test_the_committed_translations_are_compiled_from_the_catalogue(tmp_path):
    """The .mo the site serves holds exactly what django.po says (a stale .mo
    shows English in the Chinese interface). Needs gettext's msgfmt (CI
    installs it)."""
    import gettext
    import shutil
    import subprocess

    if not shutil.which("msgfmt"):
        pytest.skip("needs gettext's msgfmt to compile django.po")
    folder = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
    fresh = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(fresh), str(folder / "django.po")], check=True)
    with fresh.open("rb") as a, (folder / "django.mo").open("rb") as b:
        compiled, committed = gettext.GNUTranslations(a), gettext.GNUTranslations(b)
    stale = {k for k in set(compiled._catalog) ^ set(committed._catalog)
             if compiled._catalog.get(k) != committed._catalog.get(k)}
    stale |= {k for k in compiled._catalog if compiled._catalog[k] != committed._catalog.get(k)}
    assert not stale, f"{len(stale)} messages differ: run `make messages` (or compilemessages)"


def test_the_readme_layout_names_every_module():
    """The README's Layout matches the tree: every module of every app (and of
    the project package, the engine and the adapters) is named there."""
    readme = (ROOT / "README.md").read_text()
    layout = readme.split("## Layout", 1)[1].split("```", 2)[1]
    words = set(re.findall(r"[\w]+", layout))
    missing = []
    for package in ("yuanzi_site", "games", "games/engine", "games/adapters", "accounts",
                    "shop", "moderation", "social", "contests"):
        assert f"{package.rsplit('/', 1)[-1]}/" in layout, package
        for path in (ROOT / package).glob("*.py"):
            if path.stem != "__init__" and path.stem not in words:
                missing.append(f"{package}/{path.name}")
    for top in ("templates", "static", "locale", "bench", "deploy", "docs", "tests"):
        assert f"{top}/" in layout, top
    assert not missing, f"README.md Layout lacks {missing}"
