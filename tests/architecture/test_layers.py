"""The whole package's import graph, read from the source: no module imports itself back through others, core's
rooms import each other in one direction only, and no layer reaches up (core never imports app, cli or tools;
tools never import app or cli; app never imports cli; tools reach core only through its rooms). Imports inside
functions and under TYPE_CHECKING count: a lazy import is still an arrow."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"gemini_tui": "gemini_tui", "app": "gemini_tui.app", "cli": "gemini_tui.cli", "core": "gemini_tui.core",
           "tools": "gemini_tui.tools", "styles": "gemini_tui.styles", "harbor_agent": "gemini_tui.harbor"}
# Layers may import downwards only; lower number = lower layer.
LAYERS = {"gemini_tui.core": 0, "gemini_tui.tools": 1, "gemini_tui.app": 2, "gemini_tui.cli": 3, "gemini_tui.harbor": 4}
# Core's rooms from the ground up; a room imports only rooms before it in this list. docs/development.md repeats
# it, one line a room (test_the_docs_list_the_rooms_in_this_order keeps the two equal).
ROOMS = ["ground", "processes", "workspace", "shell", "persistence", "tooling", "approvals", "setup", "mcp", "models",
         "session", "agents"]


def all_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in (REPO / folder).rglob("*.py"):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The known modules `path` imports anywhere in it (`from pkg import module` names the module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            while name and name not in known:  # `a.b.Class` -> `a.b`
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def graph() -> dict[str, set[str]]:
    """A fresh copy of the graph (a test may change it); the files are parsed once per run."""
    return {name: set(targets) for name, targets in _parsed_graph().items()}


@functools.cache
def _parsed_graph() -> dict[str, frozenset[str]]:
    modules = all_modules()
    known = set(modules)
    edges = {name: imports_of(path, known) - {name} for name, path in modules.items()}
    # a package's own __init__ importing its members is not an arrow back to it
    return {name: frozenset(m for m in targets if not name.startswith(m + ".") or m not in known)
            for name, targets in edges.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def room(module: str) -> str | None:
    """`gemini_tui.core.approvals.policy` -> `approvals`; None outside core's rooms."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "core" else None


def layer(module: str) -> str | None:
    return next((top for top in LAYERS if module == top or module.startswith(top + ".")), None)


def test_the_graph_is_read_from_the_real_modules() -> None:
    edges = graph()
    assert "gemini_tui.core.approvals.policy" in edges["gemini_tui.core.session.scheduler"]
    assert "gemini_tui.core.tooling.tool" in edges["gemini_tui.tools.read_file"]
    assert len(edges) > 150


def test_no_module_imports_itself_back() -> None:
    assert find_cycle(graph()) is None


def room_arrows(edges: dict[str, set[str]]) -> dict[str, set[tuple[str, str]]]:
    """For each room, the (module, module of another room) pairs it imports."""
    arrows: dict[str, set[tuple[str, str]]] = {}
    for name, targets in edges.items():
        if (here := room(name)) is None:
            continue
        arrows.setdefault(here, set()).update((name, t) for t in targets if room(t) not in (None, here))
    return arrows


def arrows_out_of_order(edges: dict[str, set[str]]) -> list[str]:
    """Every import from a room to a room that is not below it in ROOMS, and every room not in ROOMS."""
    wrong: list[str] = []
    for here, pairs in room_arrows(edges).items():
        if here not in ROOMS:
            wrong.append(f"room {here} is not in the pinned order")
            continue
        wrong += [f"{source} -> {target}" for source, target in sorted(pairs)
                  if (there := room(target)) not in ROOMS or ROOMS.index(there) >= ROOMS.index(here)]
    return wrong


def test_cores_rooms_import_in_the_pinned_order() -> None:
    edges = graph()
    assert set(room_arrows(edges)) == set(ROOMS), "every room of core/ is in ROOMS, and only those"
    assert arrows_out_of_order(edges) == []


def test_the_order_check_catches_an_arrow_up_and_a_room_out_of_order() -> None:
    edges = {name: set(targets) for name, targets in graph().items()}
    edges["gemini_tui.core.ground.parts"].add("gemini_tui.core.session.session")  # ground reaching up
    edges["gemini_tui.core.models.offline"].add("gemini_tui.core.session.compression")  # the arrow that was fixed
    edges["gemini_tui.core.attic.box"] = {"gemini_tui.core.ground.parts"}  # a room nobody placed
    wrong = arrows_out_of_order(edges)
    assert "gemini_tui.core.ground.parts -> gemini_tui.core.session.session" in wrong
    assert "gemini_tui.core.models.offline -> gemini_tui.core.session.compression" in wrong
    assert "room attic is not in the pinned order" in wrong


def test_the_docs_list_the_rooms_in_this_order() -> None:
    text = (REPO / "docs" / "development.md").read_text(encoding="utf-8")
    listed = [line.split("`")[1].rstrip("/") for line in text.splitlines()
              if line.startswith("  - `") and line.split("`")[1].rstrip("/") in ROOMS]
    assert listed == ROOMS


def test_core_holds_only_rooms() -> None:
    loose = [p.name for p in (REPO / "core").glob("*.py") if p.name != "__init__.py"]
    assert loose == []


@pytest.mark.parametrize("lower", sorted(LAYERS))
def test_no_layer_reaches_up(lower: str) -> None:
    for name, targets in graph().items():
        if layer(name) != lower:
            continue
        up = sorted(t for t in targets if (top := layer(t)) is not None and LAYERS[top] > LAYERS[lower])
        assert not up, f"{name} imports {up}"


def test_app_never_imports_cli_and_tools_never_import_app() -> None:
    for name, targets in graph().items():
        if name.startswith("gemini_tui.tools."):
            assert not any(t.startswith(("gemini_tui.app", "gemini_tui.cli")) for t in targets), name
        if name.startswith("gemini_tui.app."):
            assert not any(t.startswith("gemini_tui.cli") for t in targets), name


def test_the_harbor_adapter_stays_outside() -> None:
    """gemini_tui.harbor (the optional extra) runs on Harbor's side: nothing imports it, and it imports nothing of
    gemini-tui but the package's version (the agent itself runs in Harbor's container, as a program)."""
    edges = graph()
    assert "gemini_tui.harbor.agent" in edges
    for name, targets in edges.items():
        if name.startswith("gemini_tui.harbor"):
            assert targets <= {"gemini_tui", "gemini_tui.harbor", "gemini_tui.harbor.agent"}, name
        else:
            assert not any(t.startswith("gemini_tui.harbor") for t in targets), name
