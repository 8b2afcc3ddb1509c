"""`gemini-tui -p` as a subprocess against the fake Gemini server: formats, approval modes, exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import warm_start
from tests.fakes.gemini_server import FakeGeminiServer, call, error_reply, reply, text

REPO = Path(__file__).resolve().parents[2]
COMPAT = Path(__file__).parent / "compat"  # what Gemini CLI printed for one list_directory call


def run_cli(args: list[str], root: Path, home: Path, server: FakeGeminiServer | None = None,
            stdin: str | None = None, extra_env: dict[str, str] | None = None,
            python_flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"}
    if server is not None:
        env |= {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": server.base_url}
    env |= extra_env or {}
    program = [sys.executable, *python_flags, "-m", "gemini_tui"] if python_flags else warm_start.command(env)
    return subprocess.run([*program, *args], cwd=root, env=env,
                          input=stdin if stdin is not None else "", capture_output=True, text=True, timeout=60)


def list_script(server: FakeGeminiServer, root: Path) -> None:
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
    server.script(reply(text("Looking."), call("list_directory", dir_path=str(root)), usage=usage),
                  reply(text("Listed."), usage=usage))


def shape(value: Any) -> Any:
    """Keys and nesting without values; the names under `models` and `byName` are ours, so they are folded."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value[:1]]
    return type(value).__name__ if not isinstance(value, bool | int | float) or isinstance(value, bool) else "number"


def fold_names(document: dict[str, Any]) -> dict[str, Any]:
    stats = document["stats"]
    stats["models"] = {"MODEL": next(iter(stats["models"].values()))}
    stats["tools"]["byName"] = {"TOOL": next(iter(stats["tools"]["byName"].values()))}
    return document


def test_text_output_and_the_function_response(gemini_server, root: Path, home: Path) -> None:
    (root / "a.txt").write_text("a")
    (root / "sub").mkdir()
    list_script(gemini_server, root)
    out = run_cli(["-p", "list"], root, home, gemini_server)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Looking.\nListed.\n"
    [response] = gemini_server.function_responses(1)
    assert response["name"] == "list_directory"
    assert response["response"]["output"] == f"Directory listing for {root}:\n[DIR] sub\na.txt"
    assert gemini_server.requests[0].contents[0]["parts"] == [{"text": "list"}]


def test_json_output_matches_gemini_cli_shape(gemini_server, root: Path, home: Path) -> None:
    list_script(gemini_server, root)
    out = run_cli(["-p", "list", "--output-format", "json"], root, home, gemini_server)
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    expected = json.loads((COMPAT / "headless-output.json").read_text())
    assert shape(fold_names(document)) == shape(fold_names(expected))
    # Gemini CLI's `response` is the text of the last model turn (after the last tool call), not all of it
    assert document["response"] == expected["response"] == "Listed."
    assert document["stats"]["models"]["MODEL"]["tokens"]["total"] == 220
    assert document["stats"]["tools"]["totalCalls"] == 1
    # nobody was asked about the read: auto_accept (`accept` is the user's yes; see the README's /stats)
    assert document["stats"]["tools"]["byName"]["TOOL"]["decisions"]["auto_accept"] == 1
    assert sum(document["stats"]["tools"]["totalDecisions"].values()) == 1


def test_stream_json_matches_gemini_cli_shape(gemini_server, root: Path, home: Path) -> None:
    list_script(gemini_server, root)
    out = run_cli(["-p", "list", "-o", "stream-json"], root, home, gemini_server)
    assert out.returncode == 0, out.stderr
    ours = [json.loads(line) for line in out.stdout.splitlines()]
    theirs = [json.loads(line) for line in (COMPAT / "headless-output.jsonl").read_text().splitlines()]
    assert [e["type"] for e in ours] == [e["type"] for e in theirs]
    for mine, reference in zip(ours, theirs, strict=True):
        if mine["type"] == "result":
            mine["stats"]["models"] = {"M": next(iter(mine["stats"]["models"].values()))}
            reference["stats"]["models"] = {"M": next(iter(reference["stats"]["models"].values()))}
        # one addition to Gemini CLI's shape: tool_use says what the approval policy answered, and its rule
        approval = mine.pop("approval", None) if mine["type"] == "tool_use" else None
        assert shape(mine) == shape(reference), mine["type"]
        if mine["type"] == "tool_use":
            assert approval == {"decision": "allow", "rule": "read-only tool"}
    assert ours[3]["parameters"] == {"dir_path": str(root)}
    assert ours[3]["tool_id"] == ours[4]["tool_id"]
    assert ours[-1]["stats"]["tool_calls"] == 1


