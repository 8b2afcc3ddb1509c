"""Fake MCP servers started warm (`warm_start.server_command`) are plain starts to their clients: the same answers
over stdio, byte for byte, and the same end when their stdin closes or a signal comes; the same view of their
path, arguments and modules; killing the relay (the process an MCP client stops) takes the server with it, and
no server outlives the client that started it. A server started in an environment no warm process serves runs
plain and is listed as such."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes import warm_start
from tests.test_warm_start import CASES, cold_runs

FAKES = Path(__file__).resolve().parent / "fakes"
PROBE = FAKES / "warm_probe.py"
TIMESTAMP = re.compile(r"\[\d\d/\d\d/\d\d|\d\d:\d\d:\d\d\]")  # the SDK's log lines start with the time


@pytest.fixture(autouse=True)
def _warm_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(warm_start.OFF, raising=False)


def request(number: int, method: str, **params: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": number, "method": method, **({"params": params} if params else {})}


INITIALIZE = request(1, "initialize", protocolVersion="2025-06-18", capabilities={},
                     clientInfo={"name": "test", "version": "1"})
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

# (server and its arguments, a tool call it answers)
SERVERS: list[tuple[tuple[str, ...], dict[str, object]]] = [
    (("mcp_server.py", "stdio"), {"name": "echo", "arguments": {"text": "hi"}}),
    (("mcp_server.py",), {"name": "picture", "arguments": {}}),
    (("mcp_everything.py",), {"name": "slow", "arguments": {"steps": 2}}),
    (("mcp_eras.py", "handshake"), {"name": "era", "arguments": {}}),
]


def session(program: list[str], call: dict[str, object]) -> tuple[tuple[int, list[str], list[str]], int]:
    """A client's session by hand: the handshake, the tool list, one call, each answer awaited; then stdin closes
    and the server ends. Its exit status, what it wrote to stdout, its stderr's words (without the times); and
    how many warm runs served it."""
    before = server_runs()
    server = subprocess.Popen(program, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=warm_start.server_env(), text=True)
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    said = []
    try:
        for message in (INITIALIZE, INITIALIZED, request(2, "tools/list"), request(3, "tools/call", **call)):
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            while "id" in message and not (said and json.loads(said[-1]).get("id") == message["id"]):
                said.append(server.stdout.readline())
                assert said[-1], "the server ended early"
        forked = len(server_runs() - before)
        server.stdin.close()
        said += server.stdout.readlines()
        code = server.wait(timeout=30)
        words = [word for word in server.stderr.read().split() if not TIMESTAMP.fullmatch(word)]
    finally:
        server.kill()
        server.wait()
        server.stdout.close()
        server.stderr.close()
    return (code, said, words), forked


@pytest.mark.parametrize(("server", "call"), SERVERS, ids=[" ".join(s) for s, _ in SERVERS])
def test_a_warm_server_answers_and_ends_as_a_plain_one(server: tuple[str, ...], call: dict[str, object]) -> None:
    script, *args = server
    before = len(cold_runs(warm_start.SERVERS))
    warm, forked = session([*warm_start.server_command(FAKES / script), *args], call)
    plain, _ = session([sys.executable, str(FAKES / script), *args], call)
    assert warm == plain
    assert '"id":3' in warm[1][-1] and warm[0] == 0
    assert forked == 1 and len(cold_runs(warm_start.SERVERS)) == before  # it was warm


@pytest.mark.parametrize("case", [("path",), *CASES], ids=["-".join(c) for c in [("path",), *CASES]])
def test_a_warm_script_sees_and_ends_as_a_plain_one(case: tuple[str, ...], tmp_path: Path) -> None:
    env = {**warm_start.server_env(), "PROBE": "seen"}
    runs = [subprocess.run([*program, *case], cwd=tmp_path, env=env, input="typed", capture_output=True, text=True,
                           timeout=60)
            for program in (warm_start.server_command(PROBE, env), [sys.executable, str(PROBE)])]
    assert [(r.returncode, r.stdout, r.stderr) for r in runs[:1]] == [(r.returncode, r.stdout, r.stderr)
                                                                       for r in runs[1:]]
    if case == ("path",):
        seen = json.loads(runs[0].stdout)
        assert seen["path"][0] == str(FAKES) and seen["tests"] == [] and seen["main"]


def server_runs() -> set[int]:
    """The runs the fake servers' warm processes of this worker have forked and not yet reaped."""
    parents = {pid for kind, pid in warm_start.warm_processes() if kind == warm_start.SERVERS}
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) in parents and fields[0] not in ("Z", "X"):
                found.add(int(entry))
    return found


