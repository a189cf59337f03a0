"""Imports point one way (DESIGN.md layout): every import statement of the
project's packages, nested and lazy ones included, read from the source with
``ast``. The layers: engine ← games ⇄ accounts (``games`` uses only
``accounts.models`` and ``accounts.levels``) ← shop and every newer app beside
it (the social hall …, which never import each other) ← moderation ← contests. The
engine imports nothing of Django nor of the site; the write and read modules
never import their transports (``games.adapters``); ``games``' templates and
scripts never load another app's; no module-level cycle anywhere. The apps are
read from the settings, so a new app is checked without editing this test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
APPS = tuple(app for app in settings.INSTALLED_APPS if (ROOT / app).is_dir())
PACKAGES = (*APPS, "yuanzi_site")
#: each app's layer; an app not named here sits beside the shop (layer 2)
LAYER = {"games": 1, "accounts": 1, "shop": 2, "moderation": 3, "contests": 4}
#: modules that wire transports in (besides games.adapters itself)
WIRING = ("plugin", "apps", "views", "management", "tasks")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file, as absolute names."""
    tree = ast.parse(path.read_text(), str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            found |= {f"{module}.{a.name}" for a in node.names}  # `from games import play`
    return found


def _graph() -> dict[str, set[str]]:
    modules = {
        _module_name(p): p for pkg in PACKAGES if (ROOT / pkg).is_dir()
        for p in (ROOT / pkg).rglob("*.py") if "migrations" not in p.parts
    }
    return {name: {m for m in _imports(path) if m in modules} for name, path in modules.items()}, {
        name: _imports(path) for name, path in modules.items()}


def test_the_engine_imports_nothing_of_django_or_the_site():
    _, everything = _graph()
    for module, imported in everything.items():
        if module.startswith("games.engine"):
            bad = {m for m in imported if m.split(".")[0] in (
                "django", "channels", "celery", *PACKAGES)} - {
                m for m in imported if m.startswith("games.engine")}
            assert not bad, f"{module} imports {sorted(bad)}"


def test_games_never_imports_shop_or_moderation_and_only_accounts_models_and_levels():
    _, everything = _graph()
    for module, imported in everything.items():
        if not module.startswith("games"):
            continue
        for m in imported:
            top = m.split(".")[0]
            assert top not in ("shop", "moderation"), f"{module} imports {m}"
            if top == "accounts":
                assert m in ("accounts", "accounts.models", "accounts.levels") or m.startswith((
                    "accounts.models.", "accounts.levels.")), f"{module} imports {m}"


def test_social_is_imported_by_nobody_below_it():
    _, everything = _graph()
    assert any(m.startswith("social.") for m in everything)  # the walk saw the app
    for module, imported in everything.items():
        if module.split(".")[0] in ("games", "accounts", "shop"):
            bad = sorted(m for m in imported if m.split(".")[0] == "social")
            assert not bad, f"{module} imports {bad}"


def test_no_import_cycle():
    graph, _ = _graph()
    # a module's own package __init__ is not an edge back (Python loads it first)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt):], nxt]
                raise AssertionError("import cycle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert len(graph) > 20  # the walk saw the project


def _layer(app: str) -> int:
    return LAYER.get(app, 2)


def test_apps_import_only_lower_layers():
    """An app imports only apps of a lower layer, and games ⇄ accounts; two apps
    of one layer (the shop and the social hall) never import each other."""
    _, everything = _graph()
    assert {"games", "accounts", "shop", "moderation", "social"} <= set(APPS)
    for module, imported in everything.items():
        app = module.split(".")[0]
        if app not in APPS:
            continue
        for m in imported:
            other = m.split(".")[0]
            if other not in APPS or other == app or {app, other} == {"games", "accounts"}:
                continue
            assert _layer(other) < _layer(app), f"{module} ({app}) imports {m} ({other})"


def test_no_app_imports_the_project_routing():
    _, everything = _graph()
    for module, imported in everything.items():
        if module.split(".")[0] in APPS:
            bad = {m for m in imported if m.split(".")[:2] in (
                ["yuanzi_site", "urls"], ["yuanzi_site", "asgi"], ["yuanzi_site", "wsgi"])}
            assert not bad, f"{module} imports {sorted(bad)}"


def test_write_and_read_modules_never_import_their_transports():
    """Only the adapters themselves, an app's plugin, apps, views, tasks and
    management commands (the wiring) and the project import ``games.adapters``."""
    _, everything = _graph()
    checked = 0
    for module, imported in everything.items():
        parts = module.split(".")
        if parts[0] not in APPS or module.startswith("games.adapters"):
            continue
        # a view module by name too (contests.challenge_views: Django's views)
        if any(part in WIRING or part.endswith("_views") for part in parts[1:]):
            continue
        checked += 1
        bad = sorted(m for m in imported if m.startswith("games.adapters"))
        assert not bad, f"{module} imports its transport {bad}"
    assert checked > 30
    assert "games.play" in everything
    assert "games.tables" in everything


def test_games_templates_and_scripts_load_no_other_apps():
    """Other apps' parts of a games page come through the plugins
    (``GamePlugin.panels`` and ``page_modules``)."""
    others = [app for app in APPS if app != "games"]
    libraries = {p.stem for app in others for p in (ROOT / app / "templatetags").glob("*.py")}
    pages = [*(ROOT / "templates" / "games").glob("*.html"),
             *(ROOT / "games" / "templates").rglob("*.html")]
    assert pages
    for page in pages:
        text = page.read_text()
        for load in re.findall(r"{%\s*load\s+([^%]+)%}", text):
            bad = set(load.split()) & libraries
            assert not bad, f"{page.name} loads {sorted(bad)}"
        named = re.findall(r"{%\s*(?:include|extends)\s+[\"']([\w.-]+)/", text)
        assert not set(named) & set(others), f"{page.name} includes {named}"
    for script in (ROOT / "static" / "js").glob("*.js"):
        text = script.read_text()
        for app in others:
            assert f"../{app}/" not in text, f"{script.name} loads {app}'s static files"
            assert f"/static/{app}/" not in text, f"{script.name} loads {app}'s static files"
