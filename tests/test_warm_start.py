"""Warm starts (tests/fakes/warm_start.py) are plain starts to the test that makes them: the same module run both
ways gives the same exit status, output and view of its environment; signals reach the run; a relay killed takes
its run with it; an environment no warm process was started for runs plain. The app's warm starts (in a terminal)
see their terminal as a plain start does, and a headless run never finds the app imported."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.fakes import warm_start

REPO = Path(__file__).resolve().parents[1]
PROBE = "tests.fakes.warm_probe"


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "LANG": "C.UTF-8",
            "PYTHONPATH": str(REPO), **extra}


def both(tmp_path: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None,
         ) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    env = env or env_for(tmp_path, PROBE="seen")
    runs = []
    for program in (warm_start.command(env, PROBE), [sys.executable, "-m", PROBE]):
        runs.append(subprocess.run([*program, *args], cwd=tmp_path, env=env, input=stdin, capture_output=True,
                                   text=True, timeout=60))
    return runs[0], runs[1]


def cold_runs(kind: str = "") -> list[dict[str, object]]:
    """The runs of this worker that had to start plain, from `kind`'s folder (gemini-tui's, the app's, the
    fake servers')."""
    folder = warm_start.folder()
    log = Path(folder, kind, "cold.log") if folder else None
    return [json.loads(line) for line in log.read_text().splitlines()] if log and log.exists() else []


@pytest.fixture(autouse=True)
def _warm_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(warm_start.OFF, raising=False)


CASES: list[tuple[str, ...]] = [("report", "x y"), ("exit", "0"), ("exit", "1"), ("exit", "3"), ("exit", "41"),
                                ("exit", "130"), ("exit-text", "a message"), ("ending",),
                                *(("self-kill", str(int(s))) for s in (signal.SIGTERM, signal.SIGKILL, signal.SIGUSR1))]


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_a_warm_run_ends_as_a_plain_one(case: tuple[str, ...], tmp_path: Path) -> None:
    before = len(cold_runs())
    warm, plain = both(tmp_path, *case, stdin="typed\nlines")
    assert (warm.returncode, warm.stdout, warm.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert len(cold_runs()) == before  # it was warm


@pytest.mark.parametrize(("case", "code", "last"), [(("raise", "broken here"), 1, "ValueError: broken here"),
                                                   (("interrupt",), -signal.SIGINT, "KeyboardInterrupt")])
def test_an_uncaught_exception_is_a_traceback_and_the_same_end_both_ways(case: tuple[str, ...], code: int, last: str,
                                                                         tmp_path: Path) -> None:
    warm, plain = both(tmp_path, *case)
    assert warm.returncode == plain.returncode == code
    assert warm.stderr.splitlines()[-1] == plain.stderr.splitlines()[-1] == last


def test_the_run_sees_the_tests_folder_umask_environment_and_streams(tmp_path: Path) -> None:
    env = env_for(tmp_path, PROBE="given")
    old = os.umask(0o027)
    try:
        warm = subprocess.run([*warm_start.command(env, PROBE), "report", "ü"], cwd=tmp_path, env=env,
                              input="from stdin", capture_output=True, text=True, timeout=60)
    finally:
        os.umask(old)
    seen = json.loads(warm.stdout)
    assert seen == {"cwd": str(tmp_path), "umask": 0o027, "argv": ["report", "ü"], "stdin": "from stdin",
                    "probe": "given", "ttys": [False, False, False], "encoding": "utf-8", "name": "__main__"}
    assert warm.stderr == "to stderr\n"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP])
