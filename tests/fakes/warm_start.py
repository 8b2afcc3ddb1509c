"""Warm starts for tests that run `python -m gemini_tui ...` many times: one process per pytest worker (and per
start environment) imports gemini-tui, google-genai, the MCP and ACP SDKs once, then forks a child for each run
a test asks for through `command()`. The child is the real program from its `__main__` on, with the test's
stdin, stdout, stderr (passed over a Unix socket), environment, folder and umask; only the imports are shared.
`tests/fakes/warm_relay.py` is the process the test sees. What a warm start cannot be is a plain start: tests
of start-up itself (what is imported when, `-X` flags, a closed standard stream) use the plain command.
The fake MCP servers (`tests/fakes/mcp_*.py`) start the same way through `server_command()`, from a warm
process of their own that has imported the mcp SDK's server side (and nothing of gemini-tui's).

Run as `python -m tests.fakes.warm_start SOCKET [--app | --servers]`: serves until its stdin (a pipe from the
worker) closes."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.fakes.warm_relay import STARTING, is_script, read_message, start_key

REPO = Path(__file__).resolve().parents[2]
RELAY = Path(__file__).with_name("warm_relay.py")
OFF = "GEMINI_TUI_TEST_COLD"  # set (in the worker's environment) to run every test's gemini-tui cold
COLD_LOG = "GEMINI_TUI_TEST_COLD_LOG"  # a file each worker appends its plain (cold) runs to when it ends

APP = "app"  # the sub-folder of the warm processes for the full-screen app in a terminal
SERVERS = "servers"  # the sub-folder of the warm processes for the fake MCP servers

_folder: str | None = None
_servers: dict[tuple[str, str], subprocess.Popen[bytes]] = {}
_base_path: list[str] = []  # a warm process's sys.path without what its own start put first (its folder, PYTHONPATH)


def command(env: Mapping[str, str] | None = None, module: str = "gemini_tui", app: bool = False) -> list[str]:
    """The argv prefix standing for `python -m MODULE` under `env` (the worker's own when None): a relay to a
    warm process started for that environment, or the plain command when warm starts are off. With `app`, the
    full-screen app in a terminal: its warm process has also imported the app (Textual, its screens and widgets:
    never imported where a headless run could see them), and a run takes its terminal as its controlling one."""
    if os.environ.get(OFF):
        return [sys.executable, "-m", module]
    folder = _ensure(dict(os.environ if env is None else env), APP if app else "")
    return [sys.executable, "-S", "-E", str(RELAY), folder, module]


def server_command(script: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The command line standing for `python SCRIPT` that starts a fake MCP server (tests/fakes/mcp_*.py, or
    any script that imports the mcp SDK's server): its first word is a server entry's `command`, the rest (then
    the server's own arguments) its `args`. See `server_launcher`."""
    target = str(script)
    assert is_script(target), target
    return [*server_launcher(env), target]


def server_entry(script: str | os.PathLike[str], *args: str, env: Mapping[str, str] | None = None,
                 ) -> dict[str, Any]:
    """A server's settings entry (`mcpServers.NAME`: its `command` and `args`) starting SCRIPT with `args`."""
    command = server_command(script, env)
    return {"command": command[0], "args": [*command[1:], *args]}


def server_launcher(env: Mapping[str, str] | None = None) -> list[str]:
    """The words before a fake MCP server's script path, standing for `python`: a relay to a warm process that
    has imported the mcp SDK's server side, started for `env`, the environment the server will be started with;
    by default what an MCP client here gives one (`server_env()`). The server is still
    a process of its own speaking MCP on its stdio or its port; only the imports are shared. A server started in
    another environment runs plain (and is listed in cold.log); a helper that reports its start environment
    (tests/fakes/env_probe.py) is started plain by its tests."""
    if os.environ.get(OFF):
        return [sys.executable]
    return [sys.executable, "-S", "-E", str(RELAY), _ensure(server_env() if env is None else dict(env), SERVERS)]


def server_env() -> dict[str, str]:
    """What an MCP client here starts a server with, as far as the interpreter's start goes: this worker's PATH
    and locale, and no PYTHON* setting (gemini-tui gives a server the locale, the SDK's own client not even that:
    a server it starts from here runs plain)."""
    return {k: v for k, v in os.environ.items() if k in ("PATH", "LANG") or k.startswith("LC_")}


def folder() -> str | None:
    """This worker's folder of warm sockets (and `cold.log`, the runs that had to start plain), once one started."""
    return _folder


def _ensure(env: dict[str, str], kind: str) -> str:
    """The folder of `kind`'s warm processes (gemini-tui's: "", the app's, the fake servers'), with one started
    for `env` (once per worker and start key)."""
    global _folder
    if _folder is None:
        _folder = tempfile.mkdtemp(prefix="gemini-tui-warm-")
        for sub in (APP, SERVERS):
            os.mkdir(os.path.join(_folder, sub))
        atexit.register(_stop_all)
    folder = os.path.join(_folder, kind) if kind else _folder
    key = start_key(env, str(REPO))
    server = _servers.get((key, kind))
    if server is None or server.poll() is not None:
        start_env = {k: v for k, v in env.items() if k.startswith(STARTING) or k == "LANG"}
        start_env |= {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": _folder,
                      "PYTHONPATH": str(REPO)}
        server = subprocess.Popen([sys.executable, "-m", "tests.fakes.warm_start", folder,
                                   *([f"--{kind}"] if kind else [])],
                                  cwd=REPO, env=start_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert server.stdout is not None
        server.stdout.readline()  # "ready": the socket is bound (or the server failed: relays start cold)
        _servers[(key, kind)] = server
    return folder


def warm_processes() -> list[tuple[str, int]]:
    """This worker's warm processes that are running: each one's kind ("", "app", "servers") and pid."""
    return [(kind, server.pid) for (_key, kind), server in _servers.items() if server.poll() is None]


def _stop_all() -> None:
    for server in _servers.values():
        with contextlib.suppress(OSError):
            if server.stdin is not None:
                server.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=5)
        if server.stdout is not None:
            server.stdout.close()
    if _folder is not None:
        report = os.environ.get(COLD_LOG)
        for folder in (os.path.join(_folder, APP), os.path.join(_folder, SERVERS), _folder):
            cold = Path(folder, "cold.log")
            if report and cold.exists():
                with open(report, "a") as out:
                    out.write(cold.read_text())
            for name in os.listdir(folder):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))
            with contextlib.suppress(OSError):
                os.rmdir(folder)


