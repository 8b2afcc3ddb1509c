"""End to end in a real terminal (tmux) against the fake Gemini server: an edit that cannot be written is not
reviewed (a read-only file is refused before asking), and an approved edit that can no longer be applied says
why, on screen and to the model."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gemini_tui.app.typing_guard import GRACE_PERIOD
from tests.e2e.terminal import send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = GRACE_PERIOD + 0.3


@pytest.fixture
def server(gemini_server: FakeGeminiServer) -> FakeGeminiServer:
    return gemini_server  # the shared fake server (tests/conftest.py), under this file's shorter name


def test_a_read_only_file_is_refused_before_any_review(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    target = root / "locked.cfg"
    target.write_text("port = 80\n")
    target.chmod(0o444)
    server.script(
        reply(call("replace", file_path=str(target), old_string="port = 80", new_string="port = 8080")),
        reply(text("It is read-only; I left it.")),
        reply(call("write_file", file_path=str(target), content="port = 9090\n")),
        reply(text("Still read-only.")),
    )
    with start_app(root, tmp_path, server) as terminal:
        send(terminal, "change the port")
        screen = terminal.wait_for("It is read-only; I left it.")
        assert "Confirm Edit" not in screen and "read-only" in screen.split("change the port", 1)[1]
        send(terminal, "write it whole")
        screen = terminal.wait_for("Still read-only.")
        assert "Confirm Write" not in screen
    for index in (1, 3):  # the model was told why, each time
        response = str(server.requests[index].function_responses())
        assert "read-only" in response and "not asked" in response, response
    assert target.read_text() == "port = 80\n"


def test_an_edit_whose_text_vanished_during_review_says_so(root: Path, tmp_path: Path,
                                                          server: FakeGeminiServer) -> None:
    target = root / "config.ini"
    target.write_text("[main]\nname = old\n")
    server.script(reply(call("replace", file_path=str(target), old_string="name = old", new_string="name = new")))
    # the edit's own re-read asks the model tier for a correction (answered "OK.": none); the rejection is answered
    server.responder = lambda request: reply(text("I will read it again.")) if request.function_responses() else None
    with start_app(root, tmp_path, server) as terminal:
        send(terminal, "rename it")
        terminal.wait_for("Confirm Edit")
        target.write_text("[main]\ntitle = other\n")  # someone else rewrites it: the edit's text is gone
        screen = terminal.wait_for("the edit no longer applies", timeout=10)
        assert "config.ini changed on disk and the edit no longer applies" in " ".join(screen.split())
        assert "unreadable" not in screen and "can no longer be read" not in screen
        time.sleep(GRACE)
        terminal.keys("n")
        terminal.wait_for("I will read it again.")
    told = str([request.function_responses() for request in server.requests if request.function_responses()])
    assert "changed on disk and the edit no longer applies" in told and "unreadable" not in told, told
    assert target.read_text() == "[main]\ntitle = other\n"
