"""Shared fixtures: a temporary workspace root per test; the user's real ~/.gemini is never read."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gemini_tui.core.approvals.trust import TRUST_ENV
from gemini_tui.tools.workspace import Workspace

if TYPE_CHECKING:
    from tests.fakes.gemini_server import FakeGeminiServer


_last_module: list[object] = [None]


def pytest_configure(config: pytest.Config) -> None:
    """pytest collects garbage five times over at a session's end, to report what an ignored exception in a
    finaliser left; each walk covers a worker's whole heap once the last app unfroze it (~0.8 s of CPU each, at
    the very end of every worker's run). One collection finds what the later four would: they collect nothing."""
    from _pytest.unraisableexception import gc_collect_iterations_key

    config.stash[gc_collect_iterations_key] = 1


def _share_parsed_css() -> None:
    """Every app a test starts parses the same stylesheets (the app's, each widget's default CSS) into the same
    rules, ~70 ms of CPU a start (a quarter of it) for some thousand apps a run. Textual keeps the parsed rules
    per stylesheet and never changes them; here they are kept per process, under everything a parse depends on
    (the text, where it is from, the theme's variables). A stylesheet with errors still fails as before (its
    rules carry their errors); a parse that raises is not kept."""
    from textual.css import stylesheet

    parse_rules = stylesheet.Stylesheet._parse_rules
    parsed: dict[tuple[object, ...], list[stylesheet.RuleSet]] = {}

    def shared(self: stylesheet.Stylesheet, css: str, read_from: stylesheet.CSSLocation,
               is_default_rules: bool = False, tie_breaker: int = 0, scope: str = "") -> list[stylesheet.RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(sorted(self._variables.items())))
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    stylesheet.Stylesheet._parse_rules = shared  # type: ignore[method-assign]


_share_parsed_css()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """At each test module's start, what earlier modules left alive (imports, session fixtures, caches) is
    frozen out of the collector's sight: a worker's heap grows to ~500k objects, and every full collection walked
    them all again (a tenth of an in-process test's CPU). Garbage is collected first, so only live objects are
    frozen; the collection itself then covers only what the last module left."""
    module = getattr(item, "module", None)
    if module is not _last_module[0]:
        _last_module[0] = module
        gc.collect()
        gc.freeze()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A real directory used as the workspace root (resolved, so symlinked /tmp does not confuse checks)."""
    path = (tmp_path / "root").resolve()
    path.mkdir()
    return path


@pytest.fixture
def workspace(root: Path) -> Workspace:
    return Workspace(root)


@pytest.fixture(autouse=True, scope="session")
def _no_real_gemini_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Settings, GEMINI.md and saved chats default to `$GEMINI_CLI_HOME/.gemini`: point it at a temp directory
    for the whole run (subprocesses inherit it), so no test reads or writes the developer's own files.

    Workspaces are trusted here (`GEMINI_CLI_TRUST_WORKSPACE=true`), so the many tests that configure a
    workspace's `.gemini/settings.json` see it applied; the trust tests remove it (`untrusted_env`)."""
    names = ("GEMINI_CLI_HOME", TRUST_ENV, "TMUX_TMPDIR", "LINES", "COLUMNS", "MAKELEVEL", "MAKEFLAGS", "MFLAGS")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["GEMINI_CLI_HOME"] = str(tmp_path_factory.mktemp("gemini-home"))
    os.environ[TRUST_ENV] = "true"
    # each pytest process (an xdist worker, or another checkout's run) gets a tmux server of its own: one shared
    # server mixed the sessions and environments of concurrent runs
    os.environ["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="gtui-tmux-")
    # pytest-xdist's workers set LINES=24 and COLUMNS=80, which an app started from a test would take as its size
    # whatever its terminal is
    # and under `make test` a make started by a test would print its directories and join the outer jobserver
    for name in ("LINES", "COLUMNS", "MAKELEVEL", "MAKEFLAGS", "MFLAGS"):
        os.environ.pop(name, None)
    yield
    if shutil.which("tmux"):
        subprocess.run(["tmux", "kill-server"], capture_output=True, timeout=20)
    shutil.rmtree(os.environ["TMUX_TMPDIR"], ignore_errors=True)
    for name, previous in saved.items():
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


@pytest.fixture
def untrusted_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Folder trust as a user has it: decided by trustedFolders.json, not by the test environment."""
    monkeypatch.delenv(TRUST_ENV, raising=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A scratch home directory (for GEMINI_CLI_HOME), so no test reads or writes the real ~/.gemini."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def gemini_server() -> Iterator[FakeGeminiServer]:
    from tests.fakes.gemini_server import FakeGeminiServer  # only the tests that use it pay for its import

    with FakeGeminiServer() as server:
        yield server


# The browser tests (tests/browser/) have their own target, `make test-browser`, run by .ci/run after `make test`.
collect_ignore = [] if os.environ.get("GEMINI_TUI_BROWSER") else ["browser"]
# tests/harbor runs in Harbor's own environment (Python 3.12, harbor installed), through `make test-harbor`, with
# --confcutdir so this file is not loaded there
collect_ignore.append("harbor")
