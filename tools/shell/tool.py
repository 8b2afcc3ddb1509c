"""run_shell_command: `bash -c` in its own process group, streamed, bounded in time and size, ruled per command."""

from __future__ import annotations

import asyncio
import codecs
import dataclasses
import os
import re
import signal
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationDetails, ExecConfirmation
from gemini_tui.core.ground.display import ShellOutput
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.processes import child_processes
from gemini_tui.core.processes.private_writes import PrivateFolders
from gemini_tui.core.processes.protected_snapshot import Change, ProtectedSnapshot
from gemini_tui.core.processes.sandbox import Sandbox, SandboxUnavailable
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.shell.captured_output import CapturedOutput, plain_text, private_output_dir
from gemini_tui.tools.shell.client_terminal import ClientTerminal, TerminalOutcome
from gemini_tui.tools.shell.process_group import end_group, group_members
from gemini_tui.tools.workspace import Workspace, WorkspaceError

DEFAULT_INACTIVITY_TIMEOUT_S = 120.0
DEFAULT_OUTPUT_LIMIT = 64_000
BINARY_SNIFF_BYTES = 4096


class Ending(StrEnum):
    """Why a command was ended before it exited by itself."""

    cancelled = "cancelled"
    inactivity = "inactivity"
    total = "total"


class ShellParams(ToolParams):
    gemini_cli_names: ClassVar[dict[str, str | None]] = {"dir_path": "directory"}
    command: str = Field(description="Exact bash command to execute as `bash -c <command>`.")
    description: str | None = Field(
        default=None, description="Brief description of the command for the user. Be specific and concise.")
    directory: str | None = Field(
        default=None,
        description="(OPTIONAL) Directory to run the command in, relative to the project root. It must exist. "
                    "Defaults to the project root.")
    outside_sandbox: bool = Field(
        default=False,
        description="(OPTIONAL) Run outside the sandbox. Only after the same command failed inside it for lack of "
                    "network or of a write outside the workspace; the user is always asked first.")


