"""A module run the way gemini-tui's tests run it (`python -m`), or a script the way a fake MCP server is run
(`python warm_probe.py`), warm or plain, to compare the two: it reports what it was started with or ends in one
of the ways a process ends. argv: CASE [ARG]."""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import sys
import threading
import time


def report() -> None:
    mask = os.umask(0)
    os.umask(mask)
    print(json.dumps({"cwd": os.getcwd(), "umask": mask, "argv": sys.argv[1:], "stdin": sys.stdin.read(),
                      "probe": os.environ.get("PROBE"), "ttys": [os.isatty(fd) for fd in (0, 1, 2)],
                      "encoding": sys.stdout.encoding, "name": __name__}))
    print("to stderr", file=sys.stderr)


def wait_for_signal() -> None:
    def got(signum: int, _frame: object) -> None:
        os.write(1, f"got {signum}\n".encode())  # not print: the signal may land inside the print below
        os._exit(100 + signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP):
        signal.signal(signum, got)
    # waited on through the wake-up pipe, not a sleep: a handler runs between bytecodes, so a signal caught just
    # before a sleep started would wait for the sleep's end (warm or plain: ~1 run in 100 on a loaded machine);
    # the pipe holds a byte for it, so the wait ends at once and the handler runs
    wake = _wake_pipe()
    print(os.getpid(), flush=True)
    select.select([wake], [], [], 60)


def _wake_pipe() -> int:
    """The read end of a pipe Python writes a byte to for each signal caught."""
    wake, woken = os.pipe()
    os.set_blocking(wake, False)
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(woken)
    return wake


def terminal() -> None:
    """What a full-screen app needs of its terminal: its own, in the foreground; then each resize, until the
    terminal hangs up."""
    def resized(_signum: int, _frame: object) -> None:
        size = os.get_terminal_size(0)
        os.write(1, f"size {size.columns}x{size.lines}\n".encode())

    signal.signal(signal.SIGWINCH, resized)
    signal.signal(signal.SIGHUP, lambda *_: os._exit(100 + signal.SIGHUP))
    print(json.dumps({"leader": os.getsid(0) == os.getpid(), "foreground": os.tcgetpgrp(0) == os.getpgrp(),
                      "tty": os.ttyname(0)}), flush=True)
    wake = _wake_pipe()  # each resize's handler runs as it comes (see wait_for_signal)
    deadline = time.monotonic() + 60
    while (left := deadline - time.monotonic()) > 0:
        if select.select([wake], [], [], left)[0]:
            os.read(wake, 512)


SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
           signal.SIGPIPE, signal.SIGCHLD, signal.SIGALRM, signal.SIGTSTP, signal.SIGTTOU, signal.SIGWINCH)


def disposition(signum: int) -> str:
    handler = signal.getsignal(signum)
    if handler == signal.SIG_IGN:
        return "ignored"
    if handler == signal.SIG_DFL:
        return "default"
    return "python" if handler is signal.default_int_handler else repr(handler)


def main() -> None:
    case, arg = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    if case == "report":
        report()
    elif case == "exit":
        sys.exit(int(arg))
    elif case == "exit-text":
        sys.exit(arg)
    elif case == "raise":
        raise ValueError(arg)
    elif case == "interrupt":
        raise KeyboardInterrupt
    elif case == "self-kill":
        sys.stdout.write("half")  # buffered, lost with the process
        os.kill(os.getpid(), int(arg))
    elif case == "wait":
        wait_for_signal()
    elif case == "terminal":
        terminal()
    elif case == "signals":  # how each signal was set up for it: ignored, the system's default, Python's
        print(json.dumps({signal.Signals(signum).name: disposition(signum) for signum in sorted(SIGNALS)}))
    elif case == "modules":  # what the run finds imported before it imports anything
        print(json.dumps({"textual": "textual" in sys.modules, "app": "gemini_tui.app.main" in sys.modules}))
    elif case == "path":  # what a script finds: where imports come from, its own name, what is imported
        tests = sorted(name for name in sys.modules if name.startswith("tests"))
        print(json.dumps({"path": sys.path, "argv0": sys.argv[0], "file": __file__, "tests": tests,
                          "main": sys.modules["__main__"] is sys.modules.get(__name__)}))
    elif case == "ending":  # an interpreter's end: non-daemon threads finish, then atexit, then the flush
        atexit.register(lambda: print("atexit"))
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread"))).start()
        sys.stdout.write("unflushed ")


if __name__ == "__main__":
    main()
