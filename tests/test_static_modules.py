"""The page scripts are native ES modules served by the site (whitenoise), with
no build step: every module of static/js and every plugin's page module
(``GamePlugin.page_modules``, in its app's static folder) is listed in the
import map (templates/_js_modules.html), served as JavaScript, and under
production's manifest storage mapped to its content-hashed name, so a page
never mixes modules of two deployments."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.urls import reverse

from games import plugins, tables

pytestmark = pytest.mark.django_db

JS = Path(__file__).resolve().parent.parent / "static" / "js"
MODULES = sorted(p.name for p in JS.glob("*.js"))


def _mapped() -> list[str]:
    """Every URL the import map must list: static/js and the plugins' modules."""
    return sorted([f"/static/js/{m}" for m in MODULES]
                  + [f"/static/{path}" for path in plugins.page_modules()])


def _file(url: str) -> Path:
    return Path(finders.find(url.removeprefix("/static/")))


def _import_map(html: str) -> dict[str, str]:
    m = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    assert m, "no import map on the page"
    return json.loads(m.group(1))["imports"]


def _imports(name: str) -> set[str]:
    """The modules a module imports (relative specifiers)."""
    return set(re.findall(r'\bfrom "\./([\w.]+)";', (JS / name).read_text()))


def test_every_module_is_in_the_import_map_and_served_as_javascript(client, owner):
    table = tables.create_table(owner, "模块")
    for url in (reverse("lobby"), reverse("table", args=[table.pk])):
        html = client.get(url).content.decode()
        imports = _import_map(html)
        assert sorted(imports) == _mapped()
        assert all(imports[k] == k for k in imports)  # development: no hashing
    for url in _mapped():
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"].startswith("text/javascript"), response["Content-Type"]


def test_every_import_names_an_existing_module():
    for m in MODULES:
        for dep in _imports(m):
            assert dep in MODULES, f"{m} imports ./{dep}, which static/js lacks"
    for path in plugins.page_modules():  # an app's module imports the site's by ../js/
        deps = set(re.findall(r'\bfrom "\.\./js/([\w.]+)";', _file(f"/static/{path}").read_text()))
        assert deps, (path, deps)
        assert deps <= set(MODULES), (path, deps)
    assert "state.js" in _imports("table.js")
    assert "socket.js" in _imports("lobby.js")
    assert "state.js" in _imports("seats.js")  # a multi-line import


def test_production_storage_maps_each_module_to_its_hashed_file(client, settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", interactive=False, verbosity=0)
    html = client.get(reverse("lobby")).content.decode()
    imports = _import_map(html)
    assert sorted(imports) == _mapped()
    for plain, hashed in imports.items():
        stem = plain.removesuffix(".js")
        assert re.fullmatch(rf"{stem}\.[0-9a-f]{{12}}\.js", hashed), hashed
        served = (tmp_path / hashed.removeprefix("/static/")).read_text()
        assert served == _file(plain).read_text()  # imports left as written
    entry = re.search(r'<script type="module" src="([^"]+)">', html).group(1)
    assert entry == imports["/static/js/lobby.js"]
