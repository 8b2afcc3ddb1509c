"""An Ollama-style model in the app (Pilot) against the scripted OpenAI-compatible server: a streamed answer after a
tool call, `/model` listing what the server offers, a model without tools said plainly and `--no-tools` chat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from gemini_tui.app.main import GeminiApp
from gemini_tui.app.widgets.answer import MarkdownText
from gemini_tui.cli.assemble import build_session
from tests.app.app_driver import main_screen, type_and_send, wait_for
from tests.fakes.openai_server import FakeOpenAIServer, chat, error, say, tool


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{fake.port}")  # /model lists with the process env
        fake.models = [{"id": "qwen3:4b", "object": "model"}, {"id": "gemma3:270m", "object": "model"}]
        yield fake


@pytest.fixture
def app(tmp_path: Path, root: Path, server: FakeOpenAIServer) -> GeminiApp:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {"OLLAMA_HOST": f"http://127.0.0.1:{server.port}", "PATH": "/usr/bin:/bin"}
    session = build_session(root, model="ollama/qwen3:4b", env=env, home=home, extensions=["none"])
    return GeminiApp(session, root)


def notices(pilot: Pilot[Any], level: str) -> list[str]:
    return [str(n.render()) for n in main_screen(pilot).chat.query(Static).filter(f".notice.-{level}")]


def texts(pilot: Pilot[Any]) -> list[str]:
    return [m.source for m in main_screen(pilot).chat.query(MarkdownText)]


async def test_streamed_answer_after_a_tool_call(app: GeminiApp, server: FakeOpenAIServer, root: Path) -> None:
    (root / "hello.py").write_text("print('hi')\n")
    server.script(chat(say("Looking around."), calls=[tool("list_directory", dir_path=str(root))], pieces=4),
                  chat(say("There is "), say("hello.py."), reasoning="the listing shows one file"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        assert screen.status.model_name == "ollama/qwen3:4b"
        await type_and_send(pilot, "what is here?")
        await wait_for(pilot, lambda: len(server.chat_requests) == 2 and not screen.busy, timeout=10)
        await wait_for(pilot, lambda: any("There is hello.py." in t for t in texts(pilot)))
    [answer] = server.chat_requests[1].tool_messages()
    assert "hello.py" in answer["content"]


async def test_model_lists_the_provider_and_no_tools_chat(app: GeminiApp, server: FakeOpenAIServer) -> None:
    server.script(error(400, "registry.ollama.ai/library/qwen3:4b does not support tools", ollama=True),
                  chat(say("Plain chat.")))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(pilot)
        await wait_for(pilot, lambda: screen.ready)
        await type_and_send(pilot, "/auth")
        await wait_for(pilot, lambda: any("OpenAI-compatible provider `ollama`" in t for t in texts(pilot)))
        await type_and_send(pilot, "/model")
        await wait_for(pilot, lambda: any("ollama/gemma3:270m" in t for t in texts(pilot)))
        listing = next(t for t in texts(pilot) if "ollama/gemma3:270m" in t)
        assert "`ollama/qwen3:4b`" in listing and f"127.0.0.1:{server.port}/v1" in listing
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy and server.chat_requests, timeout=10)
        await wait_for(pilot, lambda: any("--no-tools" in n for n in notices(pilot, "error")), timeout=5)
        assert any("does not support tools" in n and "`/model ollama/qwen3:4b --no-tools`" in n
                   for n in notices(pilot, "error"))  # in the app, the command the prompt takes
        await type_and_send(pilot, "/model ollama/qwen3:4b --no-tools")
        await wait_for(pilot, lambda: not getattr(screen.session.model, "tools_enabled", True))
        await type_and_send(pilot, "hello again")
        await wait_for(pilot, lambda: any("Plain chat." in t for t in texts(pilot)), timeout=10)
    assert "tools" in server.chat_requests[0].body and "tools" not in server.chat_requests[-1].body