class ShellTool(BaseTool[ShellParams]):
    name = "run_shell_command"
    display_name = "Shell"
    description = (
        "Executes a given shell command as `bash -c <command>`. Command can start background processes using "
        "`&`. Command is executed as a subprocess that leads its own process group. Command process group can "
        "be terminated as `kill -- -PGID` or signaled as `kill -s SIGNAL -- -PGID`. Standard input is closed: "
        "commands must not wait for input.\n\n"
        "The following information is returned:\n\n"
        "Command: Executed command.\nDirectory: Directory (relative to project root) where command was executed, "
        "or `(root)`.\nOutput: Output of stdout and stderr, interleaved. Can be `(empty)` or partial on error "
        "and for any unwaited background processes.\nError: Error or `(none)` if no error was reported for the "
        "subprocess.\nExit Code: Exit code or `(none)` if terminated by signal.\nSignal: Signal number or "
        "`(none)` if no signal was received.\nBackground PIDs: List of background processes started or `(none)`."
        "\nProcess Group PGID: Process group started or `(none)`"
    )
    Params = ShellParams
    kind = ToolKind.execute
    # the environment every command sees, so scripts can tell they run under an agent and never page
    ENV_MARKERS: ClassVar[dict[str, str]] = {"GEMINI_CLI": "1", "PAGER": "cat", "GIT_PAGER": "cat"}

    def __init__(self, workspace: Workspace, *,
                 inactivity_timeout_s: float | None = DEFAULT_INACTIVITY_TIMEOUT_S,
                 total_timeout_s: float | None = None, output_limit: int = DEFAULT_OUTPUT_LIMIT,
                 output_dir: Path | None = None, env: dict[str, str] | None = None,
                 sandbox: Sandbox | None = None) -> None:
        self.workspace = workspace
        self.inactivity_timeout_s = inactivity_timeout_s
        self.total_timeout_s = total_timeout_s
        self.output_limit = output_limit
        self.output_dir = output_dir
        self.env = env
        self.sandbox = sandbox or Sandbox()  # no sandbox unless one is given (cli/assemble.py builds it)
        # a front end's terminal (an ACP client's) to run commands in instead of our own process (None: ours)
        self.terminal: ClientTerminal | None = None
        self._snapshot: ProtectedSnapshot | None = None

    # ----- rules and confirmation ------------------------------------------------------------------------
    def check_params(self, params: ShellParams) -> ToolError | None:
        if not params.command.strip():
            return ToolError(ToolErrorKind.invalid_params, "Command cannot be empty.")
        if self.sandbox.problem is not None:  # asked for and unusable: refuse, never run bare
            return ToolError(ToolErrorKind.not_allowed, f"Command refused: {self.sandbox.problem}")
        if params.directory is not None:
            try:
                self._directory(params.directory)
            except WorkspaceError as exc:
                return exc.as_tool_error()
        return None

    def _directory(self, directory: str | None) -> Path:
        if directory is None or not directory.strip():
            return self.workspace.root
        path = self.workspace.resolve(directory, must_exist=True)
        if not path.is_dir():
            raise WorkspaceError(ToolErrorKind.not_a_directory, f"Directory is not a directory: {directory}")
        return path

    def needs(self, params: ShellParams) -> CallNeeds:
        """The command as bash will run it (every simple command, what is opaque, what it writes)."""
        from gemini_tui.core.shell.grammar import analyze

        try:
            cwd = str(self._directory(params.directory))
        except WorkspaceError:
            cwd = str(self.workspace.root)
        escalation = None
        if params.outside_sandbox and self.sandbox.active:
            escalation = params.description or "the model asked for it"
        return CallNeeds(shell=analyze(params.command), cwd=cwd, escalation=escalation)

    def get_description(self, params: ShellParams) -> str:
        text = params.command
        if params.directory:
            text += f" [in {params.directory}]"
        if params.description:
            text += f" ({params.description.replace(chr(10), ' ')})"
        return text

    async def should_confirm_execute(self, params: ShellParams,
                                     abort_signal: AbortSignal) -> ConfirmationDetails | None:
        from gemini_tui.core.shell.grammar import analyze

        found = analyze(params.command)
        opaque = tuple(dict.fromkeys(o.construct for o in found.opaque))
        title = "Confirm Shell Command" + (f" (holds {', '.join(opaque)})" if opaque else "")
        return ExecConfirmation(title=title, command=params.command, root_commands=found.command_names(),
                                directory=params.directory or "", hidden_commands=bool(opaque), opaque=opaque)

    # ----- execution -------------------------------------------------------------------------------------
    def _saved_output_dir(self) -> Path:
        """One private temp directory per tool (made on first need) for outputs past the cap."""
        if self.output_dir is None:
            self.output_dir = private_output_dir(self.workspace.root)
        return self.output_dir

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ if self.env is None else self.env)
        if self.sandbox.active:  # the minimal environment: a sandboxed command sees no key, token or password
            env = self.sandbox.environment(env)
        env.update(self.ENV_MARKERS)
        return env

    def snapshot(self) -> ProtectedSnapshot:
        """The protected places of the roots and the home, fingerprinted around every command."""
        if self._snapshot is None:
            home = (self.env if self.env is not None else os.environ).get("HOME")
            self._snapshot = ProtectedSnapshot(list(self.workspace.roots), Path(home) if home else None,
                                               self.sandbox.context_names)
        self._snapshot.roots = list(self.workspace.roots)  # /directory add widens them
        return self._snapshot

    async def _execute(self, params: ShellParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        try:
            cwd = self._directory(params.directory)
        except WorkspaceError as exc:
            return ToolResult.failure(exc.kind, exc.message)
        snapshot = self.snapshot()
        await asyncio.to_thread(snapshot.before)
        result = await self._run(params, abort_signal, context, cwd)
        # inside the sandbox nothing can approve a change there (leaving it is asked for first); outside, a change
        # the user approved at a prompt, or under yolo, stays and is still named
        inside = self.sandbox.active and not params.outside_sandbox
        approved = not inside and bool(context.extra.get("approved") or context.extra.get("yolo"))
        changes = await asyncio.to_thread(snapshot.after, not approved)
        if inside:
            result = _with_sandbox_mark(result, self.sandbox.roots or list(self.workspace.roots), cwd, changes)
        return _with_changes(result, changes)

    async def _run(self, params: ShellParams, abort_signal: AbortSignal, context: CallContext,
                   cwd: Path) -> ToolResult:
        if params.outside_sandbox and self.sandbox.active:  # approved by the user (the policy asked first)
            inside = self.sandbox
            self.sandbox = Sandbox(writable=list(inside.writable), turned_off="the user, for this command")
            try:
                return await self._run(params.model_copy(update={"outside_sandbox": False}), abort_signal,
                                       context, cwd)
            finally:
                self.sandbox = inside
        directory = self.workspace.relative(cwd) if cwd != self.workspace.root else "(root)"
        if self.terminal is not None:
            # the client's terminal starts with the editor's whole environment (its keys and tokens): inside the
            # sandbox the command gets the sandbox's minimal one instead, set by bwrap itself
            try:
                argv = self.sandbox.wrap(["bash", "-c", params.command], cwd,
                                         env=self._environment() if self.sandbox.active else None)
            except SandboxUnavailable as exc:
                return ToolResult.failure(ToolErrorKind.not_allowed, f"Command refused: {exc}")
            markers = {k: v for k, v in self._environment().items()
                       if k in self.ENV_MARKERS or (k == "TMPDIR" and self.sandbox.active)}
            outcome = await self.terminal.run(argv, cwd, markers, abort_signal, context.on_output)
            return self._terminal_result(params, directory, outcome)
        private = None
        try:
            if self.sandbox.active:
                private = PrivateFolders.make(self.sandbox.private_places(), self.sandbox.private_parent)
            argv = self.sandbox.wrap(["bash", "-c", params.command], cwd, private=private)
        except SandboxUnavailable as exc:
            return ToolResult.failure(ToolErrorKind.not_allowed, f"Command refused: {exc}")
        except OSError as exc:  # no private folder could be made: the command does not run without one
            return ToolResult.failure(ToolErrorKind.execution_failed, f"Could not prepare the sandbox: {exc}")
        try:
            return await self._run_wrapped(params, abort_signal, context, cwd, directory, argv, private)
        finally:
            if private is not None:
                await asyncio.to_thread(private.discard)

    async def _run_wrapped(self, params: ShellParams, abort_signal: AbortSignal, context: CallContext, cwd: Path,
                           directory: str, argv: list[str], private: PrivateFolders | None) -> ToolResult:
        # Our own pipe, not asyncio's: Process.wait() would also wait for every background child holding it.
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, env=self._environment(),
                stdin=asyncio.subprocess.DEVNULL, stdout=write_fd, stderr=write_fd, start_new_session=True,
            )
        except OSError as exc:
            os.close(read_fd)
            return ToolResult.failure(ToolErrorKind.execution_failed, f"Could not start bash: {exc}")
        finally:
            os.close(write_fd)
        reader = asyncio.StreamReader()
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0))
        run = _Run(proc, reader, CapturedOutput(self.output_limit, self._saved_output_dir), context)
        try:
            ending = await run.wait(abort_signal, self.inactivity_timeout_s, self.total_timeout_s)
        finally:
            transport.close()
        result = self._result(params, directory, run, ending)
        refused = self.sandbox.after_command()
        if refused and isinstance(result.llm_content, str):  # the model learns why its file is gone
            note = "\nSandbox: " + "; ".join(refused)
            result = dataclasses.replace(result, llm_content=result.llm_content + note)
        if private is not None:
            written = await asyncio.to_thread(private.written)
            result = _with_private_writes(result, written, cwd, self._home())
        return result

    def _home(self) -> str | None:
        return (self.env if self.env is not None else os.environ).get("HOME")

    def _terminal_result(self, params: ShellParams, directory: str, outcome: TerminalOutcome) -> ToolResult:
        """What a run in the client's terminal tells the model: the same lines as our own run's."""
        output = plain_text(outcome.output).rstrip("\n")
        if outcome.truncated:
            output += "\n[the terminal kept only the end of the output]"
        llm = "\n".join([
            f"Command: {params.command}", f"Directory: {directory}", f"Output: {output or '(empty)'}",
            "Error: (none)", f"Exit Code: {outcome.exit_code if outcome.exit_code is not None else '(none)'}",
            f"Signal: {outcome.signal or '(none)'}", "Background PIDs: (none)", "Process Group PGID: (none)"])
        display = ShellOutput(command=params.command, directory=directory, output=outcome.output,
                              exit_code=outcome.exit_code, signal=outcome.signal, cancelled=outcome.cancelled)
        if outcome.cancelled:
            return ToolResult("Command was cancelled by the user before it could complete. Output so far:\n" + llm,
                              display, ToolError(ToolErrorKind.cancelled, "Command was cancelled."))
        return ToolResult(llm, display)

    def _result(self, params: ShellParams, directory: str, run: _Run, ending: Ending | None) -> ToolResult:
        code = run.proc.returncode
        signal_name = None
        if code is not None and code < 0:
            signal_name = _signal_name(-code)
            code = None
        output = plain_text(run.captured.text()).rstrip("\n")
        if run.binary_bytes:
            output += f"\n[{run.binary_bytes} bytes of binary output were not shown]"
        background = tuple(pid for pid in group_members(run.pgid) if pid != run.proc.pid) if not ending else ()
        lines = [
            f"Command: {params.command}",
            f"Directory: {directory}",
            f"Output: {output or '(empty)'}",
            "Error: (none)",  # stdout and stderr arrive interleaved in Output
            f"Exit Code: {code if code is not None else '(none)'}",
            f"Signal: {signal_name or '(none)'}",
            f"Background PIDs: {', '.join(map(str, background)) or '(none)'}",
            f"Process Group PGID: {run.pgid}",
        ]
        if run.captured.saved_to is not None:
            lines.append(f"Full output saved to: {run.captured.saved_to}")
        llm = "\n".join(lines)
        display = ShellOutput(
            command=params.command, directory=directory, output=run.captured.text(), exit_code=code,
            signal=signal_name, timed_out=ending in (Ending.inactivity, Ending.total),
            cancelled=ending is Ending.cancelled,
            saved_to=str(run.captured.saved_to) if run.captured.saved_to else None, background_pids=background,
        )
        match ending:
            case Ending.cancelled:
                llm = "Command was cancelled by the user before it could complete. Output so far:\n" + llm
                return ToolResult(llm, display, ToolError(ToolErrorKind.cancelled, "Command was cancelled."))
            case Ending.inactivity | Ending.total:
                what = (f"produced no output for {self.inactivity_timeout_s:g} s" if ending is Ending.inactivity
                        else f"ran longer than {self.total_timeout_s:g} s")
                message = f"Command timed out: it {what}; its process group was ended."
                return ToolResult(f"{message}\n{llm}", display, ToolError(ToolErrorKind.timeout, message))
        return ToolResult(llm, display)