@pytest.mark.parametrize(("flags", "written", "ran"), [
    ([], False, False),
    (["--approval-mode", "default"], False, False),
    (["--approval-mode", "auto_edit"], True, False),
    (["--approval-mode", "yolo"], True, True),
    (["--yolo"], True, True),
])
def test_approval_modes(gemini_server, root: Path, home: Path, flags: list[str], written: bool, ran: bool) -> None:
    gemini_server.script(
        reply(call("write_file", file_path=str(root / "new.txt"), content="hello\n"),
              call("run_shell_command", command="echo ran > ran.txt")),
        reply(text("Done.")),
    )
    out = run_cli(["-p", "go", "-o", "json", *flags], root, home, gemini_server)
    assert out.returncode == 0, out.stderr
    assert (root / "new.txt").exists() is written
    assert (root / "ran.txt").exists() is ran
    write_response, shell_response = gemini_server.function_responses(1)
    if not written:
        assert "non-interactive mode" in write_response["response"]["error"]
    if not ran:
        assert "non-interactive mode" in shell_response["response"]["error"]
    # a call headless refuses was decided by nobody: no decision (as Gemini CLI counts a refused call); the
    # others ran unasked
    decisions = json.loads(out.stdout)["stats"]["tools"]["totalDecisions"]
    assert decisions == {"accept": 0, "reject": 0, "modify": 0, "auto_accept": written + ran}


def test_every_builtin_tool_runs(gemini_server, root: Path, home: Path) -> None:
    (root / "notes.md").write_text("alpha\nbeta\n")
    (root / "src").mkdir()
    (root / "src/app.py").write_text("def main():\n    return 1\n")
    calls = [
        call("list_directory", path=str(root)),
        call("read_file", path=str(root / "notes.md")),
        call("glob", pattern="**/*.py"),
        call("search_file_content", pattern="def \\w+", include="*.py"),
        call("read_many_files", paths=["src/app.py", "notes.md"]),
        call("google_web_search", query="gemini-tui"),
        call("web_fetch", prompt="Summarize http://127.0.0.1:9/page"),
        call("write_file", file_path=str(root / "out.txt"), content="written\n"),
        call("replace", file_path=str(root / "notes.md"), old_string="beta", new_string="gamma"),
        call("run_shell_command", command="echo shell-ok"),
        call("save_memory", fact="the tests use a fake server"),
    ]
    gemini_server.script(reply(*calls), reply(text("Searched.")), reply(text("All done.")))
    out = run_cli(["-p", "everything", "--yolo", "-o", "stream-json"], root, home, gemini_server)
    assert out.returncode == 0, out.stderr
    responses = {r["name"]: r["response"] for r in gemini_server.function_responses(2)}
    assert list(responses) == [c["functionCall"]["name"] for c in calls]
    for name, response in responses.items():
        text_of = json.dumps(response)
        assert "not found in registry" not in text_of and "Invalid parameters" not in text_of, name
    assert responses["list_directory"]["output"].startswith(f"Directory listing for {root}")
    assert responses["read_file"]["output"].rstrip("\n") == "alpha\nbeta"
    assert "src/app.py" in responses["glob"]["output"]
    assert "L1: def main():" in responses["search_file_content"]["output"]
    assert "alpha" in responses["read_many_files"]["output"]
    assert "Searched." in responses["google_web_search"]["output"]
    assert "error" in responses["web_fetch"]  # loopback is refused: no request leaves the machine
    assert (root / "out.txt").read_text() == "written\n"
    assert (root / "notes.md").read_text() == "alpha\ngamma\n"
    assert "shell-ok" in responses["run_shell_command"]["output"]
    assert "the tests use a fake server" in (home / ".gemini/GEMINI.md").read_text()
    results = [json.loads(line) for line in out.stdout.splitlines() if '"tool_result"' in line]
    assert len(results) == len(calls)


