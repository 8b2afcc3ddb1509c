"""GrantStore: session and "always" grants, their provenance, revoking, and a broken file granting nothing."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from gemini_tui.core.approvals.grants import GrantScope, GrantStore, GrantStoreError
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationOutcome
from gemini_tui.core.ground.events import ConfirmationRequested, EventBus, Notice
from gemini_tui.core.ground.model_api import FunctionCall
from gemini_tui.core.ground.stats import SessionStats
from gemini_tui.core.session.scheduler import ApprovalMode, Scheduler
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.core.conftest import EventLog, always


def test_session_grants_are_kept_in_memory_only(root: Path, home: Path) -> None:
    store = GrantStore(root, home / ".gemini")
    [grant] = store.grant(["run_shell_command(git)"], GrantScope.session)
    assert grant.scope is GrantScope.session and grant.workspace == root
    assert store.rules() == {"run_shell_command(git)"}
    assert not (home / ".gemini" / "grants.json").exists()
    assert GrantStore(root, home / ".gemini").rules() == frozenset()  # a new session starts without it


def test_always_grants_persist_per_workspace_with_provenance(root: Path, home: Path, tmp_path: Path) -> None:
    store = GrantStore(root, home / ".gemini")
    store.grant(["write_file", "run_shell_command(npm test)"], GrantScope.always)
    path = home / ".gemini" / "grants.json"
    data = json.loads(path.read_text())
    assert [e["rule"] for e in data["workspaces"][str(root)]] == ["write_file", "run_shell_command(npm test)"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = GrantStore(root, home / ".gemini")
    assert again.rules(GrantScope.always) == {"write_file", "run_shell_command(npm test)"}
    grant = again.find("always:write_file")
    assert grant is not None and grant.workspace == root and grant.granted_at.year >= 2024
    assert "always, for" in grant.describe()
    other = tmp_path / "other"
    other.mkdir()
    assert GrantStore(other, home / ".gemini").rules() == frozenset()  # never leaks to another workspace


def test_revoke_session_and_always(root: Path, home: Path) -> None:
    store = GrantStore(root, home / ".gemini")
    store.grant(["a"], GrantScope.session)
    store.grant(["b", "c"], GrantScope.always)
    assert store.revoke("session:a").rule == "a"
    assert store.revoke("b").scope is GrantScope.always
    assert store.rules() == {"c"}
    assert GrantStore(root, home / ".gemini").rules() == {"c"}
    with pytest.raises(KeyError):
        store.revoke("b")
    store.revoke("always:c")
    data = json.loads((home / ".gemini" / "grants.json").read_text())
    assert str(root) not in data["workspaces"]


def test_two_stores_granting_at_once_keep_both(root: Path, home: Path) -> None:
    first, second = GrantStore(root, home / ".gemini"), GrantStore(root, home / ".gemini")
    first.grant(["one"], GrantScope.always)
    second.grant(["two"], GrantScope.always)  # re-reads under the lock: "one" is not lost
    assert GrantStore(root, home / ".gemini").rules() == {"one", "two"}


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"workspaces": {"/x": "write_file"}}'])
def test_a_broken_file_grants_nothing_and_is_never_overwritten(root: Path, home: Path, content: str) -> None:
    path = home / ".gemini" / "grants.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    store = GrantStore(root, home / ".gemini")
    assert store.rules() == frozenset() and store.errors and str(path) in store.errors[0]
    with pytest.raises(GrantStoreError):
        store.grant(["write_file"], GrantScope.always)
    assert path.read_text() == content


def test_entries_without_a_rule_are_skipped(root: Path, home: Path) -> None:
    path = home / ".gemini" / "grants.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"workspaces": {str(root): [{"rule": ""}, 3, {"rule": "ok", "granted_at": "x"}]}}))
    store = GrantStore(root, home / ".gemini")
    assert store.rules() == {"ok"} and len(store.errors) == 2


def test_without_a_home_always_is_refused(root: Path) -> None:
    store = GrantStore(root, None)
    with pytest.raises(GrantStoreError):
        store.grant(["x"], GrantScope.always)


# -- through the scheduler -----------------------------------------------------------------------------------
def run(command: str) -> FunctionCall:
    return FunctionCall(f"r-{command}", "run_command", {"command": command})


@pytest.fixture
def registry(tools) -> ToolRegistry:
    registry = ToolRegistry()
    for tool in tools.values():
        registry.register(tool)
    return registry


async def test_allow_always_outlives_the_session(registry, tools, root: Path, home: Path) -> None:
    store = GrantStore(root, home / ".gemini")
    scheduler = Scheduler(registry, EventBus(), SessionStats(), grants=store)
    log = EventLog(scheduler.bus, always(ConfirmationOutcome.proceed_always_and_save))
    await scheduler.run([run("git status")], AbortSignal())
    assert store.find("always:run_command(git status)") is not None
    # a new session in the same workspace: git status runs unasked (git is granted by subcommand), the rest asks
    later = Scheduler(registry, EventBus(), SessionStats(), grants=GrantStore(root, home / ".gemini"))
    log = EventLog(later.bus, always(ConfirmationOutcome.cancel))
    await later.run([run("git status -s"), run("rm -rf x")], AbortSignal())
    await log.settle()
    assert tools["run"].ran == ["git status", "git status -s"]
    assert [e.details.command for e in log.of(ConfirmationRequested)] == ["rm -rf x"]
    # revoked: git status asks again
    store.revoke("always:run_command(git status)")
    again = Scheduler(registry, EventBus(), SessionStats(), grants=GrantStore(root, home / ".gemini"))
    log = EventLog(again.bus, always(ConfirmationOutcome.cancel))
    await again.run([run("git status -s")], AbortSignal())
    await log.settle()
    assert len(log.of(ConfirmationRequested)) == 1 and tools["run"].ran == ["git status", "git status -s"]


async def test_allow_always_that_cannot_be_saved_holds_for_the_session(registry, tools, root: Path,
                                                                       home: Path) -> None:
    path = home / ".gemini" / "grants.json"
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    store = GrantStore(root, home / ".gemini")
    scheduler = Scheduler(registry, EventBus(), SessionStats(), grants=store)
    log = EventLog(scheduler.bus, always(ConfirmationOutcome.proceed_always_and_save))
    await scheduler.run([run("git status")], AbortSignal())
    await log.settle()
    assert tools["run"].ran == ["git status"]
    assert store.rules(GrantScope.session) == {"run_command(git status)"} and path.read_text() == "{broken"
    assert any("session only" in n.message for n in log.of(Notice))


async def test_plan_mode_runs_read_only_tools_and_refuses_the_rest(registry, tools, root: Path) -> None:
    (root / "n").write_text("hello\n")
    scheduler = Scheduler(registry, EventBus(), SessionStats(), approval_mode=ApprovalMode.plan)
    log = EventLog(scheduler.bus, always(ConfirmationOutcome.proceed_once))
    responses = await scheduler.run([FunctionCall("r", "read_note", {"name": "n"}), run("touch x"),
                                     FunctionCall("w", "write_note", {"name": "n", "content": "x"})], AbortSignal())
    await log.settle()
    assert "error" not in responses[0].response
    assert all("Plan mode is on" in r.response["error"] for r in responses[1:])
    assert tools["run"].ran == [] and (root / "n").read_text() == "hello\n"
    assert log.of(ConfirmationRequested) == []


def test_shift_tab_cycle_never_reaches_yolo() -> None:
    assert ApprovalMode.default.next() is ApprovalMode.auto_edit
    assert ApprovalMode.auto_edit.next() is ApprovalMode.plan
    assert ApprovalMode.plan.next() is ApprovalMode.default
    assert ApprovalMode.yolo.next() is ApprovalMode.default


def test_a_built_session_keeps_always_grants_in_its_home(root: Path, home: Path) -> None:
    # the store starts empty (len 0, falsy): the wiring must still use it, not a home-less stand-in
    from gemini_tui.cli.assemble import build_session

    session = build_session(root, home=home, env={}, model="offline")
    assert session.grants.path == home / ".gemini" / "grants.json" and session.grants.workspace == root
    assert session.scheduler.grants is session.grants
    session.grants.grant(["write_file"], GrantScope.always)
    assert build_session(root, home=home, env={}, model="offline").grants.rules() == {"write_file"}