# what a command prints when the sandbox stopped it: (pattern, the reason offered for running it outside)
_NETWORK_MARKS = ("Could not resolve host", "Temporary failure in name resolution", "Network is unreachable",
                  "Name or service not known", "getaddrinfo", "No address associated with hostname",
                  "Failed to establish a new connection", "could not connect to server")
# a path as the failing program printed it (absolute or relative, maybe quoted), then the error
_QUOTES = "'\"`‘’“”"
_PATH_MARK = re.compile(rf"(?:^|[\s({_QUOTES}:])([^\s:{_QUOTES}]+)[{_QUOTES}]?: (Read-only file system|Permission "
                        r"denied|No such file or directory)", re.MULTILINE)
_CD = re.compile(r"(?:^|[;&|(]|\bthen|\bdo)\s*(?:builtin\s+)?(?:cd|pushd)\s+([^\s;&|)]+)")
# names inside a root that the sandbox keeps read-only (with the context files)
_PROTECTED_PARTS = {".git", ".gemini", ".husky", ".githooks"}
_OFFER = ("If it must run outside, call run_shell_command again with outside_sandbox: true and a description saying "
          "why; the user is asked.")


def _bases(cwd: Path | None, command: str) -> list[str]:
    """Where a relative path a program printed may start: the command's folder, and each folder it `cd`s to."""
    if cwd is None:
        return []
    found = [str(cwd)]
    for target in _CD.findall(command):
        target = target.strip("'\"")
        found.append(os.path.normpath(os.path.join(found[-1], os.path.expanduser(target))))
    return list(dict.fromkeys(found))


