"""The headless printer in process: retries on stderr, discarded partial text left out of the JSON response."""

from __future__ import annotations

import io
import json

from gemini_tui.cli.headless import EXIT_FAILED, EXIT_OK, HeadlessPrinter, OutputFormat
from tests.fakes.gemini_server import call, error_reply, reply, text


async def test_text_mode_streams_and_reports_retries(gemini_server, make_session) -> None:
    gemini_server.script(error_reply(503, "busy", retry_delay="0.05s"), reply(text("Hello "), text("world.")))
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter(OutputFormat.text, out, err).run(make_session(), "hi")
    assert code == EXIT_OK
    assert out.getvalue() == "Hello world.\n"
    assert "Retrying in 0.1s (attempt 2): 503 UNAVAILABLE." in err.getvalue()


async def test_json_response_leaves_out_text_of_a_broken_stream(gemini_server, make_session, root) -> None:
    (root / "a").write_text("A")
    gemini_server.script(reply(text("Reading."), call("read_note", name="a")),
                         reply(text("Half an "), text("answer"), cut_after=1), reply(text("It says A.")))
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter(OutputFormat.json, out, err).run(make_session(), "read a")
    assert code == EXIT_OK
    document = json.loads(out.getvalue())
    assert document["response"] == "It says A."  # the last model turn, as Gemini CLI prints it
    assert document["stats"]["tools"]["byName"]["read_note"]["success"] == 1
    api = document["stats"]["models"]["gemini-2.5-pro"]["api"]
    assert api["totalRequests"] == 3 and api["totalErrors"] == 1  # the broken stream counts, as an error
    assert api["errorsByType"] == {"connection": 1}
    assert "error" not in document


async def test_stream_json_reports_a_failed_run(gemini_server, make_session) -> None:
    gemini_server.script(error_reply(404, "models/nope is not found"))
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter(OutputFormat.stream_json, out, err).run(make_session(), "hi")
    assert code == EXIT_FAILED
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["type"] for e in events] == ["init", "message", "error", "result"]
    assert "check the model name" in events[2]["message"]
    assert events[-1]["status"] == "error" and events[-1]["error"]["type"] == "not_found"


async def test_text_after_a_void_partial_answer_starts_on_its_own_line(gemini_server, make_session) -> None:
    gemini_server.script(reply(text("Half an "), text("answer"), cut_after=1), reply(text("Whole.")))
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter(OutputFormat.text, out, err).run(make_session(), "hi")
    assert code == EXIT_OK
    assert out.getvalue() == "Half an \nWhole.\n"
    assert "The partial answer above is void." in err.getvalue()


async def test_stream_json_says_when_streamed_deltas_are_void(gemini_server, make_session) -> None:
    # a consumer joins the deltas: it must learn that those before the retry are not part of the answer
    gemini_server.script(reply(text("Half an "), text("answer"), cut_after=1), reply(text("Whole.")))
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter(OutputFormat.stream_json, out, err).run(make_session(), "hi")
    assert code == EXIT_OK
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["type"] for e in events] == ["init", "message", "message", "error", "message", "result"]
    assert events[3]["severity"] == "warning" and "void" in events[3]["message"]
    assert events[-1]["status"] == "success"


async def test_text_mode_says_on_stderr_which_tool_call_failed(gemini_server, make_session) -> None:
    # as Gemini CLI: the answer stays on stdout, and the user learns why a call did nothing
    gemini_server.script(reply(text("Reading."), call("read_note", name="missing")), reply(text("No such note.")))
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter(OutputFormat.text, out, err).run(make_session(), "read it")
    assert code == EXIT_OK
    assert out.getvalue() == "Reading.\nNo such note.\n"
    assert "Error executing tool read_note: " in err.getvalue()


async def test_terminal_escape_sequences_in_model_text_are_not_printed(gemini_server, make_session) -> None:
    # a model (or a page it quotes) must not drive the user's terminal: colours, titles, cursor moves go
    gemini_server.script(reply(text("Hi \x1b[31mred\x1b[0m and \x1b]0;owned\x07title. Split \x1b[3"),
                               text("1mhere\x9b2J.")))
    out, err = io.StringIO(), io.StringIO()
    code = await HeadlessPrinter(OutputFormat.text, out, err).run(make_session(), "hi")
    assert code == EXIT_OK
    printed = out.getvalue()
    assert "\x1b" not in printed and "\x9b" not in printed and "\x07" not in printed
    assert printed.startswith("Hi red and title. Split ")
