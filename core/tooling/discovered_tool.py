"""Tools found by `tools.discoveryCommand` and run through `tools.callCommand`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationDetails, InfoConfirmation
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.processes import child_processes
from gemini_tui.core.processes.child_env import helper_environment
from gemini_tui.core.processes.sandbox import Sandbox, SandboxUnavailable
from gemini_tui.core.tooling.declared_tool import DeclaredParams, DeclaredTool
from gemini_tui.core.tooling.schema import SchemaError, clean_schema
from gemini_tui.core.tooling.tool import CallContext

FUNCTION_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.\-]{0,63}$")
DISCOVERY_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 600.0


DiscoveredParams = DeclaredParams  # the name other modules and tests know


class DiscoveredTool(DeclaredTool):
    """One declaration from the discovery command. Always asks before running (unless `tools.allowed`)."""

    def __init__(self, declaration: Mapping[str, Any], call_command: str, *,
                 call_timeout_s: float = CALL_TIMEOUT_S, sandbox: Sandbox | None = None,
                 cwd: str | None = None) -> None:
        self.name = str(declaration["name"])  # type: ignore[misc]
        self.display_name = self.name  # type: ignore[misc]
        self.description = (  # type: ignore[misc]
            f"{declaration.get('description') or ''}\n\nThis tool was discovered from the project by running "
            f"`tools.discoveryCommand`; it runs `{call_command} {self.name}` with the arguments as JSON on stdin. "
            "On success it returns the command's stdout; on failure, its stdout, stderr and exit code."
        ).strip()
        raw = declaration.get("parameters") or declaration.get("parametersJsonSchema") or {"type": "object"}
        super().__init__(clean_schema(raw))
        self._schema.setdefault("type", "object")
        # a JSON Schema declaration goes to the model as declared (as Gemini CLI sends it): keywords the Gemini
        # Schema subset lacks, such as "format": "uuid", are kept; the cleaned copy only checks `required`
        json_schema = declaration.get("parametersJsonSchema")
        self._json_schema = json_schema if isinstance(json_schema, dict) and not declaration.get("parameters") \
            else None
        self.call_command = call_command
        self.call_timeout_s = call_timeout_s
        self.sandbox = sandbox or Sandbox()
        self.cwd = cwd

    def function_declaration(self) -> dict[str, Any]:
        if self._json_schema is None:
            return super().function_declaration()
        return {"name": self.name, "description": self.description,
                "parameters_json_schema": {"type": "object", **self._json_schema}}

    def get_description(self, params: DiscoveredParams) -> str:
        return f"{self.name} {self.arguments_json(params)}"

    async def should_confirm_execute(self, params: DiscoveredParams,
                                     abort_signal: AbortSignal) -> ConfirmationDetails | None:
        return InfoConfirmation(
            title=f"Confirm discovered tool: {self.name}",
            prompt=f"Run `{self.call_command} {self.name}` with these arguments on stdin:\n"
                   f"{self.arguments_json(params, indent=2)}",
        )

    async def _execute(self, params: DiscoveredParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        cwd = self.cwd or os.getcwd()
        try:
            argv = self.sandbox.wrap([*shlex.split(self.call_command), self.name], cwd)
        except SandboxUnavailable as exc:
            return ToolResult.failure(ToolErrorKind.not_allowed, f"{self.name} was not run: {exc}")
        payload = json.dumps(params.model_dump()).encode()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, cwd=cwd, env=helper_environment())
        except OSError as exc:
            return ToolResult.failure(ToolErrorKind.execution_failed,
                                      f"Could not run tools.callCommand ({self.call_command}): {exc}")
        child_processes.track(proc.pid)
        try:
            return await self._talk(proc, payload, abort_signal)
        finally:
            _kill_group(proc.pid)  # with its call ends whatever it started
            child_processes.untrack(proc.pid)
            self.sandbox.after_command()  # what it planted in .git is set aside (core/processes/sandbox.py)

    async def _talk(self, proc: asyncio.subprocess.Process, payload: bytes, abort_signal: AbortSignal) -> ToolResult:
        talk = asyncio.create_task(proc.communicate(payload))
        aborted = asyncio.create_task(abort_signal.wait())
        done, _ = await asyncio.wait({talk, aborted}, timeout=self.call_timeout_s,
                                     return_when=asyncio.FIRST_COMPLETED)
        aborted.cancel()
        if talk not in done:
            _kill_group(proc.pid)
            talk.cancel()
            await asyncio.gather(talk, return_exceptions=True)
            await proc.wait()
            if abort_signal.aborted:
                return ToolResult.failure(ToolErrorKind.cancelled, f"{self.name} was cancelled.")
            return ToolResult.failure(ToolErrorKind.timeout,
                                      f"{self.name} did not finish within {self.call_timeout_s:g} s and was ended.")
        stdout_b, stderr_b = talk.result()
        stdout = stdout_b.decode("utf-8", "replace")
        stderr = stderr_b.decode("utf-8", "replace")
        code = proc.returncode
        if code == 0 and not stderr:
            return ToolResult(stdout, stdout)
        report = "\n".join([
            f"Stdout: {stdout or '(empty)'}",
            f"Stderr: {stderr or '(empty)'}",
            f"Exit Code: {code if code is not None and code >= 0 else '(none)'}",
            f"Signal: {-code if code is not None and code < 0 else '(none)'}",
        ])
        return ToolResult(report, report, ToolError(ToolErrorKind.execution_failed,
                                                     f"{self.name} failed (exit code {code})."))


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class Discovery:
    """What discovery found, and every problem with it (shown to the user; other tools still load)."""

    tools: list[DiscoveredTool] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def declarations_of(payload: Any) -> list[Any]:
    """The declarations in a discovery result: groups `{functionDeclarations: [...]}` (either spelling) or
    bare declarations, in an array (a single object is accepted too)."""
    items = payload if isinstance(payload, list) else [payload]
    found: list[Any] = []
    for item in items:
        if isinstance(item, dict) and isinstance(group := item.get("functionDeclarations",
                                                                    item.get("function_declarations")), list):
            found.extend(group)
        else:
            found.append(item)
    return found


def discover_tools(discovery_command: str, call_command: str | None, *,
                   timeout_s: float = DISCOVERY_TIMEOUT_S, cwd: str | None = None,
                   started: Callable[[subprocess.Popen[bytes]], None] | None = None,
                   sandbox: Sandbox | None = None) -> Discovery:
    """Runs the discovery command (no shell: split like a shell would) and builds a tool per declaration.
    `started` receives the process as soon as it runs (so it can be ended from elsewhere). Both commands get
    the helper environment (no credentials) and run in `sandbox` when one is on; one asked for and unusable
    means no discovery at all."""
    sandbox = sandbox or Sandbox()
    result = Discovery()
    if not call_command:
        result.errors.append("tools.discoveryCommand is set but tools.callCommand is not: discovered tools "
                             "could not be run, so none were registered.")
        return result
    try:
        argv = shlex.split(discovery_command)
    except ValueError as exc:
        result.errors.append(f"tools.discoveryCommand cannot be parsed ({exc}): {discovery_command}")
        return result
    if not argv:
        return result
    try:
        argv = sandbox.wrap(argv, cwd or os.getcwd())
    except SandboxUnavailable as exc:
        result.errors.append(f"Tool discovery was not run: {exc}")
        return result
    try:
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   cwd=cwd, start_new_session=True, env=helper_environment())
    except OSError as exc:
        result.errors.append(f"Tool discovery could not run {discovery_command}: {exc}")
        return result
    if started is not None:
        started(process)
    child_processes.track(process.pid)
    try:
        stdout, stderr_b = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)  # its own session: whatever it started ends with it
        process.communicate()
        result.errors.append(f"Tool discovery timed out after {timeout_s:g} s: {discovery_command}")
        return result
    finally:
        _kill_group(process.pid)
        child_processes.untrack(process.pid)
    if process.returncode != 0:
        stderr = stderr_b.decode("utf-8", "replace").strip()
        result.errors.append(f"Tool discovery failed (exit code {process.returncode}): {discovery_command}"
                             + (f"\n{stderr}" if stderr else ""))
        return result
    try:
        payload = json.loads(stdout.decode("utf-8", "replace") or "null")
    except json.JSONDecodeError as exc:
        result.errors.append(f"Tool discovery printed invalid JSON ({exc}): {discovery_command}")
        return result
    if not isinstance(payload, list | dict):
        result.errors.append(f"Tool discovery must print a JSON array of declarations: {discovery_command}")
        return result
    for declaration in declarations_of(payload):
        name = declaration.get("name") if isinstance(declaration, dict) else None
        if not isinstance(name, str) or not FUNCTION_NAME.match(name):
            result.errors.append(f"Discovered declaration skipped, its name is missing or invalid: {name!r}")
            continue
        try:
            result.tools.append(DiscoveredTool(declaration, call_command, sandbox=sandbox, cwd=cwd))
        except SchemaError as exc:
            result.errors.append(f"Discovered tool {name} skipped, its parameter schema cannot be used: {exc}")
    return result


class BackgroundDiscovery:
    """`discover_tools` on a thread, started at once: a slow or hanging discovery command must not hold up
    building the session (up to DISCOVERY_TIMEOUT_S). The session registers what it found (`Session.start`)."""

    def __init__(self, discovery_command: str, call_command: str | None, *, cwd: str | None = None,
                 timeout_s: float = DISCOVERY_TIMEOUT_S, sandbox: Sandbox | None = None) -> None:
        self.future: concurrent.futures.Future[Discovery] = concurrent.futures.Future()
        self.process: subprocess.Popen[bytes] | None = None
        self._stopped = False

        def started(process: subprocess.Popen[bytes]) -> None:
            self.process = process
            if self._stopped:  # stop() came before the process existed
                _kill_group(process.pid)

        def run() -> None:
            try:
                found = discover_tools(discovery_command, call_command, timeout_s=timeout_s, cwd=cwd,
                                       started=started, sandbox=sandbox)
            except Exception as exc:  # a bug guard: the session reports it as a discovery problem
                settle(self.future.set_exception, exc)
            else:
                settle(self.future.set_result, found)

        def settle(outcome: Callable[[Any], None], value: object) -> None:
            # a session that closed meanwhile cancelled the future: nobody waits for the result any more
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                outcome(value)

        threading.Thread(target=run, name="tool-discovery", daemon=True).start()

    async def result(self) -> Discovery:
        return await asyncio.wrap_future(self.future)

    def stop(self) -> None:
        """Ends the discovery command (and what it started) if it still runs: the session is closing."""
        self._stopped = True
        if self.process is not None and self.process.poll() is None:
            _kill_group(self.process.pid)
