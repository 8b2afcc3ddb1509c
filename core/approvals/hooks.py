"""Gemini CLI's command hooks, every event: BeforeTool and AfterTool as input to the approval policy, and the
agent, model and lifecycle events (`fire`, used by core/session/hook_points.py).

Settings shape (as Gemini CLI): `"hooks": {"BeforeTool": [{"matcher": "run_shell_command|write_file",
"sequential": true, "hooks": [{"type": "command", "command": "./check.sh", "timeout": 60000}]}]}`. Each hook
gets the event as JSON on stdin and answers with JSON on stdout (`decision` allow / ask / deny, `block` = deny,
`reason`, `continue: false` + `stopReason`, `systemMessage`, `suppressOutput`, `hookSpecificOutput`) or exit
code 2 (block, stderr is the reason); any other exit code is a warning. Matchers are regular expressions on the
tool name for tool events and exact words for lifecycle events (SessionStart's source, ...). A hook that hangs is
killed at its timeout, one that crashes is a warning: neither can hang or crash the session (a BeforeTool hook
that cannot answer refuses its call: it guards it). Hooks run code, so they come only from the user's settings
or a trusted workspace (config loading withholds the workspace's in an untrusted folder)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemini_tui.core.approvals.policy import Decision, Verdict
from gemini_tui.core.tooling.needs import CallNeeds

if TYPE_CHECKING:
    from gemini_tui.core.ground.tool_result import ToolResult

KNOWN_EVENTS = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
                "BeforeToolSelection", "SessionStart", "SessionEnd", "PreCompress", "Notification")
SUPPORTED = KNOWN_EVENTS
TOOL_EVENTS = ("BeforeTool", "AfterTool")
# what a hook of each event can do, for /permissions (only BeforeTool decides about a call)
POWERS = {
    "BeforeTool": "may allow, ask or deny each call, or rewrite its arguments",
    "AfterTool": "sees each call's result and may withhold it from the model or add context",
    "BeforeAgent": "sees each prompt and may add context, block the prompt or stop the agent",
    "AfterAgent": "sees each final answer and may ask the model to go on, or stop",
    "BeforeModel": "sees each model request and may change it, block it or answer instead of the model",
    "AfterModel": "sees each model response and may replace or block it",
    "BeforeToolSelection": "may narrow the tools a request offers and how the model must use them",
    "SessionStart": "runs when a session starts and may add context",
    "SessionEnd": "runs when the session ends (it cannot change anything)",
    "PreCompress": "runs before the conversation is compressed (it cannot change anything)",
    "Notification": "is told when a call waits for the user's permission (it cannot change anything)",
}
CONFIG_FIELDS = ("enabled", "disabled", "notifications")  # keys of `hooks` that are not events
DEFAULT_TIMEOUT_MS = 60_000
_DENY = {"deny", "block"}
WARNING = "Warning: "  # marks a message about the hook itself (it failed, hung, could not start)
_ALLOW = {"allow", "approve"}


def read_hooks(data: Any, path: Path, notices: list[str], config: Any = None) -> dict[str, list[dict[str, Any]]]:
    """The `hooks` object of one settings file: each event's groups, tagged with the file. `config` is the
    file's `hooksConfig`: `enabled: false` turns its hooks off, `disabled` names hooks (by name or command)
    that do not run."""
    if not isinstance(data, dict):
        notices.append(f"{path}: hooks must be an object of events; ignored.")
        return {}
    config = config if isinstance(config, dict) else {}
    if config.get("enabled") is False or data.get("enabled") is False:
        return {}
    off = {str(n) for n in [*(config.get("disabled") or []), *(data.get("disabled") or [])]
           if isinstance(n, str)}
    found: dict[str, list[dict[str, Any]]] = {}
    not_run = []
    for event, groups in data.items():
        if event in CONFIG_FIELDS:
            continue
        if event not in SUPPORTED:
            not_run.append(event)
            continue
        if not isinstance(groups, list):
            notices.append(f"{path}: hooks.{event} must be a list of hook groups; ignored.")
            continue
        for group in groups:
            hooks = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(hooks, list):
                notices.append(f"{path}: a hooks.{event} entry has no \"hooks\" list; ignored.")
                continue
            commands = [h for h in hooks if isinstance(h, dict) and h.get("type", "command") == "command"
                        and isinstance(h.get("command"), str) and h["command"].strip()]
            if len(commands) != len(hooks):
                notices.append(f"{path}: hooks.{event}: only command hooks with a \"command\" run; others ignored.")
            commands = [h for h in commands if h.get("name") not in off and h["command"] not in off]
            matcher = group.get("matcher")
            found.setdefault(event, []).append({"matcher": matcher if isinstance(matcher, str) else "",
                                                "hooks": commands, "source": str(path),
                                                "sequential": group.get("sequential") is True})
    if not_run:
        notices.append(f"{path}: unknown hook events ignored: {', '.join(not_run)}.")
    return found


@dataclass(frozen=True)
class HookAnswer:
    verdict: Verdict | None  # None: no opinion
    reason: str
    label: str  # "hook BeforeTool ./check.sh"
    context: str = ""  # hookSpecificOutput.additionalContext
    stop: bool = False  # continue: false
    stop_reason: str = ""
    message: str = ""  # systemMessage (or a warning about the hook itself)
    suppress: bool = False  # suppressOutput
    specific: Mapping[str, Any] | None = None  # hookSpecificOutput, whole


@dataclass
class HookOutcome:
    """What the hooks of one event said together: the first block or stop wins; contexts and messages add up;
    the last hook's replacement (tool_input, llm_request, llm_response) wins."""

    answers: list[HookAnswer]

    @property
    def blocked(self) -> HookAnswer | None:
        return next((a for a in self.answers if a.verdict is Verdict.deny), None)

    @property
    def stopped(self) -> HookAnswer | None:
        return next((a for a in self.answers if a.stop), None)

    @property
    def context(self) -> str:
        return "\n".join(a.context for a in self.answers if a.context)

    @property
    def messages(self) -> list[str]:
        return [a.message for a in self.answers if a.message]

    def specific(self, key: str) -> Any:
        found = None
        for answer in self.answers:
            if answer.specific and key in answer.specific:
                found = answer.specific[key]
        return found