def sandbox_mark(output: str, roots: list[Path], cwd: Path | None = None, command: str = "") -> str | None:
    """Why a command's failure looks like the sandbox's doing: no network, a write refused outside the roots
    (EROFS/EACCES on a path there), or a read-only place (EROFS anywhere: inside the roots only the protected
    places are); None when nothing says so. A relative path is read from `cwd` (where the command started) and
    from each folder the command `cd`s to."""
    for mark in _NETWORK_MARKS:
        if mark in output:
            return f"it needs the network ({mark})"

    def inside(path: str) -> bool:
        return any(path == str(r) or path.startswith(str(r).rstrip("/") + "/") for r in roots)

    for match in _PATH_MARK.finditer(output):
        written, error = match.group(1), match.group(2)
        candidates = [os.path.normpath(written)] if os.path.isabs(written) else [
            os.path.normpath(os.path.join(base, written)) for base in _bases(cwd, command)]
        if not candidates:
            continue
        if error == "Read-only file system":  # the sandbox's mark wherever it is: which place, as best we can tell
            outside = [c for c in candidates if not inside(c)]
            protected = [c for c in candidates
                         if inside(c) and (set(Path(c).parts) & _PROTECTED_PARTS or c.endswith(".md"))]
            path = (protected or outside or candidates[-1:])[0]
            named = written if written == path else f"{written} ({path})"
            if not protected and outside:
                return f"it uses {named}, {OUTSIDE_WORKSPACE} ({error} inside the sandbox)"
            return f"it writes {named}, {'a protected place, ' if protected else ''}read-only inside the sandbox"
        for path in candidates:
            # a missing path counts when its folder is there outside: the sandbox's private /tmp or hidden home
            if inside(path) or (error == "No such file or directory" and not os.path.isdir(os.path.dirname(path))):
                continue
            named = written if written == path else f"{written} ({path})"
            return f"it uses {named}, {OUTSIDE_WORKSPACE} ({error} inside the sandbox)"
    return None


