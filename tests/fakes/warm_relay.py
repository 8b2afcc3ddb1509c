"""Stands in for `python -m MODULE ARGS` (or `python SCRIPT.py ARGS`) started by a test: a warm process forked
from an already-imported one does the run with this process's stdin, stdout, stderr, environment and folder;
this one forwards signals to it and ends as it ends (same exit code, or killed by the same signal). Without a
warm process for this environment it becomes the plain command (exec). Stdlib only: it runs as `python -S -E`,
so its own start costs a few milliseconds, and it needs nothing from its environment (an MCP client starts its
servers with a few variables only): the warm folder is on its command line, the repository is its own.

argv: warm_relay.py SOCKET_DIR MODULE ARGS...  or  warm_relay.py SOCKET_DIR PATH/TO/SCRIPT.py ARGS..."""

from __future__ import annotations

import hashlib
import json
import os
import select
import signal
import socket
import struct
import sys

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
             signal.SIGWINCH, signal.SIGCONT)


STARTING = ("PYTHON", "LC_", "TEXTUAL_")  # (and LANG) what is read as an interpreter or Textual is imported


def start_key(env: dict[str, str], repo: str) -> str:
    """What decides how an interpreter starts (locale, PYTHON* settings) and what Textual reads as it is imported
    (TEXTUAL_*): a warm process serves only runs whose key is its own. The repository on PYTHONPATH is already
    on the warm process's path."""
    kept = {k: v for k, v in env.items()
            if (k.startswith(STARTING) or k == "LANG")
            and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    if kept.get("PYTHONPATH") == repo:
        del kept["PYTHONPATH"]
    return hashlib.sha256(json.dumps(sorted(kept.items())).encode()).hexdigest()[:16]


def read_message(sock: socket.socket, head: bytes = b"", wake: int | None = None) -> dict[str, object] | None:
    """A length-prefixed JSON message (`head`: its first bytes, when already read); None if the peer left.
    `wake`: the signal wake-up pipe, waited on beside the socket (see `_receive`)."""
    while len(head) < 4:
        chunk = _receive(sock, 4 - len(head), wake)
        if not chunk:
            return None
        head += chunk
    (size,) = struct.unpack("!I", head)
    body = b""
    while len(body) < size:
        chunk = _receive(sock, size - len(body), wake)
        if not chunk:
            return None
        body += chunk
    return json.loads(body)


def _receive(sock: socket.socket, size: int, wake: int | None) -> bytes:
    """A Python signal handler runs between bytecodes: a signal caught just before a blocking recv() starts would
    wait for the recv to end, and the run it should reach would never end it (a relay forwarding SIGTERM hung
    ~1 time in 200 on a loaded machine). The wake-up pipe holds a byte for every signal caught, so waiting on it
    beside the socket always returns, and the handler runs in this loop."""
    while wake is not None:
        readable, _, _ = select.select([sock, wake], [], [])
        if wake in readable:
            try:
                os.read(wake, 512)
            except BlockingIOError:
                pass
        if sock in readable:
            break
    return sock.recv(size)


def is_script(target: str) -> bool:
    """A target is a script's path (run as `python PATH`) when it names a `.py` file, else a module (`-m`)."""
    return target.endswith(".py")


def ignored_at_start() -> list[int]:
    """The signals this process was started with ignored (a shell's background job has SIGINT and SIGQUIT so):
    a plain start inherits them ignored, so the warm run is given the same."""
    return sorted(int(signum) for signum in signal.valid_signals()
                  if signum not in (signal.SIGKILL, signal.SIGSTOP) and signal.getsignal(signum) == signal.SIG_IGN)


def exec_plain(target: str, args: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, *([target] if is_script(target) else ["-m", target]), *args])


def main() -> None:
    folder, target, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(folder, start_key(dict(os.environ), repo) + ".sock")
    run: list[int] = []  # the warm run's pid, once known
    pending: list[int] = []  # signals that came before it was

    def forward(signum: int, _frame: object) -> None:
        if not run:
            pending.append(signum)
            return
        try:
            os.kill(run[0], signum)
        except ProcessLookupError:
            pass

    ignored = ignored_at_start()
    for signum in FORWARDED:  # before the run exists: it may answer a test that then signals at once
        signal.signal(signum, forward)
    wake, woken = os.pipe()  # (not inherited by an exec: Python's pipes close on exec)
    os.set_blocking(wake, False)
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(woken)
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)  # a closed standard stream: the plain start handles that as it should be handled
        mask = os.umask(0)
        os.umask(mask)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        kind = "script" if is_script(target) else "module"
        request = json.dumps({kind: target, "argv": args, "env": dict(os.environ), "cwd": os.getcwd(),
                              "umask": mask, "ignored": ignored}).encode()
        socket.send_fds(sock, [struct.pack("!I", len(request)) + request], [0, 1, 2])
        answer = read_message(sock, wake=wake)
    except OSError:
        answer = None
    if answer is None or "pid" not in answer:
        try:  # said in the worker's warm folder, so a test that should be warm can be seen starting cold
            with open(os.path.join(folder, "cold.log"), "a") as log:
                log.write(json.dumps({"path": path, "target": target, "argv": args, "cwd": os.getcwd()}) + "\n")
        except OSError:
            pass
        signal.set_wakeup_fd(-1)
        for signum in FORWARDED:  # as this process was started with them
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)
        for signum in pending:  # what a plain process would have had by now
            os.kill(os.getpid(), signum)
        exec_plain(target, args)
        return
    run.append(int(str(answer["pid"])))
    for signum in pending:
        forward(signum, None)
    status = read_message(sock, wake=wake)
    if status is None:  # the warm process went away: say so as a crash would
        os._exit(1)
    if "signal" in status:
        signum = int(str(status["signal"]))
        if signum not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(int(str(status.get("exit", 1))))


if __name__ == "__main__":
    main()
