"""A wiring test against a real local model: llama-cpp-python's OpenAI-compatible server running the Gemma 3 270M
GGUF from PyPI. One streamed prompt through the whole headless path, and one forced tool call (a 270M base model
does not choose tools; `tool_choice` makes it call one) answered back as a `role: tool` message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.model_api import CallChunk, Content, FunctionResponse, ModelRequest, TextChunk
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.models.openai_compat import OpenAICompatibleModel
from gemini_tui.core.models.providers import Provider
from gemini_tui.tools.list_directory import ListDirectoryTool
from gemini_tui.tools.workspace import Workspace
from tests.local_model.llama_server import ALIAS, REPO
from tests.local_model.llama_server import llama_server as start_llama_server

pytestmark = pytest.mark.xdist_group("local-model")  # one worker, one llama.cpp server for the module


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    with start_llama_server() as base_url:
        yield base_url


def test_streamed_prompt_through_the_headless_cli(llama_server: str, tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "root"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"model": {"providers": {"llama": {
        "baseUrl": llama_server, "contextWindow": 16384, "extraBody": {"max_tokens": 24, "temperature": 0}}}}}))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"}
    out = subprocess.run([sys.executable, "-m", "gemini_tui", "-p", "Say hello.", "-m", f"llama/{ALIAS}",
                          "--output-format", "stream-json"], cwd=root, env=env, input="", capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    deltas = [line for line in lines if line.get("type") == "message" and line.get("role") == "assistant"]
    assert len(deltas) >= 2, lines  # streamed in pieces, not one block
    assert "".join(d.get("content", "") for d in deltas).strip()
    assert lines[-1].get("type") == "result" and lines[-1].get("status") == "success", lines[-1]


async def test_forced_tool_call_and_its_answer(llama_server: str, tmp_path: Path) -> None:
    tool = ListDirectoryTool(Workspace(tmp_path))
    forced = {"tool_choice": {"type": "function", "function": {"name": tool.name}}, "max_tokens": 64,
              "temperature": 0}
    model = OpenAICompatibleModel(Provider("llama", llama_server, extra_body=forced), ALIAS)
    asked = Content("user", [TextPart("List the files in the current directory.")])
    request = ModelRequest((asked,), "You are a coding agent.", (tool.function_declaration(),))
    chunks = [c async for c in model.stream(request, AbortSignal())]
    [call] = [c.call for c in chunks if isinstance(c, CallChunk)]
    assert call.name == tool.name and call.problem is None and isinstance(call.args, dict), call
    assert call.id  # the server's, or ours: the answer goes back under it
    answer = Content("user", [FunctionResponse(call.id, call.name, {"output": "README.md\nsrc/"})])
    model.provider.extra_body.pop("tool_choice")
    follow_up = ModelRequest((asked, Content("model", [call]), answer), "You are a coding agent.",
                             (tool.function_declaration(),))
    text = [c.text async for c in model.stream(follow_up, AbortSignal()) if isinstance(c, TextChunk)]
    assert "".join(text).strip()