class Hooks:
    """Runs the configured hooks of one session."""

    def __init__(self, config: Mapping[str, list[dict[str, Any]]], cwd: Path, session_id: str = "",
                 env: Mapping[str, str] | None = None) -> None:
        self.config = {event: list(groups) for event, groups in config.items() if event in SUPPORTED}
        self.cwd = Path(cwd)
        self.session_id = session_id
        self.env = dict(os.environ if env is None else env)
        self.transcript_path = ""
        # called with (text, level) for systemMessages and hook warnings
        self.report: Callable[[str, str], None] | None = None
        self.stop_requested: str | None = None  # a tool hook's `continue: false`: the session ends the turn
        self.last_tool_input: Any = None  # the last BeforeTool's hookSpecificOutput.tool_input (read at once)

    def has(self, event: str) -> bool:
        return bool(self.config.get(event))

    def __bool__(self) -> bool:
        return any(self.config.values())

    def _matching(self, event: str, names: set[str]) -> list[tuple[dict[str, Any], str]]:
        found = []
        for group in self.config.get(event, []):
            matcher = group.get("matcher") or ""
            if matcher and matcher != "*" and event not in TOOL_EVENTS:
                if names and matcher not in names:  # lifecycle events: an exact word (SessionStart's source)
                    continue
            elif matcher and matcher != "*":
                try:
                    pattern = re.compile(matcher)
                except re.error:
                    pattern = re.compile(re.escape(matcher))
                if not any(pattern.search(name) for name in names):  # a regex tested on the name, as Gemini CLI
                    continue
            found += [(hook, group.get("source", "")) for hook in group.get("hooks", [])]
        return found

    async def before_tool(self, tool: str, args: Mapping[str, Any], decision: Decision,
                          needs: CallNeeds) -> Decision:
        """The policy's `decision`, changed by BeforeTool hooks: a deny refuses, an ask asks, an allow lets a
        plain ask run (never one asked for a protected file or an opaque command)."""
        names = {tool}
        if needs.mcp_server and needs.mcp_tool:
            names.add(f"mcp_{needs.mcp_server}_{needs.mcp_tool}")
        payload = {"tool_name": tool, "tool_input": dict(args)}
        if needs.mcp_server:
            payload["mcp_context"] = {"server_name": needs.mcp_server, "tool_name": needs.mcp_tool}
        answers = await self._run("BeforeTool", names, payload)
        self.last_tool_input = HookOutcome(answers).specific("tool_input")
        for answer in answers:
            if answer.stop:
                self.stop_requested = answer.stop_reason or answer.reason or f"Stopped by {answer.label}."
                return Decision(Verdict.deny, answer.label, self.stop_requested)
        for answer in answers:
            if answer.verdict is Verdict.deny:  # worded as Gemini CLI tells the model
                return Decision(Verdict.deny, answer.label,
                                f"Tool execution blocked: {answer.reason or f'refused by {answer.label}'}")
        for answer in answers:
            if answer.verdict is Verdict.ask and decision.verdict is Verdict.allow:
                return Decision(Verdict.ask, answer.label, answer.reason, decision.grants)
        plain_ask = decision.verdict is Verdict.ask and decision.rule.startswith("approval mode")
        for answer in answers:
            if answer.verdict is Verdict.allow and plain_ask:
                return replace(decision, verdict=Verdict.allow, rule=answer.label, reason=answer.reason)
        return decision

    async def after_tool(self, tool: str, args: Mapping[str, Any], result: ToolResult) -> ToolResult:
        """AfterTool hooks see the result; a deny replaces what the model is told with the hook's reason, and
        additional context is appended to it."""
        if not self.config.get("AfterTool"):
            return result
        from gemini_tui.core.ground.tool_result import ToolResult

        content = result.llm_content if isinstance(result.llm_content, str) else "(non-text content)"
        payload = {"tool_name": tool, "tool_input": dict(args),
                   "tool_response": {"llmContent": content,
                                     "error": result.error.message if result.error else None}}
        answers = await self._run("AfterTool", {tool}, payload)
        for answer in answers:
            if answer.stop:
                self.stop_requested = answer.stop_reason or answer.reason or f"Stopped by {answer.label}."
        for answer in answers:
            if answer.verdict is Verdict.deny:
                text = answer.reason or f"The tool's output was withheld by {answer.label}."
                return ToolResult(text, result.return_display, result.error)
        extra = "\n".join(a.context for a in answers if a.context)
        if extra and isinstance(result.llm_content, str):
            return ToolResult(f"{result.llm_content}\n\n<hook_context>{extra}</hook_context>", result.return_display,
                              result.error)
        return result

    async def fire(self, event: str, fields: Mapping[str, Any], target: str | None = None) -> HookOutcome:
        """Runs the hooks of `event` (those whose matcher fits `target`, for the events that have one) and
        says what they answered together. Never raises: a hook's failure is a warning."""
        if not self.config.get(event):
            return HookOutcome([])
        try:
            answers = await self._run(event, {target} if target else set(), dict(fields))
        except Exception as exc:  # a bug here must not take the session down: the event simply had no hooks
            self._say(f"{event} hooks could not run: {exc}", "warning")
            return HookOutcome([])
        return HookOutcome(answers)

    def _say(self, text: str, level: str = "info") -> None:
        if self.report is not None:
            try:
                self.report(text, level)
            except Exception:  # a front end's problem must not break the hook's caller
                pass

    async def _run(self, event: str, names: set[str], fields: dict[str, Any]) -> list[HookAnswer]:
        hooks = self._matching(event, names)
        if not hooks:
            return []
        payload = {"session_id": self.session_id, "transcript_path": self.transcript_path, "cwd": str(self.cwd),
                   "hook_event_name": event, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   **fields}
        data = json.dumps(payload, default=str).encode()
        sequential = any(g.get("sequential") for g in self.config.get(event, []))
        if sequential:
            answers = [await self._one(event, hook, data) for hook, _ in hooks]
        else:
            answers = list(await asyncio.gather(*(self._one(event, hook, data) for hook, _ in hooks)))
        for answer in answers:
            if answer.message:  # a warning about the hook itself is said once, with the front end's own prefix
                warning = answer.message.startswith(WARNING)
                self._say(answer.message.removeprefix(WARNING), "warning" if warning else "info")
        return answers

    async def _one(self, event: str, hook: dict[str, Any], data: bytes) -> HookAnswer:
        command = hook["command"]
        label = f"hook {event} {hook.get('name') or command}"
        given = hook.get("timeout")
        timeout: float = given if isinstance(given, int | float) else DEFAULT_TIMEOUT_MS
        env = {**self.env, "GEMINI_PROJECT_DIR": str(self.cwd), "GEMINI_CLI": "1"}
        try:
            proc = await asyncio.create_subprocess_shell(
                command, cwd=self.cwd, env=env, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            return HookAnswer(Verdict.deny if event == "BeforeTool" else None,
                              f"{label} could not start ({exc}); the call is refused.", label,
                              message=f"Warning: {label} could not start ({exc}).")
        try:
            out, err = await asyncio.wait_for(proc.communicate(data), timeout / 1000)
        except (TimeoutError, asyncio.CancelledError) as exc:
            _kill_group(proc)
            await proc.wait()
            if isinstance(exc, asyncio.CancelledError):
                raise
            # fail closed: a policy hook that cannot answer refuses the call
            return HookAnswer(Verdict.deny if event == "BeforeTool" else None,
                              f"{label} did not answer within {timeout / 1000:g} s.", label,
                              message=f"Warning: {label} did not answer within {timeout / 1000:g} s; it was stopped.")
        if proc.returncode == 2:
            reason = err.decode("utf-8", "replace").strip() or f"{label} exited with code 2"
            return HookAnswer(Verdict.deny, reason, label)
        if proc.returncode != 0:  # a warning in Gemini CLI: the call goes on
            detail = err.decode("utf-8", "replace").strip()[:300]
            return HookAnswer(None, "", label, message=f"Warning: {label} failed (exit code {proc.returncode})"
                                                       + (f": {detail}" if detail else "."))
        return _parse_answer(out.decode("utf-8", "replace"), label)


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    """The hook and whatever it started (it runs in its own session, so its group is its own)."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


def _parse_answer(text: str, label: str) -> HookAnswer:
    text = text.strip()
    if not text:
        return HookAnswer(None, "", label)
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        # plain text on stdout with exit code 0: shown as a message, the action goes on (as Gemini CLI)
        return HookAnswer(None, "", label, message=text[:2000])
    if not isinstance(answer, dict):
        return HookAnswer(None, "", label, message=text[:2000])
    decision = str(answer.get("decision") or "").lower()
    reason = str(answer.get("reason") or "")
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else None
    context = str(specific.get("additionalContext") or "") if specific else ""
    common = {"context": context, "message": str(answer.get("systemMessage") or ""),
              "suppress": answer.get("suppressOutput") is True, "specific": specific}
    if answer.get("continue") is False:
        stop_reason = str(answer.get("stopReason") or reason or "the hook stopped the agent")
        return HookAnswer(None, reason, label, stop=True, stop_reason=stop_reason, **common)
    if decision in _DENY:
        return HookAnswer(Verdict.deny, reason, label, **common)
    if decision == "ask":
        return HookAnswer(Verdict.ask, reason, label, **common)
    if decision in _ALLOW:
        return HookAnswer(Verdict.allow, reason, label, **common)
    return HookAnswer(None, reason, label, **common)