OUTSIDE_WORKSPACE = "outside the workspace"


def _with_sandbox_mark(result: ToolResult, roots: list[Path], cwd: Path | None = None,
                       changes: Sequence[Change] = ()) -> ToolResult:
    """A failure with the sandbox's mark, or a protected place written and put back, is offered again outside
    with its reason: never retried silently."""
    display = result.return_display
    if not isinstance(display, ShellOutput):
        return result
    reason = None
    if display.exit_code not in (0, None):
        reason = sandbox_mark(display.output, roots, cwd, display.command)
    if reason is None and (undone := [c for c in changes if c.undone]):
        reason = f"it writes {', '.join(str(c.path) for c in undone[:3])}, a protected place the sandbox put back"
    if reason is None:
        return result
    what = "failed there" if display.exit_code not in (0, None) else "was stopped there"
    note = f"Sandbox: this ran inside the sandbox and {what}: {reason}. {_OFFER}"
    llm = result.llm_content + "\n" + note if isinstance(result.llm_content, str) else result.llm_content
    display = dataclasses.replace(display, output=display.output.rstrip("\n") + "\n" + note + "\n")
    return dataclasses.replace(result, llm_content=llm, return_display=display)


def _with_private_writes(result: ToolResult, written: dict[Path, list[Path]], cwd: Path,
                         home: str | None) -> ToolResult:
    """What a sandboxed command left in its private /tmp or hidden home is said, by name, since it is gone now;
    when the command named what it wrote there (its purpose was to make it), running it outside is offered."""
    display = result.return_display
    if not written or not isinstance(display, ShellOutput):
        return result
    lines = []
    named: list[Path] = []
    for place, paths in written.items():
        what = f"{len(paths)} file{'s' if len(paths) != 1 else ''}"
        where = (f"the sandbox's private {place}" if str(place) in ("/tmp", "/var/tmp")
                 else f"the sandbox's empty home {place}")
        shown = ", ".join(str(p) for p in paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        lines.append(f"Sandbox: wrote {what} to {where}, which is discarded when the command ends: {shown}.")
        named += [p for p in paths if _names(display.command, cwd, home, place, p)]
    if named:
        reason = (f"it writes {', '.join(str(p) for p in named[:3])}, in a private place of the sandbox that is "
                  "discarded")
        lines.append(f"Sandbox: this ran inside the sandbox and what it was run to make was discarded: {reason}. "
                     f"{_OFFER}")
    note = "\n".join(lines)
    llm = result.llm_content + "\n" + note if isinstance(result.llm_content, str) else result.llm_content
    display = dataclasses.replace(display, output=display.output.rstrip("\n") + "\n" + note + "\n")
    return dataclasses.replace(result, llm_content=llm, return_display=display)


_WORD = re.compile(r"""(?:[0-9]*>>?|<|--?[\w-]+=)?((?:[^\s;&|()<>'"]|'[^']*'|"[^"]*")+)""")


def _names(command: str, cwd: Path, home: str | None, place: Path, written: Path) -> bool:
    """Whether `command` names `written`, or a folder it is in, below `place` (not the place itself: `cd /tmp &&
    make` is not run to make /tmp): as an absolute path, `~/...`, or a path relative to where it runs or `cd`s."""
    bases = _bases(cwd, command)
    for match in _WORD.finditer(command):
        word = match.group(1).replace("'", "").replace('"', "")
        if word.startswith("~") and home:
            word = home + word[1:] if word == "~" or word.startswith("~/") else word
        paths = [os.path.normpath(word)] if os.path.isabs(word) else [
            os.path.normpath(os.path.join(base, word)) for base in bases]
        for path in paths:
            named = Path(path)
            if named != place and named.is_relative_to(place) and written.is_relative_to(named):
                return True
    return False


def _with_changes(result: ToolResult, changes: list[Change]) -> ToolResult:
    """The model and the user are told what the command changed in a protected place, and what was undone."""
    if not changes:
        return result
    undone = any(c.undone for c in changes)
    head = ("Changes to protected places (git config and hooks, .gemini/, context files, shell start-up files, "
            "~/.ssh) were undone; nobody approved them:" if undone else
            "This command changed protected places (approved, kept):")
    note = "\n".join([head, *(f"- {c.line()}" for c in changes)])
    llm = result.llm_content + "\n" + note if isinstance(result.llm_content, str) else result.llm_content
    display = result.return_display
    if isinstance(display, ShellOutput):
        display = dataclasses.replace(display, output=display.output.rstrip("\n") + "\n" + note + "\n")
    return dataclasses.replace(result, llm_content=llm, return_display=display)


def _signal_name(number: int) -> str:
    try:
        return f"{number} ({signal.Signals(number).name})"
    except ValueError:
        return str(number)


class _Run:
    """One running command: pumps its output, and ends its group on timeout or cancel."""

    def __init__(self, proc: asyncio.subprocess.Process, reader: asyncio.StreamReader, captured: CapturedOutput,
                 context: CallContext) -> None:
        self.proc = proc
        self.reader = reader
        self.pgid = proc.pid  # start_new_session makes the child the leader of a new group
        child_processes.track(self.pgid)  # background jobs it leaves may run on, but never past gemini-tui
        self.captured = captured
        self.context = context
        self.last_output = asyncio.get_running_loop().time()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.binary_bytes = 0

    def _emit(self, text: str) -> None:
        if not text:
            return
        self.captured.append(text)
        if self.context.on_output is not None:
            self.context.on_output(text)

    async def _pump(self) -> None:
        sniffed = 0
        while chunk := await self.reader.read(65536):
            self.last_output = asyncio.get_running_loop().time()
            if self.binary_bytes:
                self.binary_bytes += len(chunk)
                continue
            if sniffed < BINARY_SNIFF_BYTES and b"\x00" in chunk[: BINARY_SNIFF_BYTES - sniffed]:
                # NUL bytes early on: binary data (`cat image.png`), which neither the screen nor the model
                # can use; count it instead of decoding it into garbage
                self.binary_bytes = len(chunk)
                self._emit(self._decoder.decode(b"", final=True))
                self._emit("[Binary output detected; not shown]\n")
                continue
            sniffed += len(chunk)
            self._emit(self._decoder.decode(chunk))
        if not self.binary_bytes:
            self._emit(self._decoder.decode(b"", final=True))

    async def wait(self, abort_signal: AbortSignal, inactivity_s: float | None,
                   total_s: float | None) -> Ending | None:
        """None when the command exited by itself; else why it was ended: cancelled, inactivity or total."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        pump = asyncio.create_task(self._pump())
        exited = asyncio.create_task(self.proc.wait())
        aborted = asyncio.create_task(abort_signal.wait())
        ending: Ending | None = None
        try:
            while not exited.done():
                now = loop.time()
                deadlines = []
                if inactivity_s is not None:
                    deadlines.append((Ending.inactivity, self.last_output + inactivity_s))
                if total_s is not None:
                    deadlines.append((Ending.total, started + total_s))
                expired = [name for name, at in deadlines if at <= now]
                if expired:
                    ending = expired[-1]
                    break
                timeout = min((at for _, at in deadlines), default=None)
                await asyncio.wait({exited, aborted}, timeout=None if timeout is None else timeout - now,
                                   return_when=asyncio.FIRST_COMPLETED)
                if aborted.done() and not exited.done():
                    ending = Ending.cancelled
                    break
            if ending is not None:
                await end_group(self.pgid)
                await exited
            # the command is over; background children may hold the pipe open, so drain briefly, not to EOF
            try:
                await asyncio.wait_for(asyncio.shield(pump), timeout=0.25 if ending is None else 0.5)
            except TimeoutError:
                pass
        finally:
            for task in (pump, aborted):
                task.cancel()
            await asyncio.gather(pump, aborted, return_exceptions=True)
            if not exited.done():  # we are being cancelled ourselves: leave nothing running
                await end_group(self.pgid)
                exited.cancel()
            if not group_members(self.pgid):
                child_processes.untrack(self.pgid)
            self.captured.close()
        return ending
