"""Subagents through the real session: invoke_agent's run has its own instruction, tools, model and first message,
goes through the session's approvals (policy files' `subagent` field too), and answers the session's model with
one function response; the limits end it with Gemini CLI's termination reasons."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gemini_tui.core.agents.tool_choice import NEVER
from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision
from gemini_tui.core.ground.events import ConfirmationRequested
from tests.core.agents.world import (
    RUN_MARKER,
    Router,
    agent_file,
    declared,
    first_user_text,
    instruction_of,
    response_texts,
    session_on,
)
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


async def test_a_subagent_runs_on_its_own_and_answers_once(root: Path, home: Path) -> None:
    (root / "notes.txt").write_text("the answer is 42\n")
    agent_file(home / ".gemini" / "agents", "reader", "You are READER-BODY. Read what you are asked to.",
               tools=["read_file", "glob"], model="gemini-reader-model")
    router = Router()
    router.script("parent", reply(call("invoke_agent", agent_name="reader", prompt="What is in notes.txt?")),
                  reply(text("It says 42.")))
    router.script("READER-BODY", reply(call("read_file", absolute_path=str(root / "notes.txt"))),
                  reply(call("complete_task", result="notes.txt says the answer is 42")))
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home)
        await session.send("ask the reader")
    parent, agent = router.requests_of("parent"), router.requests_of("READER-BODY")
    assert len(parent) == 2 and len(agent) == 2
    # the session's request offers invoke_agent and lists the agents
    assert "invoke_agent" in declared(parent[0])
    assert "- reader -> The reader agent." in instruction_of(parent[0])
    assert "- codebase_investigator -> " in instruction_of(parent[0])
    # the subagent's own request: its body and rules, only its tools and complete_task, its model, the prompt
    first = agent[0]
    assert instruction_of(first).startswith("You are READER-BODY.") and RUN_MARKER in instruction_of(first)
    assert sorted(declared(first)) == ["complete_task", "glob", "read_file"]
    assert first.model == "gemini-reader-model" and parent[0].model == "gemini-2.5-flash"
    assert first_user_text(first) == "What is in notes.txt?"
    assert "the answer is 42" in response_texts(agent[1])[0]
    # the session's model gets one response: Gemini CLI's words with the result
    assert response_texts(parent[1]) == [
        "Subagent 'reader' finished.\nTermination Reason: GOAL\nResult:\nnotes.txt says the answer is 42"]
    assert [c.role for c in session.conversation] == ["user", "model", "user", "model"]


LIMITS = [  # (front matter, the subagent's replies, termination reason, result starts with)
    ({"max_turns": 2}, [reply(call("glob", pattern="*")), reply(call("glob", pattern="*"))], "MAX_TURNS",
     "Agent reached max turns limit (2)."),
    ({}, [reply(text("I am done, I think."))], "ERROR_NO_COMPLETE_TASK_CALL",
     "Agent stopped calling tools but did not call 'complete_task'."),
    ({}, [reply(call("complete_task", result="  ")), reply(call("complete_task", result="ok"))], "GOAL", "ok"),
    ({}, [reply(call("no_such_tool")), reply(call("complete_task", result="after"))], "GOAL", "after"),
]


@pytest.mark.parametrize(("front", "replies", "reason", "result"), LIMITS)
async def test_each_way_a_run_ends(root: Path, home: Path, front: dict[str, object], replies: list[object],
                                   reason: str, result: str) -> None:
    agent_file(home / ".gemini" / "agents", "limited", "LIMITED-BODY", tools=["glob"], **front)
    router = Router()
    router.script("parent", reply(call("invoke_agent", agent_name="limited", prompt="go")), reply(text("ok")))
    router.script("LIMITED-BODY", *replies)  # type: ignore[arg-type]
    with FakeGeminiServer() as server:
        server.responder = router
        await session_on(server, root, home).send("go")
    [answer] = response_texts(router.requests_of("parent")[1])
    assert answer.startswith(f"Subagent 'limited' finished.\nTermination Reason: {reason}\nResult:\n{result}")


def policy(home: Path, body: str) -> None:
    (home / ".gemini" / "policies").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "policies" / "rules.toml").write_text(body)


SUBAGENT_RULES = [  # (the rule's subagent, who calls read_file, denied?)
    ("reader", "reader", True),
    ("reader", "other", False),
    ("reader", "parent", False),
    (None, "reader", True),
    (None, "parent", True),
]


@pytest.mark.parametrize(("rule_agent", "caller", "denied"), SUBAGENT_RULES)
async def test_policy_rules_with_a_subagent_match_only_its_calls(root: Path, home: Path, rule_agent: str | None,
                                                                 caller: str, denied: bool) -> None:
    (root / "a.txt").write_text("A\n")
    field = f'subagent = "{rule_agent}"\n' if rule_agent else ""
    policy(home, f'[[rule]]\ntoolName = "read_file"\n{field}decision = "deny"\npriority = 500\n')
    for name in ("reader", "other"):
        agent_file(home / ".gemini" / "agents", name, f"{name.upper()}-BODY", tools=["read_file"])
    read = call("read_file", absolute_path=str(root / "a.txt"))
    router = Router()
    if caller == "parent":
        router.script("parent", reply(read), reply(text("done")))
    else:
        router.script("parent", reply(call("invoke_agent", agent_name=caller, prompt="read a")), reply(text("ok")))
        router.script(f"{caller.upper()}-BODY", reply(read), reply(call("complete_task", result="r")))
    with FakeGeminiServer() as server:
        server.responder = router
        await session_on(server, root, home).send("go")
    answered = router.requests_of("parent" if caller == "parent" else f"{caller.upper()}-BODY")[1]
    [response] = response_texts(answered)
    assert ("denied" in response) is denied, response
    assert ("A" in response and "denied" not in response) is not denied


async def test_a_subagents_confirmation_names_it_and_counts_as_the_users_answer(root: Path, home: Path) -> None:
    agent_file(home / ".gemini" / "agents", "writer", "WRITER-BODY", tools=["write_file"])
    router = Router()
    router.script("parent", reply(call("invoke_agent", agent_name="writer", prompt="write x")), reply(text("ok")))
    router.script("WRITER-BODY", reply(call("write_file", file_path=str(root / "x.txt"), content="x\n")),
                  reply(call("complete_task", result="wrote x")))
    asked: list[ConfirmationRequested] = []
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home)

        async def answer() -> None:
            async for event in session.bus.subscribe():
                if isinstance(event, ConfirmationRequested):
                    asked.append(event)
                    event.future.set_result(Decision(ConfirmationOutcome.proceed_once))

        listener = asyncio.ensure_future(answer())
        await asyncio.sleep(0)
        await session.send("go")
        listener.cancel()
    [confirmation] = asked
    assert confirmation.call.agent == "writer" and confirmation.call.name == "write_file"
    assert confirmation.call.parent_call_id  # grouped under the invoke_agent call
    assert (root / "x.txt").read_text() == "x\n"


async def test_an_agent_never_gets_a_tool_the_session_lacks(root: Path, home: Path) -> None:
    agent_file(home / ".gemini" / "agents", "greedy", "GREEDY-BODY", tools=["*"])
    router = Router()
    router.script("parent", reply(call("invoke_agent", agent_name="greedy", prompt="anything")), reply(text("ok")))
    router.script("GREEDY-BODY", reply(call("run_shell_command", command="echo hi")),
                  reply(call("complete_task", result="r")))
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home, settings={"tools": {"exclude": ["run_shell_command"]}})
        await session.send("go")
    first, second = router.requests_of("GREEDY-BODY")
    session_tools = {t.name for t in session.tools} - NEVER
    assert "write_todos" in session_tools and "ask_user" not in declared(first)
    assert set(declared(first)) == session_tools | {"complete_task"}
    assert "run_shell_command" not in declared(first)
    assert "not found" in response_texts(second)[0]


PLAN_MODE = [("codebase_investigator", True), ("generalist", False)]


@pytest.mark.parametrize(("agent", "runs"), PLAN_MODE)
async def test_plan_mode_runs_only_read_only_agents(root: Path, home: Path, agent: str, runs: bool) -> None:
    router = Router()
    router.script("parent", reply(call("invoke_agent", agent_name=agent, prompt="look")), reply(text("ok")))
    with FakeGeminiServer() as server:
        server.responder = router
        session = session_on(server, root, home)
        session.approval_mode = ApprovalMode.plan
        await session.send("go")
    [answer] = response_texts(router.requests_of("parent")[1])
    assert answer.startswith(f"Subagent '{agent}' finished.") is runs, answer
    assert ("Plan mode is on" in answer) is not runs
    assert bool(router.requests_of("?")) is runs  # the agent's own request was made, or never


async def test_an_unknown_agent_is_an_error_naming_the_known_ones(root: Path, home: Path) -> None:
    router = Router()
    router.script("parent", reply(call("invoke_agent", agent_name="nobody", prompt="x")), reply(text("ok")))
    with FakeGeminiServer() as server:
        server.responder = router
        await session_on(server, root, home).send("go")
    [answer] = response_texts(router.requests_of("parent")[1])
    assert "Subagent 'nobody' not found" in answer and "codebase_investigator" in answer
