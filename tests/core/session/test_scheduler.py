"""The scheduler: approval modes, allowed tools, every outcome, reviewed content, headless refusal."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalPolicy, Verdict, rules_from
from gemini_tui.core.approvals.policy import Decision as PolicyDecision
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, ExecConfirmation, McpConfirmation
from gemini_tui.core.ground.events import CallState, CallStateChanged, ConfirmationRequested, EventBus
from gemini_tui.core.ground.model_api import FunctionCall
from gemini_tui.core.ground.stats import CallDecision, SessionStats
from gemini_tui.core.session.scheduler import ApprovalMode, Scheduler, _Call
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.registry import ToolRegistry
from tests.core.conftest import EventLog, always


@pytest.fixture
def registry(tools) -> ToolRegistry:
    registry = ToolRegistry()
    for tool in tools.values():
        registry.register(tool)
    return registry


def make(registry: ToolRegistry, mode: ApprovalMode = ApprovalMode.default, allowed: list[str] | None = None,
         **kwargs: object) -> Scheduler:
    policy = ApprovalPolicy(allowed=rules_from("tools.allowed", allowed or []))
    return Scheduler(registry, EventBus(), SessionStats(), policy=policy, approval_mode=mode,
                     **kwargs)  # type: ignore[arg-type]


def granted(scheduler: Scheduler) -> set[str]:
    return {grant.rule for grant in scheduler.policy.grants.grants}


def write(content: str = "new\n", name: str = "n") -> FunctionCall:
    return FunctionCall(f"w-{name}-{content!r}", "write_note", {"name": name, "content": content})


def run(command: str) -> FunctionCall:
    return FunctionCall(f"r-{command}", "run_command", {"command": command})


async def test_default_mode_asks_and_allow_once(registry, root: Path) -> None:
    scheduler = make(registry)
    log = EventLog(scheduler.bus, always(ConfirmationOutcome.proceed_once))
    [response] = await scheduler.run([write()], AbortSignal())
    assert response.response == {"output": "Wrote n."}
    assert (root / "n").read_text() == "new\n"
    await log.settle()
    [request] = log.of(ConfirmationRequested)
    assert request.call.state is CallState.awaiting_approval
    assert request.details.file_diff.new_content == "new\n"
    states = [e.call.state for e in log.of(CallStateChanged)]
    assert states == [CallState.validating, CallState.validating, CallState.validating, CallState.awaiting_approval,
                      CallState.scheduled, CallState.executing, CallState.success]
    assert scheduler.stats.tools["write_note"].decisions[CallDecision.accept] == 1
    assert granted(scheduler) == set()
    assert request.call.decision == "ask" and request.call.rule == "approval mode default"


async def test_auto_edit_runs_edits_but_asks_for_commands(registry, root: Path, tools) -> None:
    scheduler = make(registry, ApprovalMode.auto_edit)
    log = EventLog(scheduler.bus, always(ConfirmationOutcome.cancel))
    responses = await scheduler.run([write(), run("rm -rf x")], AbortSignal())
    await log.settle()
    assert "output" in responses[0].response
    assert "rejected" in responses[1].response["error"]
    assert [type(e.details) for e in log.of(ConfirmationRequested)] == [ExecConfirmation]
    assert tools["run"].ran == []
    decisions = scheduler.stats.decisions()
    assert decisions[CallDecision.auto_accept] == 1 and decisions[CallDecision.reject] == 1


async def test_yolo_asks_nothing(registry, tools) -> None:
    scheduler = make(registry, ApprovalMode.yolo)
    log = EventLog(scheduler.bus)
    await scheduler.run([write(), run("make")], AbortSignal())
    await log.settle()
    assert log.of(ConfirmationRequested) == []
    assert tools["run"].ran == ["make"]


async def test_allow_for_the_session_covers_that_command_only(registry, tools) -> None:
    # git is granted by subcommand (allowing `git status` must not allow `git push`); other commands by name
    scheduler = make(registry)
    log = EventLog(scheduler.bus, always(ConfirmationOutcome.proceed_always))
    await scheduler.run([run("git status && ls -l")], AbortSignal())
    assert granted(scheduler) == {"run_command(git status)", "run_command(ls)"}
    log.answer = always(ConfirmationOutcome.cancel)
    await scheduler.run([run("git status -s"), run("ls -a"), run("git push"), run("curl x")], AbortSignal())
    await log.settle()
    assert tools["run"].ran == ["git status && ls -l", "git status -s", "ls -a"]
    assert len(log.of(ConfirmationRequested)) == 3  # the first line, git push, and curl


async def test_tools_allowed_setting(registry, tools) -> None:
    scheduler = make(registry, allowed=["run_command(ls)", "run_command(cat -n)", "write_note"])
    log = EventLog(scheduler.bus, always(ConfirmationOutcome.cancel))
    await scheduler.run([run("ls"), write(), run("cat x")], AbortSignal())
    await log.settle()
    assert tools["run"].ran == ["ls"]
    assert [e.call.name for e in log.of(ConfirmationRequested)] == ["run_command"]


async def test_tools_allowed_names_a_tool_as_tools_core_does(registry, tools, root: Path) -> None:
    # tools.core and tools.exclude take the class or display name too; tools.allowed must read them alike
    scheduler = make(registry, allowed=["WriteNoteTool", "Run(ls)"], interactive=False)
    first, second = await scheduler.run([write(), run("ls")], AbortSignal())
    assert first.response == {"output": "Wrote n."} and (root / "n").exists()
    assert "error" not in second.response and tools["run"].ran == ["ls"]
    scheduler = make(registry, allowed=["WriteNote"], interactive=False)
    [again] = await scheduler.run([write("v2\n")], AbortSignal())
    assert "error" not in again.response


def test_allow_rules() -> None:
    from gemini_tui.core.shell.grammar import analyze

    def verdict(allowed: list[str], tool: str, needs: CallNeeds) -> Verdict:
        return ApprovalPolicy(allowed=rules_from("tools.allowed", allowed)).decide(tool, needs).verdict

    mcp = CallNeeds(mcp_server="srv", mcp_tool="tool")
    assert verdict(["mcp:srv"], "srv__tool", mcp) is Verdict.allow
    assert verdict(["mcp:srv/tool"], "srv__tool", mcp) is Verdict.allow
    assert verdict(["mcp_srv_tool"], "srv__tool", mcp) is Verdict.allow
    assert verdict(["mcp:other"], "srv__tool", mcp) is Verdict.ask
    both = CallNeeds(shell=analyze("git status && rm b"))  # a git subcommand the table knows (`git a` is an alias)
    assert verdict(["sh(git)"], "sh", both) is Verdict.ask
    assert verdict(["sh(git)", "sh( rm )"], "sh", both) is Verdict.allow


async def test_mcp_outcomes_grant_server_or_tool(registry) -> None:
    scheduler = make(registry)
    details = McpConfirmation("t", "srv", "tool", "Tool")
    record_tool = registry.get("run_command")
    assert record_tool is not None
    call = _Call(run("x"), tool=record_tool)
    asked = PolicyDecision(Verdict.ask, "approval mode default", grants=("mcp:srv/tool",))
    assert scheduler._apply_decision(call, details, Decision(ConfirmationOutcome.proceed_always_server), asked)
    assert scheduler._apply_decision(call, details, Decision(ConfirmationOutcome.proceed_always_tool), asked)
    assert granted(scheduler) == {"mcp:srv", "mcp:srv/tool"}


async def test_cancel_with_feedback_reaches_the_model(registry, root: Path) -> None:
    scheduler = make(registry)
    EventLog(scheduler.bus, always(ConfirmationOutcome.cancel, feedback="Use tabs, not spaces."))
    [response] = await scheduler.run([write()], AbortSignal())
    assert "Use tabs, not spaces." in response.response["error"]
    assert not (root / "n").exists()


async def test_headless_default_refuses_without_running(registry, root: Path, tools) -> None:
    scheduler = make(registry, interactive=False)
    log = EventLog(scheduler.bus)
    responses = await scheduler.run([write(), run("ls"), FunctionCall("1", "read_note", {"name": "n"})],
                                    AbortSignal())
    await log.settle()
    assert "not possible in non-interactive mode" in responses[0].response["error"]
    assert "not possible in non-interactive mode" in responses[1].response["error"]
    assert "File not found" in responses[2].response["error"]  # reads still run
    assert not (root / "n").exists() and tools["run"].ran == []
    assert log.of(ConfirmationRequested) == []


async def test_headless_refusal_names_a_way_out_that_would_work(registry, tools) -> None:
    # in auto_edit, a command is refused: suggesting auto_edit again would send the user in a circle
    scheduler = make(registry, ApprovalMode.auto_edit, interactive=False)
    [command] = await scheduler.run([run("ls")], AbortSignal())
    assert "--approval-mode auto_edit" not in command.response["error"]
    assert "--yolo" in command.response["error"] and "tools.allowed" in command.response["error"]
    scheduler = make(registry, interactive=False)
    edit, command = await scheduler.run([write(), run("ls")], AbortSignal())
    assert "--approval-mode auto_edit" in edit.response["error"]
    assert "--approval-mode auto_edit" not in command.response["error"]
    assert tools["run"].ran == []


async def test_edit_refused_when_file_changed_after_review(registry, root: Path) -> None:
    (root / "n").write_text("v1\n")

    def change_then_approve(event: ConfirmationRequested) -> Decision:
        (root / "n").write_text("changed meanwhile\n")
        return Decision(ConfirmationOutcome.proceed_once)

    scheduler = make(registry)
    EventLog(scheduler.bus, change_then_approve)
    [response] = await scheduler.run([write("v2\n")], AbortSignal())
    assert "changed since it was reviewed" in response.response["error"]
    assert (root / "n").read_text() == "changed meanwhile\n"


async def test_refreshed_diff_is_the_one_checked(registry, root: Path) -> None:
    (root / "n").write_text("v1\n")
    scheduler = make(registry)
    pending: list[ConfirmationRequested] = []
    log = EventLog(scheduler.bus, lambda event: pending.append(event) and None)
    task = asyncio.ensure_future(scheduler.run([write("v2\n")], AbortSignal()))
    while not pending:
        await asyncio.sleep(0.01)
    (root / "n").write_text("edited by the user\n")
    fresh = await pending[0].details.refresh()  # the UI re-reads the file and shows the new diff
    assert fresh.original_content == "edited by the user\n"
    pending[0].future.set_result(Decision(ConfirmationOutcome.proceed_once))
    [response] = await task
    assert response.response == {"output": "Wrote n."}
    assert (root / "n").read_text() == "v2\n"
    await log.settle()


async def test_modify_without_new_content_is_not_run(registry, root: Path) -> None:
    scheduler = make(registry)
    EventLog(scheduler.bus, always(ConfirmationOutcome.modify))
    [response] = await scheduler.run([run("ls")], AbortSignal())
    assert "cannot apply modified content" in response.response["error"]


def test_approval_mode_cycles() -> None:
    # Shift+Tab never lands on yolo (it has its own key and flag)
    assert ApprovalMode.default.next() is ApprovalMode.auto_edit
    assert ApprovalMode.auto_edit.next() is ApprovalMode.plan
    assert ApprovalMode.plan.next() is ApprovalMode.default
    assert ApprovalMode.yolo.next() is ApprovalMode.default