def test_prompt_from_stdin(gemini_server, root: Path, home: Path) -> None:
    gemini_server.script(reply(text("Got it.")))
    out = run_cli([], root, home, gemini_server, stdin="summarize this\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Got it.\n"
    assert gemini_server.requests[0].contents[0]["parts"] == [{"text": "summarize this"}]
    gemini_server.script(reply(text("Ok.")))
    run_cli(["-p", "write a commit message"], root, home, gemini_server, stdin="diff --git a b\n")
    assert gemini_server.requests[1].contents[0]["parts"] == [{"text": "diff --git a b\n\nwrite a commit message"}]


def test_api_error_exits_1_with_a_json_error(gemini_server, root: Path, home: Path) -> None:
    gemini_server.script(error_reply(403, "API key not valid"))
    out = run_cli(["-p", "hi", "-o", "json"], root, home, gemini_server)
    assert out.returncode == 1
    document = json.loads(out.stdout)
    assert "API key not valid" in document["error"]["message"] and document["error"]["type"] == "auth"
    assert len(gemini_server.requests) == 1  # a 403 is not retried


def test_bad_flags_and_bad_configuration(root: Path, home: Path) -> None:
    assert run_cli(["-p", "x", "--output-format", "yaml"], root, home).returncode == 2
    conflicting = run_cli(["-p", "x", "--yolo", "--approval-mode", "default"], root, home)
    assert conflicting.returncode == 2 and "--yolo contradicts" in conflicting.stderr
    bad_url = run_cli(["-p", "x"], root, home, extra_env={"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "ftp:x"})
    assert bad_url.returncode == 3 and "configuration error" in bad_url.stderr
    bad_model = run_cli(["-p", "x", "-m", "two words"], root, home, extra_env={"GEMINI_API_KEY": "k"})
    assert bad_model.returncode == 3


def test_settings_problems_are_notices_not_failures(gemini_server, root: Path, home: Path) -> None:
    (root / ".gemini").mkdir()
    (root / ".gemini/settings.json").write_text('{"tools": {"core": 5}, "theme": "x"}')
    gemini_server.script(reply(text("Fine.")))
    out = run_cli(["-p", "hi"], root, home, gemini_server)
    assert out.returncode == 0 and out.stdout == "Fine.\n"
    assert "tools.core must be a list of strings" in out.stderr and "theme" in out.stderr


def test_offline_model_only_by_name(root: Path, home: Path) -> None:
    (root / "hello.txt").write_text("hi there\n")
    for named in (["-m", "offline"], ["--model", "offline"]):
        out = run_cli(["-p", "read hello.txt", *named], root, home)
        assert out.returncode == 0, out.stderr
        assert "offline demo model" in out.stderr
        assert out.stdout == "Calling read_file.\nread_file returned:\n```\nhi there\n```\n"
    out = run_cli(["-p", "what can you do?", "-o", "json"], root, home, extra_env={"GEMINI_MODEL": "offline"})
    assert "offline demo model" in json.loads(out.stdout)["response"]
    assert json.loads(out.stdout)["stats"]["models"].keys() == {"offline"}


NO_KEY = [  # (environment, settings.json): none of them reaches a model, so a headless run must not start
    ({}, {}),
    ({"GEMINI_API_KEY": ""}, {}),
    ({"GOOGLE_GENAI_USE_VERTEXAI": "true"}, {}),
    ({}, {"security": {"auth": {"selectedType": "gemini-api-key"}}}),
    ({}, {"security": {"auth": {"selectedType": "oauth-personal"}}}),
    ({"GEMINI_MODEL": "gemini-2.5-flash"}, {"model": {"name": "gemini-2.5-pro"}}),
]
FORMATS = ("text", "json", "stream-json")


@pytest.mark.parametrize(("env", "settings", "output_format"),
                         [(*case, FORMATS[n % len(FORMATS)]) for n, case in enumerate(NO_KEY)])
def test_without_a_key_a_headless_run_fails_instead_of_going_offline(
        root: Path, home: Path, env: dict[str, str], settings: dict[str, Any], output_format: str) -> None:
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (root / "hello.txt").write_text("hi there\n")
    out = run_cli(["-p", "read hello.txt", "-o", output_format], root, home, extra_env=env)
    assert out.returncode == 41, (out.stdout, out.stderr)
    assert "-m offline" in out.stderr and "offline demo model" in out.stderr
    assert "hi there" not in out.stdout + out.stderr  # nothing ran
    if output_format == "json":
        assert json.loads(out.stdout)["error"]["type"] == "auth"
    elif output_format == "stream-json":
        [line] = out.stdout.splitlines()
        assert json.loads(line) | {"timestamp": ""} == {"type": "result", "timestamp": "", "status": "error",
                                                       "error": json.loads(line)["error"]}
    else:
        assert out.stdout == ""


def test_offline_model_answers_from_mentioned_files(root: Path, home: Path) -> None:
    """`-p -m offline` with `@path` mentions: the answer shows the attached files, for generated spellings."""
    from tests.core.models.test_offline_mentions import FILES, generated_cases, make_root

    make_root(root)
    for case in generated_cases(seed=3)[::5]:
        out = run_cli(["-p", case.prompt, "-m", "offline"], root, home)
        assert out.returncode == 0, out.stderr
        assert "Calling" not in out.stdout and "fixed phrases" not in out.stdout, case.prompt
        assert all(f"{name}: " in out.stdout and FILES[name].splitlines()[0] in out.stdout for name in case.attached)
        assert all(f"Nothing was attached for @{name}." in out.stdout for name in case.missing), case.prompt

def test_headless_imports_nothing_of_the_app(gemini_server, root: Path, home: Path) -> None:
    list_script(gemini_server, root)
    out = run_cli(["-p", "list"], root, home, gemini_server, python_flags=("-X", "importtime"))
    assert out.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time")}
    assert "google.genai" in imported  # the measurement works
    forbidden = sorted(m for m in imported if m.split(".")[0] in {"textual", "mcp", "app", "rich"})
    assert forbidden == []


def test_ctrl_c_cancels_the_request_and_exits_130(gemini_server, root: Path, home: Path) -> None:
    gemini_server.script(reply(text("slow "), text("answer"), delay_s=2.0))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url}
    process = subprocess.Popen([*warm_start.command(env), "-p", "hi", "-o", "json"], cwd=root, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert gemini_server.request_arrived.wait(30)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 130
    document = json.loads(out)
    assert document["error"]["type"] == "cancelled" and document["response"] == ""


def test_an_empty_prompt_is_a_usage_error(root: Path, home: Path) -> None:
    out = run_cli(["-p", "  "], root, home)
    assert out.returncode == 2 and "the prompt is empty" in out.stderr and out.stdout == ""


def test_a_reader_that_goes_away_ends_the_run_quietly(gemini_server, root: Path, home: Path) -> None:
    # `gemini-tui -p ... -o stream-json | head -1`: no traceback, and the edits after that are not made
    gemini_server.script(reply(text("Writing."), call("write_file", file_path=str(root / "late.txt"), content="x"),
                               delay_s=0.5), reply(text("Done.")))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "PYTHONPATH": str(REPO), "GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": gemini_server.base_url}
    process = subprocess.Popen([*warm_start.command(env), "-p", "hi", "-o", "stream-json", "--yolo"],
                               cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stdout.readline().startswith(b'{"type":"init"')
        process.stdout.close()  # the reader is gone
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert b"Traceback" not in err and b"BrokenPipeError" not in err
    assert process.returncode == 0  # as Gemini CLI: the reader took what it wanted
    assert not (root / "late.txt").exists()


def test_no_prompt_and_no_terminal_is_a_usage_error(root: Path, home: Path) -> None:
    # `gemini-tui < /dev/null` (cron, CI): without a terminal the full-screen app would wait forever
    out = run_cli([], root, home, stdin="")
    assert out.returncode == 2 and "no prompt" in out.stderr and out.stdout == ""


@pytest.mark.parametrize("output_format", ["text", "stream-json"])
def test_a_sequence_split_between_chunks_prints_none_of_it(gemini_server, root: Path, home: Path,
                                                           output_format: str) -> None:
    """Each piece is its own SSE chunk: the title sequence, a colour and a link each arrive in two deltas. Nothing
    of them is printed, the text around them is, and the model is sent back its own text unchanged."""
    first = ["Looking \x1b]0;P", "WNED-TITLE\x07at \x1b[3", "1mit"]
    second = ["Done \x1b]8;;http://evil/\x1b", "\\link\x1b]8;;\x1b\\."]
    gemini_server.script(reply(*map(text, first), call("list_directory", dir_path=str(root))),
                         reply(*map(text, second)))
    out = run_cli(["-p", "list", "--output-format", output_format, "--approval-mode", "yolo"], root, home,
                  gemini_server)
    assert out.returncode == 0, out.stderr
    if output_format == "text":
        printed = out.stdout
    else:
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        printed = "".join(line["content"] for line in lines
                          if line["type"] == "message" and line["role"] == "assistant")
    assert printed.replace("\n", "") == "Looking at itDone link."
    for fragment in ("WNED", "TITLE", "1m", "http", "evil", "\x1b", "␛", "␇"):
        assert fragment not in out.stdout
    model_turn = [c for c in gemini_server.requests[1].contents if c["role"] == "model"][-1]
    assert "".join(p.get("text", "") for p in model_turn["parts"]) == "".join(first)
