"""`gemini-tui`: parse the command line, then run headless (-p) or start the app. Heavy imports stay lazy."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gemini_tui.cli import __version__
from gemini_tui.core.ground.start_marks import mark

if TYPE_CHECKING:
    from gemini_tui.app.early_input import EarlyInput
    from gemini_tui.cli.trajectory import TrajectoryRecorder
    from gemini_tui.core.session.face import SessionFace

APPROVAL_MODES = ("default", "auto_edit", "plan", "yolo")
OUTPUT_FORMATS = ("text", "json", "stream-json", "atif")
EXIT_BAD_FLAGS = 2  # argparse's own code for a bad command line
EXIT_BAD_CONFIG = 3
EXIT_INTERNAL = 1  # a bug: named on stderr, its traceback in the debug log (--debug)
EXIT_NO_KEY = 41  # headless without a way to reach the model (Gemini CLI's code for a fatal authentication error)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gemini-tui",
        description="A full-screen terminal agent for Gemini: chat, live tool calls, diff review, tool history.",
        epilog="Without -p (and with a terminal on stdin) the full-screen app starts. Exit codes: 0 done, "
               "1 the run failed, 2 bad flags, 3 bad configuration, 130 interrupted. `gemini-tui serve` serves the "
               "app to a web browser (see `gemini-tui serve --help`).",
    )
    parser.add_argument("--version", action="version", version=f"gemini-tui {__version__}")
    parser.add_argument("-p", "--prompt", help="run this prompt headless and exit (also read from stdin when "
                                               "stdin is not a terminal)")
    parser.add_argument("-m", "--model", help="model name (default: GEMINI_MODEL, settings model.name, "
                                              "gemini-2.5-pro); 'offline' for the offline demo model")
    parser.add_argument("-o", "--output-format", choices=OUTPUT_FORMATS, default="text",
                        help="headless output: text (default), json (one object), stream-json (JSON lines), atif "
                             "(the run as an ATIF trajectory, Harbor's format)")
    parser.add_argument("--trajectory", metavar="FILE", type=Path,
                        help="headless: also write the run as an ATIF trajectory to FILE (replaced atomically)")
    parser.add_argument("--approval-mode", choices=APPROVAL_MODES, default=None,
                        help="default: ask for edits and commands (headless: refuse them); auto_edit: edits run "
                             "without asking; yolo: nothing asks; plan: read-only tools only, every change refused")
    parser.add_argument("-y", "--yolo", action="store_true", help="same as --approval-mode yolo")
    parser.add_argument("-d", "--debug", action="store_true",
                        help="write a debug log (with tracebacks) to ~/.gemini/tmp/gemini-tui-debug-*.log; "
                             "error messages name the file")
    parser.add_argument("-s", "--sandbox", action="store_true",
                        help="run shell commands, !commands and discovered tools in the bubblewrap sandbox (the "
                             "default where it can start; also GEMINI_SANDBOX=true or settings tools.sandbox); "
                             "asked for this way, commands are refused if it cannot start")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run commands without the sandbox (also GEMINI_SANDBOX=false or tools.sandbox: false "
                             "in your own settings)")
    parser.add_argument("--trust", action="store_true",
                        help="trust this folder for this run: apply its .gemini/settings.json keys that run "
                             "programs or widen permissions (mcpServers, tools.discoveryCommand, tools.allowed, "
                             "hooks, ...); without it they apply only if ~/.gemini/trustedFolders.json trusts it")
    parser.add_argument("-i", "--prompt-interactive", metavar="TEXT",
                        help="start the app and send this prompt first (the app stays open)")
    parser.add_argument("-e", "--extensions", action="append", metavar="NAME[,NAME]",
                        help="use only these extensions ('none' for none); default: every installed one")
    parser.add_argument("-l", "--list-extensions", action="store_true", help="list the installed extensions and exit")
    parser.add_argument("--include-directories", action="append", default=[], metavar="DIR[,DIR]",
                        help="more directories that are part of the workspace (besides settings "
                             "context.includeDirectories)")
    parser.add_argument("-r", "--resume", nargs="?", const="latest", metavar="latest|N|ID",
                        help="continue a saved session of this project: the latest (default), number N of "
                             "--list-sessions, or its id; works with -p too")
    parser.add_argument("--list-sessions", action="store_true", help="list this project's saved sessions and exit")
    parser.add_argument("--delete-session", metavar="N|ID", help="delete a saved session (number or id) and exit")
    parser.add_argument("--acp", "--experimental-acp", action="store_true", dest="acp",
                        help="serve the Agent Client Protocol on stdio (for Zed, JetBrains, neovim, Emacs, acpx, ...): "
                             "only JSON-RPC goes to stdout; see docs/acp.md")
    parser.add_argument("-w", "--worktree", nargs="?", const="", metavar="NAME",
                        help="work in the git worktree .gemini/worktrees/NAME of this project, on branch "
                             "worktree-NAME: made if new, found again if not, a name made up when none is given; "
                             "it is the session's root and is kept at exit (see docs/agents.md)")
    parser.add_argument("--allowed-mcp-server-names", nargs="+", default=None, metavar="NAME",
                        help="only these MCP servers connect (names separated by spaces or commas)")
    return parser


# With -p, piped input is optional: wait this long for it, so an idle inherited pipe never hangs the run.
STDIN_GRACE_S = 0.5


def _read_stdin(required: bool) -> str:
    """Piped input (`git diff | gemini-tui -p "write a commit message"`). Without -p it is the prompt, so
    we wait for it; with -p we take it only if something arrives within STDIN_GRACE_S."""
    if sys.stdin is None or sys.stdin.closed or sys.stdin.isatty():
        return ""
    if not required:
        import select

        try:
            ready, _, _ = select.select([sys.stdin], [], [], STDIN_GRACE_S)
        except (OSError, ValueError):  # not selectable (e.g. a Windows pipe): don't risk blocking
            return ""
        if not ready:
            return ""
    return sys.stdin.read()


def _has_terminal() -> bool:
    """Whether the full-screen app can run: it reads keys from stdin."""
    try:
        return sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


WEB_DRIVER = "textual.drivers.web_driver"


def under_web_driver() -> bool:
    """Started by textual-serve (`gemini-tui serve`) or textual-web: Textual's web driver is named in TEXTUAL_DRIVER,
    the page's keys come in on stdin (as packets) and the screen goes out on stdout."""
    return os.environ.get("TEXTUAL_DRIVER", "").startswith(WEB_DRIVER)


