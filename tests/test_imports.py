"""Imports point one way (DESIGN.md layout): every import statement of the
project's packages, nested and lazy ones included, read from the source with
``ast``. The engine imports nothing of Django nor of the site; ``games`` never
imports ``shop`` or ``moderation`` (it may use ``accounts.models`` and
``accounts.levels``); ``social`` may import ``games`` and ``accounts`` but
``games``, ``accounts`` and ``shop`` never import it; no module-level cycle
anywhere."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "accounts", "shop", "moderation", "social", "yuanzi_site")


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
                cycle = stack[stack.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert len(graph) > 20  # the walk saw the project
