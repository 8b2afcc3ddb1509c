"""`gemini-tui --acp` answers `initialize` without the modules a session needs (google-genai, MCP, tree-sitter, the
session and its tools): an editor starts its agent at once and may never prompt. Checked in the real agent
process, by what it had imported when each answer went out."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import acp
import pytest

from tests.cli.acp.harness import MODEL, RecordingClient, agent_env
from tests.fakes.gemini_server import FakeGeminiServer, reply, text

pytestmark = pytest.mark.timeout(90)

# The agent as `gemini-tui --acp` runs it, each of its answers followed by a note of what was imported by then
PROBE = r"""
import json, os, sys
import gemini_tui.cli.acp.agent as agent_module
from gemini_tui.cli.main import main

def noted(method, name):
    async def answer(self, *args, **kwargs):
        result = await method(self, *args, **kwargs)
        with open(os.environ["PROBE_OUT"], "a") as out:
            out.write(json.dumps({"after": name, "modules": sorted(sys.modules)}) + "\n")
        return result
    return answer

for name in ("initialize", "new_session", "prompt"):
    setattr(agent_module.GeminiAcpAgent, name, noted(getattr(agent_module.GeminiAcpAgent, name), name))
sys.exit(main(sys.argv[1:]))
"""

# What a session brings (its model client, MCP, the shell grammar, the session and its tools) and the app's side
HEAVY = ("google.genai", "mcp", "tree_sitter", "tree_sitter_bash", "openai", "textual",
         "gemini_tui.cli.assemble", "gemini_tui.core.session.session", "gemini_tui.core.models.gemini",
         "gemini_tui.core.mcp.servers", "gemini_tui.core.tooling.registry", "gemini_tui.core.shell.grammar",
         "gemini_tui.app")
# Of those, what a first prompt (no MCP server, no command) does import
FOR_A_PROMPT = ("google.genai", "gemini_tui.cli.assemble", "gemini_tui.core.session.session",
                "gemini_tui.core.models.gemini", "gemini_tui.core.tooling.registry")


def heavy_in(modules: list[str]) -> list[str]:
    return sorted({h for h in HEAVY for m in modules if m == h or m.startswith(h + ".")})


async def test_initialize_is_answered_before_any_heavy_import(root: Path, home: Path, tmp_path: Path,
                                                             gemini_server: FakeGeminiServer) -> None:
    notes = tmp_path / "imported.jsonl"
    gemini_server.script(reply(text("Hi.")))
    client = RecordingClient()
    async with acp.spawn_agent_process(client, sys.executable, "-c", PROBE, "--acp", "-m", MODEL, cwd=str(root),
                                       env={**agent_env(gemini_server.base_url, home), "PROBE_OUT": str(notes)}
                                       ) as (conn, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")])
    imported = {note["after"]: note["modules"] for note in map(json.loads, notes.read_text().splitlines())}
    assert heavy_in(imported["initialize"]) == []
    # the list is live: what a session needs was imported once one ran (a renamed module would fail here)
    assert heavy_in(imported["prompt"]) == sorted(FOR_A_PROMPT)


def test_the_heavy_list_names_real_modules() -> None:
    """A name that no longer exists would make the check above pass for nothing."""
    assert [name for name in HEAVY if importlib.util.find_spec(name) is None] == []


# The SDK as the agent imports it (cli/acp/schema_import.py), then a message of each direction written and read
SDK_PROBE = r"""
import json
from pydantic import BaseModel, ConfigDict
from gemini_tui.cli.acp.schema_import import import_sdk

import_sdk()
from acp import text_block, update_agent_message_text
from acp.schema import AgentCapabilities, InitializeResponse, PromptRequest

class Later(BaseModel):  # a model made afterwards still gets its docstrings
    model_config = ConfigDict(use_attribute_docstrings=True)
    x: int
    '''said'''

print(json.dumps({"described": AgentCapabilities.model_fields["load_session"].description,
                  "later": Later.model_fields["x"].description, "messages": messages()}))
"""

MESSAGES = r"""
def messages():
    answer = InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities(load_session=True))
    asked = PromptRequest.model_validate({"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]})
    return [m.model_dump(mode="json", by_alias=True, exclude_none=True)
            for m in (answer, asked, text_block("x"), update_agent_message_text("y"))]
"""


def test_the_sdk_is_imported_without_its_docstrings_and_speaks_the_same(tmp_path: Path) -> None:
    """The agent imports the SDK without the step that copies attribute docstrings into descriptions (a third of
    its start): descriptions are gone there, and only there, and every message is written and read the same."""
    probe = tmp_path / "probe.py"  # a file: pydantic reads a class's docstrings from its source
    probe.write_text(SDK_PROBE.replace("\nprint(json.dumps", MESSAGES + "\nprint(json.dumps"))
    result = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["described"] is None  # the step was skipped for the SDK
    assert seen["later"] == "said"  # and put back at once
    from acp import text_block, update_agent_message_text
    from acp.schema import AgentCapabilities, InitializeResponse, PromptRequest

    plain: dict[str, object] = {"InitializeResponse": InitializeResponse, "AgentCapabilities": AgentCapabilities,
                                "PromptRequest": PromptRequest, "text_block": text_block,
                                "update_agent_message_text": update_agent_message_text}
    exec(MESSAGES, plain)  # the same messages from the SDK imported as usual, in this process
    assert AgentCapabilities.model_fields["load_session"].description  # here the docstrings were read
    assert seen["messages"] == plain["messages"]()  # type: ignore[operator]
