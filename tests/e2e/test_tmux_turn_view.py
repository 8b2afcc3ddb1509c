"""What a turn looks like while it runs and after, in a real terminal (tmux) against the fake Gemini server: a
long-line change seen in the review, the view following the user, PageUp from the prompt, Ctrl+B in 40 columns,
Ctrl+C in the review, a 26-call turn with the awaiting command in the queue, a queued prompt sent after the turn."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, send, start_app
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text

GRACE = 0.8  # past the review's and the confirmation's grace periods, in which keys are ignored
LONG = "\n\n".join(f"Paragraph {i}: " + "words " * 20 for i in range(60))


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def start(root: Path, tmp_path: Path, server: FakeGeminiServer, width: int = 120, height: int = 40) -> Terminal:
    return start_app(root, tmp_path, server, width, height, keep_shell=True)


def test_a_change_deep_in_a_long_line_is_visible_in_the_review(root: Path, tmp_path: Path,
                                                                server: FakeGeminiServer) -> None:
    target = root / "data.min.json"
    line = '{"items": [' + ", ".join(f'{{"id": {i}, "v": "x"}}' for i in range(400)) + "]}"
    target.write_text(line + "\n")
    needle = '{"id": 377, "v": "x"}'
    assert line.index(needle) > 6000
    server.script(reply(call("replace", file_path=str(target), old_string=needle,
                             new_string='{"id": 377, "v": "CHANGED-HERE"}')), reply(text("Done.")))
    with start(root, tmp_path, server, 100, 30) as terminal:
        send(terminal, "fix item 377")
        terminal.wait_for("Confirm Edit")
        time.sleep(GRACE)
        # wrapped (the default): ] walks the changes; the removed line, then the added one, each in view
        terminal.type("]")
        time.sleep(0.3)
        terminal.keys("w")  # not wrapped: the line is one row, and ]/[ scroll it sideways to the change
        time.sleep(0.3)
        terminal.type("[]")
        screen = terminal.wait_for("CHANGED-HERE")
        assert '{"id": 377, "v": "x"}' in screen  # the old text, right above it
        time.sleep(GRACE)
        terminal.keys("y")
        terminal.wait_for("Done.")
    assert "CHANGED-HERE" in target.read_text()


def test_scroll_back_then_send_returns_to_the_bottom_and_pageup_from_the_prompt(
        root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    server.script(reply(text(LONG + "\n\nEND-OF-FIRST")), reply(text("SECOND-ANSWER")))
    with start(root, tmp_path, server) as terminal:
        send(terminal, "write a lot")
        terminal.wait_for("END-OF-FIRST")
        for _ in range(6):
            terminal.keys("PageUp")  # from the prompt: the chat scrolls, the prompt keeps the focus
        screen = terminal.wait_for(lambda s: "END-OF-FIRST" not in s and "Paragraph" in s)
        assert "Ask anything" in screen
        terminal.type("next")  # typed into the prompt, which kept the focus
        terminal.wait_for("next")
        terminal.keys("Enter")
        terminal.wait_for("SECOND-ANSWER")  # the answer happens in view: the chat went back to the bottom


def test_ctrl_b_at_40_columns_does_not_crash(root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    with start(root, tmp_path, server, 40, 20) as terminal:
        time.sleep(1.0)  # the panel is mounted once the session is up
        terminal.keys("C-b")
        screen = terminal.wait_for("Tool history")  # the panel covers the chat while it is open
        time.sleep(0.5)
        screen = terminal.screen()
        assert "EXITED" not in screen and "Traceback" not in screen and "Error" not in screen
        terminal.keys("Escape")  # closes it (the filter has the focus)
        terminal.wait_for("Ask anything")
        terminal.keys("C-q")
        screen = terminal.wait_for("EXITED")
        assert "EXITED-0" in screen and "Traceback" not in screen


def test_ctrl_c_in_the_review_cancels_it_and_twice_quits_cleanly(root: Path, tmp_path: Path,
                                                                server: FakeGeminiServer) -> None:
    target = root / "notes.txt"
    target.write_text("one\n")
    server.script(reply(call("replace", file_path=str(target), old_string="one", new_string="two")))
    with start(root, tmp_path, server) as terminal:
        send(terminal, "edit it")
        terminal.wait_for("Confirm Edit")
        terminal.keys("C-c")
        terminal.wait_for(lambda s: "Confirm Edit" not in s and "cancelled" in s.lower())
        time.sleep(1.2)
        terminal.keys("C-c", "C-c")
        screen = terminal.wait_for("EXITED")
        assert "EXITED-0" in screen and "Traceback" not in screen and "aclose" not in screen
    assert target.read_text() == "one\n"


def test_a_26_call_turn_shows_the_awaiting_command_in_the_queue(root: Path, tmp_path: Path,
                                                              server: FakeGeminiServer) -> None:
    for i in range(25):
        (root / f"f{i}.txt").write_text(f"file {i}\n")
    calls = [call("read_file", absolute_path=str(root / f"f{i}.txt")) for i in range(25)]
    calls.append(call("run_shell_command", command="echo THE-COMMAND"))
    server.script(reply(*calls), reply(text("All done.")))
    with start(root, tmp_path, server, 120, 40) as terminal:
        send(terminal, "read them all then run")
        screen = terminal.wait_for("awaiting approval")
        queue = screen[screen.index("Tool calls:"):]
        assert "echo THE-COMMAND" in queue and "done" in queue
        time.sleep(GRACE)
        terminal.keys("y")
        terminal.wait_for("All done.")


def test_a_prompt_queued_during_a_turn_is_sent_after_it(root: Path, tmp_path: Path,
                                                       server: FakeGeminiServer) -> None:
    server.script(reply(text("Slow "), text("first answer."), delay_s=1.5), reply(text("QUEUED-ANSWER")))
    with start(root, tmp_path, server) as terminal:
        send(terminal, "first")
        terminal.wait_for("Slow")  # the turn runs: its second half comes 1.5 s later
        send(terminal, "the queued one")
        terminal.wait_for("sent when the turn ends")
        terminal.wait_for("QUEUED-ANSWER", timeout=20)
        assert "sent when the turn ends" not in terminal.screen()
    prompts = [str(r.contents[-1]) for r in server.requests if r.contents]
    assert any("the queued one" in p for p in prompts)


def test_nothing_is_printed_after_esc_cancelled_a_stream_and_the_app_quit(root: Path, tmp_path: Path,
                                                                          server: FakeGeminiServer) -> None:
    server.script(reply(text("Starting slowly "), text("and never finishing"), delay_s=3.0))
    with start(root, tmp_path, server) as terminal:
        send(terminal, "take your time")
        terminal.wait_for("Starting slowly")
        terminal.keys("Escape")
        time.sleep(0.3)  # apart, as typed: a terminal parser may read Esc and a key right after it as one key
        terminal.keys("C-c", "C-c")  # the turn is already cancelled: the first arms quitting, the second quits
        screen = terminal.wait_for("EXITED")
        after = screen[screen.index("EXITED"):]
        assert "EXITED-0" in screen and not subprocess.run(["true"]).returncode
        assert "Traceback" not in screen and "aclose" not in screen and after.strip().startswith("EXITED-0")


def test_a_streamed_table_is_drawn_the_same_while_streaming_and_after_and_keys_still_type(
        root: Path, tmp_path: Path, server: FakeGeminiServer) -> None:
    table = "| tool | calls |\n|---|---:|\n| read_file | 12 |\n| replace | 2 |\n"
    answer = ("Before the table.\n\n" + table + "\n" + "\n\n".join(f"Line {i} after the table." for i in range(12))
              + "\n\nTHE-END")
    pieces = [answer[i:i + 9] for i in range(0, len(answer), 9)]  # small chunks, as Gemini streams them
    server.script(reply(*[text(piece) for piece in pieces], delay_s=0.04))
    with start(root, tmp_path, server) as terminal:
        send(terminal, "a table please")
        during = terminal.wait_for("Line 2 after")  # the table is finished, the answer still streaming
        assert "THE-END" not in during
        terminal.type("typed meanwhile")
        typed = terminal.wait_for("typed meanwhile", timeout=3)  # the prompt takes keys during the stream
        assert "THE-END" not in typed
        after = terminal.wait_for("THE-END")

    def rows(screen: str) -> list[str]:
        return [line.strip() for line in screen.splitlines() if "read_file" in line or "tool" in line]

    assert rows(during) == rows(after) and len(rows(after)) == 2
    assert "|" not in "".join(rows(after))  # drawn as a table, not left as Markdown source