def wait_until(check: object, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(check) and check():
            return True
        time.sleep(0.05)
    return False


def signalled_end(warm: bool, signum: int) -> tuple[int, list[str]]:
    """How a served server ends when `signum` reaches it and its stdin closes just after: exit status, last line."""
    program = warm_start.server_command(FAKES / "mcp_server.py") if warm else [sys.executable,
                                                                              str(FAKES / "mcp_server.py")]
    before = server_runs()
    # SIGINT at its default, as an MCP client started from a terminal has it: a runner started as a background
    # job (`make test &`) ignores it, and so would both servers
    server = subprocess.Popen(program, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=warm_start.server_env(),
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    server.stdin.flush()
    assert b'"id":1' in server.stdout.readline()  # serving
    started = server_runs() - before
    server.send_signal(signum)
    if signum == signal.SIGINT:
        time.sleep(0.5)  # the interrupt is taken when the server's loop next runs: before the end of its input
    server.stdin.close()
    end = (server.wait(timeout=30), server.stderr.read().decode().splitlines()[-1:])
    assert wait_until(lambda: not started & server_runs())  # no run left behind
    server.stdout.close()
    server.stderr.close()
    assert len(started) == warm  # the warm one was a warm run
    return end


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_signal_to_the_relay_ends_the_server_as_it_ends_a_plain_one(signum: int) -> None:
    """SIGTERM is what an MCP client sends its server's process group at shutdown, SIGKILL what follows; SIGINT
    ends it once taken, at the server's next read (its reading thread holds stdin), the same way."""
    ends = []
    for warm in (True, False):
        end = signalled_end(warm, signum)
        for _ in range(3):
            # a server that saw the end of its input before it next ran (a loaded machine) left as at any end of
            # input, exit 0, before the interrupt was raised: that run says nothing of the relay, so it is made
            # again (a relay that lost the signal ends 0 every time)
            if not (signum == signal.SIGINT and end[0] == 0):
                break
            end = signalled_end(warm, signum)
        ends.append(end)
    assert ends[0] == ends[1] and ends[0][0] == -signum


async def test_no_server_outlives_the_client_that_started_it(tmp_path: Path) -> None:
    """gemini-tui's own client, as the suite uses it: its servers' runs end when it closes."""
    from gemini_tui.core.ground.events import McpServerState
    from gemini_tui.core.mcp import McpManager
    from gemini_tui.core.tooling.registry import ToolRegistry

    servers = {"one": warm_start.server_entry(FAKES / "mcp_server.py"),
               "two": warm_start.server_entry(FAKES / "mcp_eras.py", "handshake")}
    before, cold = server_runs(), len(cold_runs(warm_start.SERVERS))
    manager = McpManager(servers, ToolRegistry(), None, root=tmp_path, log_dir=tmp_path / "logs")
    try:
        assert await manager.wait_ready(60)
        assert all(manager.status(name).state is McpServerState.connected for name in servers)
        assert len(server_runs() - before) == 2
    finally:
        await manager.close()
    assert wait_until(lambda: server_runs() <= before)
    assert len(cold_runs(warm_start.SERVERS)) == cold


def test_a_server_in_an_environment_no_warm_process_serves_runs_plain(tmp_path: Path) -> None:
    program = warm_start.server_command(PROBE)  # warm for this worker's locale only
    other = {**warm_start.server_env(), "PYTHONHASHSEED": "7", "PROBE": "other"}
    before = len(cold_runs(warm_start.SERVERS))
    done = subprocess.run([*program, "report"], cwd=tmp_path, env=other, input="", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["probe"] == "other"
    assert [run["target"] for run in cold_runs(warm_start.SERVERS)[before:]] == [str(PROBE)]


def test_warm_servers_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(warm_start.OFF, "1")
    assert warm_start.server_command(FAKES / "mcp_server.py") == [sys.executable, str(FAKES / "mcp_server.py")]
