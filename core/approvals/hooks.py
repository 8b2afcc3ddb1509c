"""Gemini CLI's command hooks for `BeforeTool` and `AfterTool`, as input to the approval policy.

Settings shape (as Gemini CLI): `"hooks": {"BeforeTool": [{"matcher": "run_shell_command|write_file",
"hooks": [{"type": "command", "command": "./check.sh", "timeout": 60000}]}]}`. Each hook gets the event as
JSON on stdin and answers with JSON on stdout (`{"decision": "deny", "reason": "..."}`; allow / ask / deny,
`block` = deny, `approve` = allow) or exit code 2 (deny, stderr is the reason). Other events are reported as
configured but not run. Hooks run code, so they come only from the user's settings or a trusted workspace
(config loading withholds the workspace's in an untrusted folder)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemini_tui.core.approvals.policy import Decision, Verdict
from gemini_tui.core.tooling.needs import CallNeeds

if TYPE_CHECKING:
    from gemini_tui.core.ground.tool_result import ToolResult

SUPPORTED = ("BeforeTool", "AfterTool")
KNOWN_EVENTS = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
                "BeforeToolSelection", "SessionStart", "SessionEnd", "PreCompress", "Notification")
CONFIG_FIELDS = ("enabled", "disabled", "notifications")  # keys of `hooks` that are not events
DEFAULT_TIMEOUT_MS = 60_000
_DENY = {"deny", "block"}
_ALLOW = {"allow", "approve"}


def read_hooks(data: Any, path: Path, notices: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The `hooks` object of one settings file: supported events' groups, each tagged with its file. Events
    gemini-tui does not run are reported as configured but not run."""
    if not isinstance(data, dict):
        notices.append(f"{path}: hooks must be an object of events; ignored.")
        return {}
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
            matcher = group.get("matcher")
            found.setdefault(event, []).append({"matcher": matcher if isinstance(matcher, str) else "",
                                                "hooks": commands, "source": str(path)})
    if not_run:
        notices.append(f"{path}: hooks configured but not run (gemini-tui runs only BeforeTool and AfterTool): "
                       f"{', '.join(not_run)}.")
    return found


@dataclass(frozen=True)
class HookAnswer:
    verdict: Verdict | None  # None: no opinion
    reason: str
    label: str  # "hook BeforeTool ./check.sh"
    context: str = ""  # AfterTool: hookSpecificOutput.additionalContext


class Hooks:
    """Runs the configured hooks of one session."""

    def __init__(self, config: Mapping[str, list[dict[str, Any]]], cwd: Path, session_id: str = "",
                 env: Mapping[str, str] | None = None) -> None:
        self.config = {event: list(groups) for event, groups in config.items() if event in SUPPORTED}
        self.cwd = Path(cwd)
        self.session_id = session_id
        self.env = dict(os.environ if env is None else env)

    def __bool__(self) -> bool:
        return any(self.config.values())

    def _matching(self, event: str, names: set[str]) -> list[tuple[dict[str, Any], str]]:
        found = []
        for group in self.config.get(event, []):
            matcher = group.get("matcher") or ""
            if matcher and matcher != "*":
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
        for answer in answers:
            if answer.verdict is Verdict.deny:
                return Decision(Verdict.deny, answer.label, answer.reason or f"Refused by {answer.label}.")
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
            if answer.verdict is Verdict.deny:
                text = f"The tool's output was withheld by {answer.label}: {answer.reason or 'no reason given'}"
                return ToolResult(text, result.return_display, result.error)
        extra = "\n".join(a.context for a in answers if a.context)
        if extra and isinstance(result.llm_content, str):
            return ToolResult(f"{result.llm_content}\n\n{extra}", result.return_display, result.error)
        return result

    async def _run(self, event: str, names: set[str], fields: dict[str, Any]) -> list[HookAnswer]:
        hooks = self._matching(event, names)
        if not hooks:
            return []
        payload = {"session_id": self.session_id, "transcript_path": "", "cwd": str(self.cwd),
                   "hook_event_name": event, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   **fields}
        data = json.dumps(payload).encode()
        return list(await asyncio.gather(*(self._one(event, hook, data) for hook, _ in hooks)))

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
                              f"{label} could not start ({exc}); the call is refused.", label)
        try:
            out, err = await asyncio.wait_for(proc.communicate(data), timeout / 1000)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            # fail closed: a policy hook that cannot answer refuses the call
            return HookAnswer(Verdict.deny if event == "BeforeTool" else None,
                              f"{label} did not answer within {timeout / 1000:g} s.", label)
        if proc.returncode == 2:
            reason = err.decode("utf-8", "replace").strip() or f"{label} exited with code 2"
            return HookAnswer(Verdict.deny, reason, label)
        if proc.returncode != 0:
            return HookAnswer(None, "", label)  # a warning in Gemini CLI: the call goes on
        return _parse_answer(out.decode("utf-8", "replace"), label)


def _parse_answer(text: str, label: str) -> HookAnswer:
    text = text.strip()
    if not text:
        return HookAnswer(None, "", label)
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        return HookAnswer(None, "", label)
    if not isinstance(answer, dict):
        return HookAnswer(None, "", label)
    decision = str(answer.get("decision") or "").lower()
    reason = str(answer.get("reason") or answer.get("stopReason") or "")
    specific = answer.get("hookSpecificOutput")
    context = str(specific.get("additionalContext") or "") if isinstance(specific, dict) else ""
    if answer.get("continue") is False:
        return HookAnswer(Verdict.deny, reason or "the hook stopped the call", label, context)
    if decision in _DENY:
        return HookAnswer(Verdict.deny, reason, label, context)
    if decision == "ask":
        return HookAnswer(Verdict.ask, reason, label, context)
    if decision in _ALLOW:
        return HookAnswer(Verdict.allow, reason, label, context)
    return HookAnswer(None, reason, label, context)
