"""`gemini-tui --acp` on whatever stdin and stdout it is given: a pipe, a file, /dev/null. asyncio watches only pipes
and sockets; anything else is joined to one, so requests from a file are answered and /dev/null ends at once."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.acp.harness import agent_command, agent_env

REQUESTS = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
            {"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {}},
            {"jsonrpc": "2.0", "id": 3, "method": "no/such/method", "params": {}}]


def answers(text: str) -> dict[int, dict[str, object]]:
    messages = [json.loads(line) for line in text.splitlines() if line.strip()]
    return {m["id"]: m for m in messages if "id" in m}


@pytest.mark.parametrize("stdout", ["pipe", "file"])
@pytest.mark.parametrize("stdin", ["pipe", "file", "devnull", "empty file"])
def test_requests_are_answered_whatever_stdin_and_stdout_are(root: Path, home: Path, tmp_path: Path, stdin: str,
                                                             stdout: str) -> None:
    lines = "".join(json.dumps(r) + "\n" for r in REQUESTS) if stdin in ("pipe", "file") else ""
    given = tmp_path / "requests.jsonl"
    given.write_text(lines)
    out = tmp_path / "answers.jsonl"
    env = agent_env("http://127.0.0.1:9", home)
    with given.open("rb") as source, out.open("wb") as sink:
        done = subprocess.run(
            agent_command(), cwd=root, env=env, timeout=60, stderr=subprocess.PIPE,
            input=lines.encode() if stdin == "pipe" else None,
            stdin=None if stdin == "pipe" else subprocess.DEVNULL if stdin == "devnull" else source,
            stdout=sink if stdout == "file" else subprocess.PIPE)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in done.stderr
    written = out.read_text() if stdout == "file" else done.stdout.decode()
    got = answers(written)
    if not lines:
        assert got == {}
        return
    assert set(got) == {1, 2, 3}
    assert got[1]["result"]["protocolVersion"] == 1  # type: ignore[index]
    assert "result" in got[2]
    assert got[3]["error"]["code"] == -32601  # type: ignore[index]
