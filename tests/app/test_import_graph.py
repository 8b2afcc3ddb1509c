"""The app's import graph: its floors in one order with every arrow going down them, only the app's entry imports
the main screen, no module of the app imports another in a loop (counting TYPE_CHECKING imports, and imports
inside functions too, but for the display registry's lazy loading of its plug-ins), and the app reaches the
core's Session only through its face."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from tests.architecture.test_layers import find_cycle

APP = Path(__file__).resolve().parents[2] / "app"
PACKAGE = "gemini_tui.app"
ENTRY = f"{PACKAGE}.main"
MAIN_SCREEN = f"{PACKAGE}.screens.main_screen"

# The app's floors from the ground up (docs/development.md says the same). A module imports its own floor or the
# ones below, never one above: a widget posts a message rather than open a screen, a display never builds on a
# screen. `ground`: the app's top-level modules that any floor may use; `controllers`: the app's other top-level
# modules (the event adapter, the confirmation queue, the slash commands and their results, the prompt queue),
# which drive the widgets and open the modals of `screens`.
APP_FLOORS = ("ground", "diff", "displays", "widgets", "screens", "controllers", "main_screen", "main")
GROUND = ("call_log", "clipboard", "decision_keys", "early_input", "external_editor", "held_updates", "keys_first",
          "themes", "typing_guard", "window_title")


def module_name(path: Path) -> str:
    parts = path.relative_to(APP).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _module_level(tree: ast.Module) -> list[ast.AST]:
    """The statements run on import: the top level and `if` blocks (TYPE_CHECKING), not function bodies."""
    nodes: list[ast.AST] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        nodes.append(node)
        if isinstance(node, ast.If | ast.Try):
            pending.extend([*node.body, *node.orelse, *getattr(node, "handlers", []), *getattr(node, "finalbody", [])])
        elif isinstance(node, ast.ExceptHandler):
            pending.extend(node.body)
    return nodes


def imported_modules(path: Path, lazy: bool = True) -> set[str]:
    """Every module `path` imports: at module level (TYPE_CHECKING included), and with `lazy` inside functions."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree) if lazy else _module_level(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return found


def app_graph(lazy: bool = True) -> dict[str, set[str]]:
    """A fresh copy of the app's graph (a test may change it); the files are parsed once per run."""
    return {name: set(imports) for name, imports in _parsed_app_graph(lazy).items()}


@functools.cache
def _parsed_app_graph(lazy: bool) -> dict[str, frozenset[str]]:
    modules = {module_name(path): path for path in APP.rglob("*.py")}
    return {name: frozenset(m for m in imported_modules(path, lazy) if m in modules and m != name)
            for name, path in modules.items()}


def floor(module: str) -> str:
    name = module.removeprefix(PACKAGE).removeprefix(".")
    if name in ("main", "screens.main_screen"):
        return name.rpartition(".")[2]
    top = name.partition(".")[0]
    if top in ("diff", "displays", "widgets", "screens"):
        return top
    return "ground" if name in ("", *GROUND) else "controllers"


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    rank = {name: index for index, name in enumerate(APP_FLOORS)}
    return sorted(f"{module} ({floor(module)}) -> {target} ({floor(target)})" for module, targets in graph.items()
                  for target in targets if rank[floor(target)] > rank[floor(module)])


def test_every_floor_holds_modules() -> None:
    floors = {floor(name) for name in app_graph()}
    assert floors == set(APP_FLOORS)
    assert {f"{PACKAGE}.{name}" for name in GROUND} <= set(app_graph()), "a ground module was renamed"


def test_no_arrow_goes_back_up_the_app_floors() -> None:
    assert arrows_up(app_graph()) == []


@pytest.mark.parametrize(("module", "target"), [
    ("widgets.history_panel", "screens.history_details"),  # a widget opening a screen
    ("diff.file_diff", "displays.factories"),  # the diff view registering itself with the displays above it
    ("call_log", "widgets.chat"),  # the ground reaching a widget
    ("screens.picker", "history_commands"),  # a modal reaching back into the command that opens it
])
def test_an_arrow_back_up_is_caught(module: str, target: str) -> None:
    graph = app_graph()
    graph[f"{PACKAGE}.{module}"].add(f"{PACKAGE}.{target}")
    assert len(arrows_up(graph)) == 1


def test_the_graph_is_read_from_the_real_modules() -> None:
    graph = app_graph()
    # a guard against a walker that finds nothing: these edges exist
    assert MAIN_SCREEN in graph[ENTRY]
    assert f"{PACKAGE}.screen_controllers" in graph[MAIN_SCREEN]
    assert f"{PACKAGE}.event_adapter" in graph[f"{PACKAGE}.screen_controllers"]
    assert f"{PACKAGE}.view" in graph[f"{PACKAGE}.event_adapter"]


def test_only_the_entry_imports_the_main_screen() -> None:
    importers = sorted(name for name, imports in app_graph().items() if MAIN_SCREEN in imports)
    assert importers == [ENTRY]


def test_no_import_cycle_among_app_modules() -> None:
    assert find_cycle(app_graph(lazy=False)) is None
    # with lazy imports too, the only loop left is the display registry loading the displays that register with it
    displays = f"{PACKAGE}.displays"
    graph = {name: {m for m in imports if not (name.startswith(displays) and m.startswith(displays))}
             for name, imports in app_graph().items()}
    assert find_cycle(graph) is None


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_screen_module_is_imported_by_a_widget() -> None:
    graph = app_graph()
    for name, imports in graph.items():
        if name.startswith(f"{PACKAGE}.widgets."):
            reached = {m for m in imports if m.startswith(f"{PACKAGE}.screens.")}
            # a widget may open a modal over the app, never reach into the main screen
            assert MAIN_SCREEN not in reached, name


def test_the_app_reaches_the_session_only_through_its_face() -> None:
    for path in APP.rglob("*.py"):
        imports = imported_modules(path)
        # the Session class and the scheduler stay behind the face (core.session.face)
        behind = {m for m in imports
                  if m == "gemini_tui.core.session.session" or m.startswith("gemini_tui.core.session.session.")}
        assert not behind, path
        assert "gemini_tui.core.session.scheduler.Scheduler" not in imports, path
        # an attribute of the session object, not the room `core.session` of the same name
        source = path.read_text(encoding="utf-8").replace("gemini_tui.core.session.", "")
        for probe in ("session.scheduler", "session.history.append", "session.registry", "maybe_await"):
            assert probe not in source, f"{path.name} uses {probe}"


def test_the_main_screen_stays_a_layout() -> None:
    """What it shows and what it does live in the modules it composes; past 400 lines it is relaying again."""
    lines = (APP / "screens" / "main_screen.py").read_text(encoding="utf-8").count("\n")
    assert lines < 400, f"main_screen.py has {lines} lines"


def test_the_session_stays_the_place_its_parts_are_wired() -> None:
    """The work is in the session's parts; past 350 lines the Session is doing theirs again."""
    path = Path(__file__).parents[2] / "core" / "session" / "session.py"
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= 350, f"session.py has {lines} lines"