def _stay_in_page_tree() -> None:
    """What this app's tools leave behind stays below it (it is a subreaper), and it ends with its server."""
    from gemini_tui.core.processes.process_tree import become_subreaper, end_with_parent

    become_subreaper()
    end_with_parent()


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["mcp"]:  # `gemini-tui mcp add|list|remove`, as `gemini mcp`
        from gemini_tui.cli.mcp_command import main as mcp_main

        return mcp_main(arguments[1:])
    if arguments[:1] == ["skills"]:  # `gemini-tui skills list|install|uninstall|enable|disable`, as `gemini skills`
        from gemini_tui.cli.skills_command import main as skills_main

        return skills_main(arguments[1:])
    if arguments[:1] == ["serve"]:  # `gemini-tui serve`: the app in browser pages
        from gemini_tui.cli.web.command import main as serve_main

        return serve_main(arguments[1:], build_parser())
    parser = build_parser()
    args = parser.parse_args(argv)
    mark("arguments parsed")
    if args.list_extensions:
        return _list_extensions(args.extensions, args.trust)
    if args.prompt_interactive is not None and args.prompt is not None:
        parser.error("-i/--prompt-interactive starts the app; it cannot be combined with -p")
    if args.sandbox and args.no_sandbox:
        parser.error("--sandbox contradicts --no-sandbox")
    if args.yolo and args.approval_mode not in (None, "yolo"):
        parser.error(f"--yolo contradicts --approval-mode {args.approval_mode}")
    if args.worktree is not None and (code := _enter_worktree(parser, args)) is not None:
        return code
    early = _raw_keys_now() if _starts_the_app(args) else None
    _set_up_logging(args.debug)
    mode = "yolo" if args.yolo else args.approval_mode  # None: settings general.defaultApprovalMode, else default
    if args.list_sessions or args.delete_session:
        from gemini_tui.cli.sessions import manage_sessions

        return manage_sessions(list_them=args.list_sessions, delete=args.delete_session)

    servers = None if args.allowed_mcp_server_names is None else [
        name.strip() for value in args.allowed_mcp_server_names for name in value.split(",") if name.strip()]
    wiring = {"extensions": args.extensions, "include_directories": args.include_directories, "trust": args.trust,
              "sandbox": True if args.sandbox else (False if args.no_sandbox else None),
              "allowed_mcp_server_names": servers}
    if args.acp:
        if args.prompt is not None or args.prompt_interactive is not None or args.resume is not None:
            parser.error("--acp serves a client on stdio; it cannot be combined with -p, -i or --resume")
        # google-genai is not imported here: `session/new` warms the model client on a thread (the session's
        # prewarm), so a client that only initializes, lists or fails never pays for it, and a prompt still finds it
        from gemini_tui.cli.acp.schema_import import import_sdk

        import_sdk()
        from gemini_tui.cli.acp.server import run as run_acp

        code = run_acp(args.model, mode, wiring)
        if argv is None:
            _exit_now(code)
        return code

    served = under_web_driver()
    if served:  # stdin carries the page's keys, never a prompt
        _stay_in_page_tree()
    piped = "" if served else _read_stdin(required=args.prompt is None).strip()
    prompt = "\n\n".join(part for part in (piped, args.prompt) if part) if args.prompt is not None else (
        piped or None)

    if prompt is not None and not prompt.strip():
        parser.error("the prompt is empty: give -p TEXT, or pipe the prompt on stdin")
    if prompt is None and not (served or _has_terminal()):
        parser.error("no prompt: stdin is not a terminal and gave nothing; use -p TEXT or pipe the prompt")
    if prompt is None:
        # the app draws its first frame, then builds the session in a thread: launch stays under 0.5 s
        return _interactive(lambda: _build_interactive(args.model, mode, wiring, args.resume),
                            args.prompt_interactive, ask_trust=not args.trust, early=early,
                            another=lambda root: _build_interactive(args.model, mode, {**wiring, "root": root}))

    if args.model != "offline" and any(os.environ.get(name) for name in (
            "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI")):
        # google-genai takes as long to import as everything else together: start it now, on a thread
        # not a daemon: should the run end early (a configuration error), the interpreter waits for the import
        # before it shuts down, instead of tearing modules away under it
        threading.Thread(target=_import_genai, name="genai-import", daemon=False).start()
    from gemini_tui.cli.assemble import ConfigurationError, MissingKey, build_session

    try:
        session = build_session(model=args.model, approval_mode=mode, interactive=False, prewarm=True,
                                offline_without_key=False, **wiring)  # type: ignore[arg-type]
    except MissingKey as exc:
        _say_no_key(str(exc), args.output_format)
        return EXIT_NO_KEY
    except ConfigurationError as exc:
        print(f"gemini-tui: configuration error: {exc}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    if args.resume is not None:
        from gemini_tui.cli.sessions import resume_or_explain

        if not resume_or_explain(session, args.resume):
            return 1
    try:
        code = _headless(session, prompt, args.output_format, args.trajectory)
        if args.worktree is not None:  # stdout is the answer's; the worktree's words go beside it
            from gemini_tui.cli.worktree_flag import say_goodbye

            say_goodbye([session], sys.stderr)
    except Exception as exc:  # a bug guard: one line on stderr, the traceback in the debug log, a clean exit
        from gemini_tui.core.ground.debug_log import where_details
        from gemini_tui.core.ground.text_boundary import shown_text

        logging.getLogger(__name__).exception("the headless run failed")
        print(shown_text(f"gemini-tui: internal error: {type(exc).__name__}: {exc}{where_details()}"),
              file=sys.stderr)
        code = EXIT_INTERNAL
    if argv is None:  # the console script, not a caller in this process: skip interpreter teardown
        _exit_now(code)
    return code


def _enter_worktree(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int | None:
    """`-w`: the worktree becomes the current folder before anything reads it; an exit code when it cannot."""
    from gemini_tui.cli.worktree_flag import enter
    from gemini_tui.core.ground.terminal_text import clean_terminal_text
    from gemini_tui.core.workspace.worktrees import WorktreeError, check_name

    if args.acp:
        parser.error("--worktree cannot be combined with --acp: the client names the session's folder")
    try:
        if args.worktree.strip():
            check_name(args.worktree)
    except WorktreeError as exc:
        parser.error(str(exc))
    try:
        enter(args.worktree)
    except WorktreeError as exc:
        print(clean_terminal_text(f"gemini-tui: no worktree: {exc}"), file=sys.stderr)
        return 1
    return None


def _say_no_key(message: str, output_format: str) -> None:
    """A headless run with no key stops before it starts: on stderr, and where a JSON reader looks (the shape of
    the format's own error), so a harness records a failure rather than an empty run."""
    from gemini_tui.cli.headless import error_document

    print(f"gemini-tui: {message}", file=sys.stderr)
    if output_format in ("json", "stream-json"):  # an ATIF trajectory needs a step: stdout stays empty
        print(error_document(output_format, "auth", message), flush=True)


def _set_up_logging(debug: bool) -> None:
    """Tracebacks never reach the terminal; with --debug they go to a log file, named on stderr."""
    from gemini_tui.core.ground import debug_log

    if not debug:
        debug_log.quiet()
        return
    from gemini_tui.core.setup.config import gemini_home

    path = debug_log.to_file(gemini_home() / ".gemini" / "tmp")
    print(f"gemini-tui: debug log in {path}", file=sys.stderr)


def _import_genai() -> None:
    from gemini_tui.core.models.genai_sdk import genai_sdk

    genai_sdk()
    import google.genai.types  # noqa: F401


def _headless(session: SessionFace, prompt: str, output_format: str, trajectory_file: Path | None = None) -> int:
    import asyncio

    from gemini_tui.cli.headless import EXIT_INTERRUPTED, HeadlessPrinter
    from gemini_tui.cli.trajectory import TrajectoryRecorder

    trajectory = None
    if output_format == "atif" or trajectory_file is not None:
        trajectory = TrajectoryRecorder(session.session_id, session.model_name, __version__)
        session.bus.tap(trajectory.on_event)
    printer = HeadlessPrinter(output_format, sys.stdout, sys.stderr, trajectory)  # type: ignore[arg-type]

    async def run() -> int:
        import signal

        presses = 0

        def interrupt() -> None:
            # the first Ctrl+C cancels the request and its calls (each still answered); a second one leaves now
            nonlocal presses
            presses += 1
            if presses > 1:
                _exit_now(EXIT_INTERRUPTED)
            session.cancel()

        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, interrupt)
        except (NotImplementedError, RuntimeError):
            pass
        try:
            return await printer.run(session, prompt)
        finally:
            # MCP servers are ended here, while the loop runs: left to asyncio.run's final cancel, a server
            # still being ended (one that timed out) could be abandoned half way and hold the exit
            await session.close()
            if trajectory is not None and trajectory_file is not None:  # a failed run's steps too
                _write_trajectory(trajectory, trajectory_file)

    try:
        code = asyncio.run(run())
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    if printer.output_closed:
        # what is still buffered for the closed pipe would fail the final flush: let it go to /dev/null
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    return code


def _write_trajectory(trajectory: TrajectoryRecorder, path: Path) -> None:
    try:
        trajectory.write(path)
    except OSError as exc:
        print(f"gemini-tui: could not write the trajectory to {path}: {exc}", file=sys.stderr)


def _exit_now(code: int) -> None:
    """Ends the process without tearing down every module (which takes longer than the run itself after
    google-genai's thousands of classes). All our files are already written and fsynced; flush the streams."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 1  # stdout was closed under us (a closed pipe): the output is lost, say so
    logging.shutdown()
    from gemini_tui.core.processes.child_processes import end_all

    end_all()  # os._exit skips atexit: end what tools left running (background jobs) ourselves
    os._exit(code)


def _list_extensions(wanted: list[str] | None, trust: bool) -> int:
    """`-l`: every installed extension, its version and what it contributes."""
    from gemini_tui.core.setup.config import load_settings
    from gemini_tui.core.setup.extensions import find_extensions, select

    root = Path.cwd().resolve()
    settings = load_settings(root, trust_flag=trust)
    installed, notices = find_extensions(settings.home, root, workspace_trusted=settings.workspace_trusted)
    chosen, unknown = select(installed, wanted)
    for notice in [*notices, *unknown]:
        print(f"gemini-tui: {notice}", file=sys.stderr)
    if not installed:
        print("No extensions installed (~/.gemini/extensions/<name>/gemini-extension.json).")
    names = {e.name for e in chosen}
    for extension in installed:
        state = "" if extension.name in names else " (not enabled by -e)"
        print(f"{extension.name} {extension.version}".rstrip() + f" [{extension.origin}] {extension.path}{state}")
        for item in extension.contributions():
            print(f"  {item}")
    return 0


def _build_interactive(model: str | None, mode: str | None, wiring: dict[str, object],
                       resume: str | None = None) -> SessionFace:
    from gemini_tui.cli.assemble import ConfigurationError, build_session

    try:
        session = build_session(model=model, approval_mode=mode, interactive=True, **wiring)  # type: ignore[arg-type]
    except ConfigurationError as exc:  # the app exits with this message and EXIT_BAD_CONFIG
        raise RuntimeError(f"configuration error: {exc}") from exc
    if resume is not None:
        from gemini_tui.cli.sessions import resume_or_explain

        resume_or_explain(session, resume, to_stderr=False)  # the app shows the notice and starts afresh
    return session


def _starts_the_app(args: argparse.Namespace) -> bool:
    """Whether this command line opens the full-screen app on the terminal on stdin (decided before anything
    slow runs: the earlier the terminal reads raw keys, the fewer the terminal itself takes)."""
    return (args.prompt is None and not (args.list_extensions or args.list_sessions or args.delete_session
                                         or args.acp) and not under_web_driver() and _has_terminal())


def _raw_keys_now() -> EarlyInput | None:
    """The terminal reads raw keys from now on, before the app's imports: a key typed in the first instant is kept
    as typed (Enter stays Enter, Ctrl+C is the app's key, not a signal that ends the start with a traceback), not
    turned into a line by the terminal. Its own settings come back at exit, however the process ends."""
    import atexit

    from gemini_tui.app.early_input import capture

    early = capture(sys.stdin)
    if early is not None:
        atexit.register(early.restore)
    return early


def _interactive(build: Callable[[], SessionFace], first_prompt: str | None = None,
                 ask_trust: bool = True, early: EarlyInput | None = None,
                 another: Callable[[Path], SessionFace] | None = None) -> int:
    # No garbage collection on the way to the first frame (the app turns it back on once that frame is drawn):
    # importing and composing the app makes few cycles, and collecting them there took ~7% of the frame's CPU.
    gc.disable()
    try:
        try:
            from gemini_tui.app.main import run
        except ImportError as exc:
            print(f"gemini-tui: the full-screen app is not available ({exc}); use -p PROMPT.", file=sys.stderr)
            return 1
        built: list[SessionFace] = []  # the window's first session, then each one opened in it

        def build_and_keep() -> SessionFace:
            built.insert(0, build())
            return built[0]

        def another_and_keep(root: Path) -> SessionFace:
            assert another is not None
            built.append(another(root))
            return built[-1]

        code = run(build_and_keep, Path.cwd(), first_prompt=first_prompt, ask_trust=ask_trust, early=early,
                   another=another_and_keep if another is not None else None)
    finally:
        if early is not None:
            early.restore()
    from gemini_tui.cli.sessions import say_how_to_resume
    from gemini_tui.cli.worktree_flag import say_goodbye

    say_how_to_resume(built)  # several sessions: the way back to each (one alone: --resume finds it as ever)
    say_goodbye(built)  # as Gemini CLI does, in a worktree however it was entered; nothing (no git) otherwise
    return code


if __name__ == "__main__":
    sys.exit(main())