# ---- the warm process ---------------------------------------------------------------------------------------

def _preload(kind: str) -> None:
    """What a run would import; imported as the program itself imports them (the SDK through its one entry).
    The app's warm process also imports every module of the app (whatever a session in a terminal may show);
    the fake servers' imports the mcp SDK's server side instead of gemini-tui."""
    if kind == SERVERS:
        _preload_servers()
        return
    import gemini_tui.cli.assemble
    import gemini_tui.cli.main
    from gemini_tui.cli.acp.schema_import import import_sdk
    from gemini_tui.core.models.genai_sdk import genai_sdk

    genai_sdk()
    import_sdk()
    import mcp
    import mcp.client.stdio  # noqa: F401

    if kind == APP:
        import importlib
        import pkgutil

        import gemini_tui.app

        for found in pkgutil.walk_packages(gemini_tui.app.__path__, "gemini_tui.app."):
            importlib.import_module(found.name)


def _preload_servers() -> None:
    """What a fake server imports, over stdio or HTTP: the SDK's server with the apps it serves over HTTP built
    once (their modules load as they are built), uvicorn's parts (it imports them by name as it starts), the
    event loop's anyio backend. Nothing here starts a thread or opens a socket."""
    import anyio._backends._asyncio
    import mcp_types
    import pydantic
    import uvicorn
    import uvicorn.lifespan.on
    import uvicorn.loops.auto
    import uvicorn.protocols.http.auto
    import uvicorn.protocols.websockets.auto
    from mcp.server.mcpserver import MCPServer

    del anyio, mcp_types, pydantic, uvicorn
    server = MCPServer("warm")
    server.streamable_http_app()
    server.sse_app()