def test_a_signal_to_the_process_the_test_started_reaches_the_run(signum: int, tmp_path: Path) -> None:
    env = env_for(tmp_path)
    process = subprocess.Popen([*warm_start.command(env, PROBE), "wait"], cwd=tmp_path, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        run_pid = int(process.stdout.readline())
        assert run_pid != process.pid  # the run is the warm child, not the relay
        process.send_signal(signum)
        out, _ = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 100 + signum and out == f"got {signum}\n"


@pytest.mark.parametrize("ignored", [(), (signal.SIGINT, signal.SIGQUIT),
                                     (signal.SIGINT, signal.SIGTERM, signal.SIGHUP),
                                     (signal.SIGUSR1, signal.SIGPIPE, signal.SIGCHLD)],
                         ids=["none", "a-background-job", "nohup-like", "others"])
def test_a_run_starts_with_the_signals_a_plain_start_has(ignored: tuple[int, ...], tmp_path: Path) -> None:
    """Started with `ignored` ignored and every other signal at its default, whatever this test process has
    (a runner started as a shell's background job ignores SIGINT, and so did its warm processes): the warm run
    ignores what the plain start ignores, and Python's own handlers are set up alike."""
    from tests.fakes.warm_probe import SIGNALS

    def started() -> None:
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)

    env = env_for(tmp_path)
    runs = [subprocess.run([*program, "signals"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
                           preexec_fn=started)
            for program in (warm_start.command(env, PROBE), [sys.executable, "-m", PROBE])]
    warm, plain = (json.loads(run.stdout) for run in runs)
    assert warm == plain
    assert {name for name, how in plain.items() if how == "ignored"} == {
        signal.Signals(signum).name for signum in (*ignored, signal.SIGPIPE)}
    assert plain["SIGINT"] == ("ignored" if signal.SIGINT in ignored else "python")


def test_killing_the_relay_ends_its_run(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    process = subprocess.Popen([*warm_start.command(env, PROBE), "wait"], cwd=tmp_path, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    run_pid = int(process.stdout.readline())
    process.kill()
    process.wait(timeout=30)
    process.stdout.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _alive(run_pid):
        time.sleep(0.05)
    assert not _alive(run_pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_an_environment_no_warm_process_serves_runs_plain(tmp_path: Path) -> None:
    started = warm_start.command(env_for(tmp_path), PROBE)  # warm for LANG=C.UTF-8 only
    other = env_for(tmp_path, PROBE="other", LANG="en_US.UTF-8", PYTHONUTF8="1")
    before = len(cold_runs())
    done = subprocess.run([*started, "report"], cwd=tmp_path, env=other, input="", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["probe"] == "other"
    assert len(cold_runs()) == before + 1


def test_warm_starts_can_be_turned_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(warm_start.OFF, "1")
    assert warm_start.command(env_for(tmp_path)) == [sys.executable, "-m", "gemini_tui"]


def in_a_terminal(program: list[str], tmp_path: Path) -> tuple[list[str], int]:
    """`program` as a terminal emulator starts one: in a session of its own, a new pseudo-terminal its controlling
    one. Reads what it says first, resizes the terminal to 91x17, then hangs up; its lines and its exit status."""
    master, slave = pty.openpty()

    def own_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    started = subprocess.Popen([*program, "terminal"], cwd=tmp_path, env=env_for(tmp_path), stdin=slave,
                               stdout=slave, stderr=slave, preexec_fn=own_terminal)
    os.close(slave)
    said = b""

    def read_until(text: bytes) -> None:
        nonlocal said
        deadline = time.monotonic() + 30
        while text not in said and time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                said += os.read(master, 4096)
        assert text in said, said

    try:
        read_until(b"}")
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 17, 91, 0, 0))
        read_until(b"size 91x17")
    finally:
        os.close(master)  # the hang-up
    code = started.wait(timeout=30)
    return said.decode().replace("\r", "").splitlines(), code


def test_an_app_run_has_its_terminal_as_a_plain_start_has_it(tmp_path: Path) -> None:
    warm, warm_code = in_a_terminal(warm_start.command(env_for(tmp_path), PROBE, app=True), tmp_path)
    plain, plain_code = in_a_terminal([sys.executable, "-m", PROBE], tmp_path)
    seen = [json.loads(lines[0]) for lines in (warm, plain)]
    assert seen[0] == {**seen[1], "tty": seen[0]["tty"]}  # each its own pseudo-terminal
    assert seen[0]["leader"] and seen[0]["foreground"]
    assert warm[1:] == plain[1:] == ["size 91x17"]
    assert warm_code == plain_code == 100 + signal.SIGHUP


def test_only_the_apps_warm_process_has_the_app_imported(tmp_path: Path) -> None:
    found = {}
    for app in (False, True):
        done = subprocess.run([*warm_start.command(env_for(tmp_path), PROBE, app=app), "modules"], cwd=tmp_path,
                              env=env_for(tmp_path), capture_output=True, text=True, timeout=60)
        found[app] = json.loads(done.stdout)
    assert found == {False: {"textual": False, "app": False}, True: {"textual": True, "app": True}}
