"""The approval policy through the real Session: plan mode, protected paths, grants by kind, MCP spellings and
servers, security.disableYoloMode, the rule that decided in events and stream-json."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.cli.assemble import ConfigurationError
from gemini_tui.cli.headless import HeadlessPrinter, OutputFormat
from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, ExecConfirmation
from gemini_tui.core.ground.events import ConfirmationRequested
from tests.fakes import warm_start
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

FAKE_MCP = str(Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py")
pytestmark = pytest.mark.xdist_group("policy-fake-mcp")  # the module's one MCP server (fake_mcp_url)


def settings(home: Path, data: dict[str, Any]) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(data))


def answering(session: Any, answer: Any = None) -> tuple[list[ConfirmationRequested], asyncio.Future[None]]:
    """Answers every confirmation of `session` with `answer(event)` (default: reject); the requests seen, and
    the listening task (cancel it when done)."""
    asked: list[ConfirmationRequested] = []
    events = session.bus.subscribe()

    async def listen() -> None:
        async for event in events:
            if isinstance(event, ConfirmationRequested):
                asked.append(event)
                event.future.set_result(answer(event) if answer else Decision(ConfirmationOutcome.cancel))

    return asked, asyncio.ensure_future(listen())


async def turn(root: Path, home: Path, calls: list[Any], mode: ApprovalMode = ApprovalMode.default,
               interactive: bool = False, answer: Any = None, **kwargs: Any) -> tuple[list[dict[str, Any]], Any]:
    """One model turn of `calls` through a real Session; the responses the model got back, and the session."""
    model = ScriptedModel().add(calls).add(text("done"))
    session = scripted_session(root, model, home, approval_mode=mode, interactive=interactive, **kwargs)
    asked, listener = answering(session, answer)
    try:
        await session.send("go")
        session.tool_names = {tool.name for tool in session.registry.tools}  # before close unregisters MCP tools
    finally:
        listener.cancel()
        await session.close()
    session.asked = asked  # type: ignore[attr-defined]
    user = [c for c in model.requests[-1].contents if c.role == "user"][-1]
    return [part.response for part in user.parts if hasattr(part, "response")], session


# -- plan mode ---------------------------------------------------------------------------------------------------
async def test_plan_mode_runs_reads_and_refuses_every_change(root: Path, home: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    responses, _ = await turn(root, home, [
        call("read_file", absolute_path=str(root / "a.txt")),
        call("write_file", file_path=str(root / "b.txt"), content="x"),
        call("replace", file_path=str(root / "a.txt"), old_string="hello", new_string="bye"),
        call("run_shell_command", command="touch MARK"),
        call("save_memory", fact="anything"),
    ], ApprovalMode.plan, interactive=True, answer=lambda e: Decision(ConfirmationOutcome.proceed_once))
    assert "hello" in responses[0]["output"]
    for refused in responses[1:]:
        assert "Plan mode is on" in refused["error"]
    assert not (root / "b.txt").exists() and not (root / "MARK").exists()
    assert (root / "a.txt").read_text() == "hello\n"


# -- protected paths ---------------------------------------------------------------------------------------------
PROTECTED = [".gemini/settings.json", "GEMINI.md", "sub/GEMINI.md", "NOTES.md", ".git/hooks/pre-commit",
             ".git/config", ".geminiignore", "sub/.gemini/x.json"]


@pytest.mark.parametrize("mode", [ApprovalMode.auto_edit, ApprovalMode.default])
async def test_protected_files_are_refused_headless_even_in_auto_edit(root: Path, home: Path,
                                                                      mode: ApprovalMode) -> None:
    settings(home, {"context": {"fileName": ["GEMINI.md", "NOTES.md"]}, "tools": {"allowed": ["write_file"]}})
    calls = [call("write_file", file_path=str(root / path), content="run anything\n") for path in PROTECTED]
    calls.append(call("write_file", file_path=str(root / "plain.txt"), content="ok\n"))
    responses, _ = await turn(root, home, calls, mode)
    for path, response in zip(PROTECTED, responses, strict=False):
        assert "protected path" in response["error"], (path, response)
        assert not (root / path).exists()
    assert "error" not in responses[-1] and (root / "plain.txt").read_text() == "ok\n"


async def test_protected_files_ask_and_say_why_and_yolo_writes_them(root: Path, home: Path) -> None:
    responses, session = await turn(root, home, [
        call("write_file", file_path=str(root / ".gemini" / "settings.json"), content="{}"),
    ], ApprovalMode.auto_edit, interactive=True)
    [asked] = session.asked
    assert asked.call.decision == "ask" and "protected path .gemini/settings.json" in asked.call.rule
    assert "decide what runs without asking" in asked.call.reason
    responses, _ = await turn(root, home, [call("write_file", file_path=str(root / "GEMINI.md"), content="x")],
                              ApprovalMode.yolo)
    assert "error" not in responses[0] and (root / "GEMINI.md").read_text() == "x"


async def test_shell_writes_to_protected_paths_ask(root: Path, home: Path) -> None:
    # tools.shell.allowRedirection lets covered commands write inside the root: never to a protected path
    settings(home, {"tools": {"allowed": ["run_shell_command(echo)", "run_shell_command(cp)",
                                          "run_shell_command(cd)", "run_shell_command(tee)"],
                              "shell": {"allowRedirection": True}}})
    (root / ".git" / "hooks").mkdir(parents=True)
    lines = ["echo x > .git/hooks/pre-commit", "echo x >> GEMINI.md", "cp /dev/null .gemini/settings.json",
             "echo x | tee .geminiignore", "cd .git/hooks && echo x > pre-commit", "cd sub; echo x > a",
             "F=.gemini/settings.json; echo x > $F", "echo x > ~/.gemini/settings.json",
             "echo x > ./.gi?/hooks/post-commit"]
    responses, _ = await turn(root, home, [call("run_shell_command", command=line) for line in lines])
    for line, response in zip(lines, responses, strict=True):
        assert "error" in response and "not run" in response["error"], (line, response)
    assert not (root / ".git" / "hooks" / "pre-commit").exists() and not (root / "GEMINI.md").exists()
    ok, _ = await turn(root, home, [call("run_shell_command", command="echo fine > notes.txt")])
    assert "error" not in ok[0] and (root / "notes.txt").exists()


# -- grants ------------------------------------------------------------------------------------------------------
async def test_allowing_a_loop_for_the_session_grants_its_commands_never_keywords(root: Path, home: Path) -> None:
    (root / "notes.md").write_text("keep\n")

    def allow_always_once(event: ConfirmationRequested) -> Decision:
        if "echo" in event.details.command:  # type: ignore[union-attr]
            return Decision(ConfirmationOutcome.proceed_always)
        return Decision(ConfirmationOutcome.cancel)

    model = ScriptedModel()
    model.add(call("run_shell_command", command="for f in a; do echo $f; done")).add(text("ok"))
    model.add(call("run_shell_command", command="for f in notes.md; do rm -f $f; done")).add(text("ok"))
    model.add(call("run_shell_command", command="for g in b c; do echo $g; done")).add(text("ok"))
    session = scripted_session(root, model, home, interactive=True)
    asked, listener = answering(session, allow_always_once)
    for _ in range(3):
        await session.send("go")
    listener.cancel()
    await session.close()
    first = asked[0].details
    assert isinstance(first, ExecConfirmation) and first.root_commands == ("echo",)
    assert session.always_allowed == {"run_shell_command(echo)"}
    assert len(asked) == 2  # the rm loop asked (and was refused); the second echo loop ran unasked
    assert (root / "notes.md").exists()


async def test_allow_edits_for_the_session_covers_write_file_and_replace(root: Path, home: Path) -> None:
    (root / "a.txt").write_text("one\n")
    model = ScriptedModel()
    model.add(call("write_file", file_path=str(root / "b.txt"), content="b\n")).add(text("ok"))
    model.add(call("replace", file_path=str(root / "a.txt"), old_string="one", new_string="two")).add(text("ok"))
    session = scripted_session(root, model, home, interactive=True)
    asked, listener = answering(session, lambda _event: Decision(ConfirmationOutcome.proceed_always))
    await session.send("write")
    await session.send("replace")
    listener.cancel()
    await session.close()
    assert len(asked) == 1 and session.always_allowed == {"edit"}
    assert (root / "a.txt").read_text() == "two\n"


# -- disableYoloMode ---------------------------------------------------------------------------------------------
async def test_disable_yolo_mode_refuses_yolo_everywhere(root: Path, home: Path) -> None:
    settings(home, {"security": {"disableYoloMode": True}})
    with pytest.raises(ConfigurationError, match="disableYoloMode"):
        scripted_session(root, ScriptedModel(), home, approval_mode=ApprovalMode.yolo)
    session = scripted_session(root, ScriptedModel(), home)
    with pytest.raises(PermissionError, match=r"yolo mode is disabled by security\.disableYoloMode"):
        session.approval_mode = ApprovalMode.yolo
    assert session.approval_mode is ApprovalMode.default
    session.approval_mode = ApprovalMode.plan
    assert session.approval_mode is ApprovalMode.plan


def test_yolo_flag_exits_with_a_clear_error_when_disabled(root: Path, home: Path) -> None:
    import subprocess

    settings(home, {"security": {"disableYoloMode": True}})
    run = subprocess.run([*warm_start.command({}, "gemini_tui.cli.main"), "-p", "hi", "--yolo", "-m", "offline"],
                         cwd=root, env={"GEMINI_CLI_HOME": str(home), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 3
    assert "yolo mode is disabled by security.disableYoloMode" in run.stderr


# -- the decision in events and stream-json -------------------------------------------------------------------
async def test_stream_json_tool_use_carries_the_decision_and_its_rule(root: Path, home: Path) -> None:
    settings(home, {"tools": {"allowed": ["run_shell_command(echo)"], "exclude": ["run_shell_command(rm)"]}})
    model = ScriptedModel().add(call("run_shell_command", command="echo hi"),
                                call("run_shell_command", command="rm -rf x"),
                                call("run_shell_command", command="eval ls")).add(text("done"))
    session = scripted_session(root, model, home, interactive=False)
    out, err = io.StringIO(), io.StringIO()
    await HeadlessPrinter(OutputFormat.stream_json, out, err).run(session, "go")
    await session.close()
    uses = [json.loads(line) for line in out.getvalue().splitlines() if '"tool_use"' in line]
    assert [u["approval"]["decision"] for u in uses] == ["allow", "deny", "ask"]
    assert uses[0]["approval"]["rule"].startswith("tools.allowed: run_shell_command(echo) (")
    assert uses[1]["approval"]["rule"].startswith("tools.exclude: run_shell_command(rm)")
    assert uses[2]["approval"]["rule"] == "opaque command: eval"


# -- MCP: both spellings, and servers that must not connect -------------------------------------------------------
def mcp_settings(home: Path, **extra: Any) -> None:
    server = extra.pop("url", None) or warm_start.server_entry(FAKE_MCP)
    server.update(extra.pop("server", {}))
    settings(home, {"mcpServers": {"fake": server}, **extra})


@pytest.fixture(scope="module")
def fake_mcp_url() -> Iterator[dict[str, str]]:
    """The fake MCP server over streamable HTTP in this process, one for the module: a spelling is read by the
    session from its settings, and the tools it names are the server's, which no test here changes; a stdio
    server per session would cost a process start (~2 s of CPU, importing the SDK) per session."""
    from tests.fakes.mcp_http import serve_mcp

    with serve_mcp("http") as url:
        yield {"httpUrl": url}


@pytest.mark.parametrize("spelling", ["mcp_fake_echo", "fake__echo", "mcp:fake/echo", "echo"])
async def test_gemini_cli_mcp_spellings_in_exclude_and_allowed(root: Path, home: Path, spelling: str,
                                                                fake_mcp_url: dict[str, str]) -> None:
    mcp_settings(home, url=dict(fake_mcp_url), tools={"exclude": [spelling]})
    responses, session = await turn(root, home, [call("echo", text="hi")])
    assert "not found" in responses[0]["error"] or "disabled" in responses[0]["error"]
    assert "echo" not in session.tool_names and "add" in session.tool_names
    mcp_settings(home, url=dict(fake_mcp_url), tools={"allowed": [spelling]})
    responses, _ = await turn(root, home, [call("echo", text="hi"), call("add", a=1, b=2)])
    assert "hi" in responses[0]["output"]
    assert "needs the user's confirmation" in responses[1]["error"]


@pytest.mark.parametrize("spelling", ["mcp_fake_add", "fake__add", "add"])
async def test_include_tools_takes_every_spelling(root: Path, home: Path, spelling: str,
                                                 fake_mcp_url: dict[str, str]) -> None:
    mcp_settings(home, url=dict(fake_mcp_url), server={"includeTools": [spelling]})
    _, session = await turn(root, home, [])
    assert "add" in session.tool_names and "echo" not in session.tool_names


@pytest.mark.parametrize("how", ["mcp.excluded", "mcp.allowed", "flag"])
async def test_refused_servers_never_connect(root: Path, home: Path, how: str) -> None:
    extra: dict[str, Any] = {}
    if how == "mcp.excluded":
        mcp_settings(home, mcp={"excluded": ["fake"]})
    elif how == "mcp.allowed":
        mcp_settings(home, mcp={"allowed": ["other"]})
    else:
        mcp_settings(home)
        extra["allowed_mcp_server_names"] = ["other"]
    responses, session = await turn(root, home, [call("echo", text="hi")], **extra)
    assert session.mcp is None and "echo" not in session.tool_names
    assert any("MCP server fake is not connected" in n.message for n in session.notices)
    assert "error" in responses[0]


@pytest.mark.parametrize("line, verdict", [
    ("git status -s", "allow"), ("/usr/bin/git status", "allow"), ("git $X", "ask"), ("git st${X}", "ask"),
    ("./git status", "ask"), ("tools/git status", "ask"), ("git status; ./git status", "ask"),
    ("git -C sub --no-pager status", "allow"), ("sudo git status", "ask"), ("env git status", "allow"),
])
def test_allow_rules_need_the_real_command_and_literal_words(line: str, verdict: str) -> None:
    # an allow rule vouches for the command the user named: not a program of the same name in the project,
    # and not a word computed at run time where the rule names one
    from gemini_tui.core.approvals.policy import ApprovalPolicy, rules_from
    from gemini_tui.core.shell.grammar import analyze
    from gemini_tui.core.tooling.needs import CallNeeds

    policy = ApprovalPolicy(allowed=rules_from("tools.allowed", ["run_shell_command(git status)"]))
    assert policy.decide("run_shell_command", CallNeeds(shell=analyze(line))).verdict == verdict