def _send(conn: socket.socket, message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    with contextlib.suppress(OSError):
        conn.sendall(struct.pack("!I", len(body)) + body)


def _run_child(request: dict[str, object], fds: list[int], closing: list[int], app: bool) -> None:
    """In the forked child: become the asked-for run, then leave as an interpreter leaves. The app's run takes
    its terminal (the relay's) as its own controlling terminal, in a session of its own, in the foreground: the
    terminal's keys, resizes and hang-up reach it as they reach a plain start (root may take a terminal that
    another session holds; the relay only waits)."""
    import runpy

    code = 1
    try:
        signal.set_wakeup_fd(-1)
        _signals_as_started(request.get("ignored", []))
        for fd in closing:
            with contextlib.suppress(OSError):
                os.close(fd)
        terminal = app and os.isatty(fds[0])
        if terminal:
            os.setsid()
        else:
            os.setpgid(0, 0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        if terminal:
            fcntl.ioctl(0, termios.TIOCSCTTY, 1)
        os.chdir(str(request["cwd"]))
        os.umask(int(str(request["umask"])))
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in env.items()})
        argv = request["argv"]
        assert isinstance(argv, list)
        script = request.get("script")
        sys.argv = [str(script) if script else "-m", *(str(a) for a in argv)]
        if sys.stdout.isatty():
            sys.stdout.reconfigure(line_buffering=True)
        try:
            if script:
                _as_a_script(str(script), env)
                runpy.run_path(str(script), run_name="__main__")
            else:
                runpy.run_module(str(request["module"]), run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as done:
            if done.code is None:
                code = 0
            elif isinstance(done.code, int):
                code = done.code
            else:
                print(done.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            sys.excepthook(*sys.exc_info())
            _leave(signal.SIGINT)
        except BaseException:
            sys.excepthook(*sys.exc_info())
            code = 1
        _finish()
    finally:
        os._exit(code)


def _signals_as_started(ignored: object) -> None:
    """Each signal as an interpreter started by the relay's parent has it: ignored where the relay was started
    with it ignored, else as Python sets it up (SIGINT raises KeyboardInterrupt, SIGPIPE and SIGXFSZ ignored,
    the rest the system's default), whatever the warm process inherited or set."""
    assert isinstance(ignored, list)
    python_ignores = (signal.SIGPIPE, signal.SIGXFSZ)
    for signum in signal.valid_signals():
        if signum in (signal.SIGKILL, signal.SIGSTOP):
            continue
        if signum in ignored or signum in python_ignores:
            handler: object = signal.SIG_IGN
        elif signum == signal.SIGINT:
            handler = signal.default_int_handler
        else:
            handler = signal.SIG_DFL
        with contextlib.suppress(OSError, ValueError):  # (the C library's own real-time signals)
            signal.signal(signum, handler)  # type: ignore[arg-type]


def _as_a_script(script: str, env: dict[object, object]) -> None:
    """sys.path and sys.modules as `python SCRIPT` starts with them: the script's folder first, then PYTHONPATH,
    then the interpreter's own; the warm process's own modules (tests.*) not imported."""
    given = str(env.get("PYTHONPATH", ""))
    sys.path[:] = [os.path.dirname(os.path.realpath(script)), *(p for p in given.split(os.pathsep) if p),
                   *_base_path]
    for name in [name for name in sys.modules if name == "tests" or name.startswith("tests.")]:
        del sys.modules[name]


def _finish() -> None:
    """An interpreter's own end: wait for non-daemon threads, run atexit, flush the standard streams."""
    shutdown = getattr(threading, "_shutdown", None)
    if callable(shutdown):
        with contextlib.suppress(Exception):
            shutdown()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()  # type: ignore[attr-defined]
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _leave(signum: int) -> None:
    _finish()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def serve(folder: str, kind: str = "") -> None:
    given = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    _base_path[:] = [p for p in sys.path[1:] if p not in given]
    try:
        _preload(kind)
    except Exception:
        sys.stdout.write("failed\n")
        sys.stdout.flush()
        return
    path = os.path.join(folder, start_key(dict(os.environ), str(REPO)) + ".sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    os.set_blocking(wake_read, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "reap")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "worker")
    running: dict[int, socket.socket] = {}
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in selector.select():
            if key.data == "worker":
                if not os.read(sys.stdin.fileno(), 4096):
                    for pid in running:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                    return
            elif key.data == "accept":
                conn, _ = listener.accept()
                _start(conn, listener, selector, running, [wake_read, wake_write], kind)
            elif key.data == "reap":
                with contextlib.suppress(OSError):
                    os.read(wake_read, 4096)
                _reap(selector, running)
            else:  # a relay's socket: readable only when the relay is gone (killed): its run goes too
                conn = key.fileobj
                assert isinstance(conn, socket.socket)
                with contextlib.suppress(OSError):
                    if conn.recv(1):
                        continue
                selector.unregister(conn)
                for pid, owner in list(running.items()):
                    if owner is conn:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)


def _start(conn: socket.socket, listener: socket.socket, selector: selectors.BaseSelector,
           running: dict[int, socket.socket], pipes: list[int], kind: str) -> None:
    try:
        head, fds, _flags, _addr = socket.recv_fds(conn, 4, 3)
        rest = read_message(conn, head)
    except (OSError, ValueError):
        conn.close()
        return
    if rest is None or len(fds) != 3 or ("script" in rest) != (kind == SERVERS):  # not ours: the relay runs plain
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        closing = [listener.fileno(), sys.stdin.fileno(), *pipes,
                   *(c.fileno() for c in running.values()), conn.fileno()]
        _run_child(rest, fds, [fd for fd in closing if fd not in (0, 1, 2)], kind == APP)
    for fd in fds:
        os.close(fd)
    running[pid] = conn
    selector.register(conn, selectors.EVENT_READ, "relay")
    _send(conn, {"pid": pid})


def _reap(selector: selectors.BaseSelector, running: dict[int, socket.socket]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = running.pop(pid, None)
        if conn is None:
            continue
        if os.WIFSIGNALED(status):
            _send(conn, {"signal": os.WTERMSIG(status)})
        else:
            _send(conn, {"exit": os.waitstatus_to_exitcode(status)})
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(conn)
        conn.close()


if __name__ == "__main__":
    serve(sys.argv[1], next((kind for kind in (APP, SERVERS) if f"--{kind}" in sys.argv[2:]), ""))
