"""`gemini-tui --acp` through the SDK's client side: the model's todo list (write_todos) is ACP's `plan` update,
sent as the list changes and again when a session is loaded; ask_user's questions are permission questions whose
options are the choices, and what the client picks is the answer the model gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.cli.acp.harness import RecordingClient, SharedAgent
from tests.fakes.gemini_server import call, reply, text

# one agent process for the module (conftest.py): each test a session of its own, in its own folder
pytestmark = [pytest.mark.timeout(90), pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.xdist_group("acp-plan-mode")]

# each of write_todos' states, and the plan entry a client gets for it (ACP knows three states)
STATES = {"pending": ("pending", ""), "in_progress": ("in_progress", ""), "completed": ("completed", ""),
          "cancelled": ("completed", " (cancelled)"), "blocked": ("pending", " (blocked)")}


def todos(*states: str) -> list[dict[str, str]]:
    return [{"description": f"task {n}", "status": state} for n, state in enumerate(states)]


def entries(*states: str) -> list[dict[str, str]]:
    return [{"content": f"task {n}{STATES[state][1]}", "priority": "medium", "status": STATES[state][0]}
            for n, state in enumerate(states)]


async def test_write_todos_is_the_clients_plan_and_comes_back_on_load(root: Path, agent: SharedAgent) -> None:
    first, second = ("in_progress", "pending", "blocked"), ("completed", "cancelled", "in_progress")
    agent.server.script(reply(call("write_todos", todos=todos(*first))),
                        reply(call("write_todos", todos=todos(*second))), reply(text("Done.")))
    conn, client = agent.serving()
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("work")])
    assert [u["entries"] for u in client.of("plan")] == [entries(*first), entries(*second)]
    # each plan follows its write_todos call's completion, as the list changes with it
    kinds = client.kinds()
    assert kinds.index("plan") > next(i for i, u in enumerate(client.updates) if u.get("status") == "completed")
    client.updates.clear()
    await conn.load_session(cwd=str(root), session_id=session.session_id, mcp_servers=[])
    assert [u["entries"] for u in client.of("plan")] == [entries(*second)]


def choice(header: str, *labels: str, kind: str = "choice") -> dict[str, Any]:
    return {"question": f"{header}?", "header": header, "type": kind,
            "options": [{"label": label, "description": f"about {label}"} for label in labels]}


DISMISSED = "User dismissed ask_user dialog without answering."  # Gemini CLI's words: it is an answer, not an error
# (questions, the option ids the client picks in turn, the options offered to each, what the model is told)
CASES = {
    "a choice": ([choice("Lang", "Python", "Rust", "Go")], ["option-1"],
                 [["option-0", "option-1", "option-2", "dismiss"]], {"answers": {"0": "Rust"}}),
    "yes or no": ([choice("Sure", kind="yesno")], ["option-0"], [["option-0", "option-1", "dismiss"]],
                  {"answers": {"0": "Yes"}}),
    "two in turn": ([choice("Lang", "Python", "Rust"), choice("Db", "SQLite", "Postgres")], ["option-0", "option-1"],
                    [["option-0", "option-1", "dismiss"]] * 2, {"answers": {"0": "Python", "1": "Postgres"}}),
    "free text is skipped": ([choice("Name", kind="text"), choice("Sure", kind="yesno")], ["skip", "option-1"],
                             [["skip", "dismiss"], ["option-0", "option-1", "dismiss"]], {"answers": {"1": "No"}}),
    "dismissed": ([choice("Lang", "Python", "Rust"), choice("Db", "SQLite", "Postgres")], ["dismiss"],
                  [["option-0", "option-1", "dismiss"]], DISMISSED),
    "the client's own cancel": ([choice("Lang", "Python", "Rust")], ["cancelled"],
                                [["option-0", "option-1", "dismiss"]], DISMISSED),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_ask_user_is_asked_as_permission_questions(root: Path, agent: SharedAgent,
                                                         case: str) -> None:
    questions, picks, offered, told = CASES[case]
    agent.server.script(reply(call("ask_user", questions=questions)), reply(text("Thanks.")))
    answers = iter(picks)
    client = RecordingClient(choose=lambda _call, _options: next(answers))
    conn, client = agent.serving(client)
    session = await conn.new_session(cwd=str(root), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("ask me")])
    assert [q["options"] for q in client.questions] == offered
    first = client.questions[0]["tool_call"]
    assert first["title"] == questions[0]["header"] and questions[0]["question"] in json.dumps(first["content"])
    [response] = agent.server.requests[1].function_responses()
    if isinstance(told, dict):
        assert json.loads(response["response"]["output"]) == told
    else:  # as Esc in the app: the call runs and says it was dismissed, as in Gemini CLI
        assert response["response"] == {"output": told}
