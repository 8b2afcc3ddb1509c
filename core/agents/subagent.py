"""Agents room: one subagent run: its own conversation, tools, instructions, turn and time limits, and one result.

Its tool calls go through a scheduler of its own that shares the session's approval policy, hooks,
interactivity and checkpoints: the same rules decide, the same confirmations ask (labelled with the agent),
the same sandbox and effect checks hold, since the tools are the session's own objects."""

from __future__ import annotations

import asyncio
import datetime
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from gemini_tui.core.agents.definition import INHERIT, AgentDefinition
from gemini_tui.core.agents.tool_choice import COMPLETE_TASK, WAIT_FOR_PREVIOUS, choose_tools
from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.model_api import (
    CallChunk,
    ContentPart,
    FunctionCall,
    FunctionResponse,
    ModelClient,
    ModelError,
    ModelRequest,
    RetryChunk,
    TextChunk,
    ThoughtChunk,
    ThoughtPart,
    UsageChunk,
)
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.session.abortable import until_aborted
from gemini_tui.core.session.conversation import Conversation
from gemini_tui.core.session.scheduler import Scheduler
from gemini_tui.core.tooling.registry import ToolRegistry


class TerminateReason(StrEnum):
    """Why a run ended, in Gemini CLI 0.61's words (the parent model reads them)."""

    goal = "GOAL"
    max_turns = "MAX_TURNS"
    timeout = "TIMEOUT"
    aborted = "ABORTED"
    error = "ERROR"
    no_complete_task = "ERROR_NO_COMPLETE_TASK_CALL"


@dataclass(frozen=True)
class SubagentOutcome:
    reason: TerminateReason
    result: str
    turns: int
    duration_s: float

    def for_model(self, name: str) -> str:
        return f"Subagent '{name}' finished.\nTermination Reason: {self.reason.value}\nResult:\n{self.result}"


@dataclass
class AgentHost:
    """What a subagent borrows from the session that calls it: its tools (the most any agent may have), its
    scheduler (policy, hooks, interactivity, checkpoints), its counters, its model and how to build another, its
    root and its GEMINI.md text."""

    registry: ToolRegistry
    scheduler: Scheduler
    model: Callable[[], ModelClient]
    root: Path
    model_factory: Callable[[str], tuple[ModelClient, str | None]] | None = None
    memory: Callable[[], str] = lambda: ""
    stats: Any = None  # core.session.stats.SessionStats: the agent's tokens count to the session's
    max_parallel: int = 4
    _models: dict[str, ModelClient] = field(default_factory=dict)

    def model_for(self, name: str) -> ModelClient:
        current = self.model()
        if name in ("", INHERIT, current.model_name) or self.model_factory is None:
            return current
        if name not in self._models:
            self._models[name] = self.model_factory(name)[0]
        return self._models[name]

    @property
    def plan_mode(self) -> bool:
        return self.scheduler.approval_mode is ApprovalMode.plan


def complete_task_declaration(agent: AgentDefinition) -> dict[str, Any]:
    """`complete_task` as Gemini CLI 0.61 declares it for this agent."""
    if agent.output is not None:
        description = ("Call this tool to submit your final answer and complete the task. This is the ONLY way to "
                       "finish.")
        properties: dict[str, Any] = {agent.output.name: agent.output.schema}
        required = [agent.output.name]
    else:
        description = ("Call this tool to submit your final findings and complete the task. This is the ONLY way "
                       "to finish.")
        properties = {"result": {"type": "string", "description": (
            "Your final results or findings to return to the orchestrator. Ensure this is comprehensive and "
            "follows any formatting requested in your instructions.")}}
        required = ["result"]
    # every tool of Gemini CLI 0.61 has `wait_for_previous`, this one too; a JSON schema, as it sends it
    properties["wait_for_previous"] = {"type": "boolean", "description": WAIT_FOR_PREVIOUS}
    return {"name": COMPLETE_TASK, "description": description,
            "parametersJsonSchema": {"type": "object", "properties": properties, "required": required}}


def submitted(agent: AgentDefinition, args: dict[str, Any]) -> tuple[str | None, str]:
    """The result a `complete_task` call gives (None and why when its arguments are not one)."""
    if agent.output is None:
        result = args.get("result")
        if not isinstance(result, str) or not result.strip():
            return None, ('Missing required "result" argument. You must provide your findings when calling '
                          f"{COMPLETE_TASK}.")
        return result, ""
    value = args.get(agent.output.name)
    if value is None:
        return None, f"Missing required argument '{agent.output.name}' for completion."
    required = agent.output.schema.get("required", [])
    missing = [key for key in required if not isinstance(value, dict) or key not in value]
    if missing:
        return None, f"Output validation failed: missing {', '.join(missing)} in '{agent.output.name}'."
    return (value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)), ""


def system_instruction(agent: AgentDefinition, host: AgentHost, prompt: str) -> str:
    sections = [agent.system_prompt.replace("${" + agent.input_name + "}", prompt)]
    if memory := host.memory().strip():
        sections.append(f"# Context from the user's GEMINI.md files\n\n{memory}")
    today = datetime.date.today().isoformat()
    sections.append(f"# Environment\n\nThe project root is {host.root}; today is {today}.")
    if host.plan_mode:
        sections.append("# Plan mode\n\nThe session is in plan mode: tools that change files or run commands are "
                        "refused. Investigate and report; change nothing.")
    finish = (f"call `{COMPLETE_TASK}` with your structured output (`{agent.output.name}`)" if agent.output
              else f"call `{COMPLETE_TASK}` with everything you found in `result`, in the form your instructions ask")
    sections.append(
        "# How this run works\n\n"
        "* Nobody can answer a question during this run: decide for yourself and say what you decided.\n"
        "* Use absolute paths inside the project root.\n"
        "* When the user rejects a call, do not try it again: find another way, or report what blocks you.\n"
        f"* When you are done, {finish}, and call no other tool in that turn. A run that stops without "
        f"`{COMPLETE_TASK}` has failed.")
    return "\n\n".join(sections)


class SubagentRun:
    """Runs `agent` on `prompt` once. `progress` receives one line per step (the calls it makes, its text), for
    the invoke_agent call's live output. `call_id` is that call's, so front ends group this run's calls."""

    def __init__(self, agent: AgentDefinition, host: AgentHost, prompt: str, call_id: str = "",
                 progress: Callable[[str], None] | None = None) -> None:
        self.agent = agent
        self.host = host
        self.prompt = prompt
        self.call_id = call_id
        self.progress = progress or (lambda line: None)
        self.conversation = Conversation()
        self.registry = ToolRegistry()
        for tool in choose_tools(agent.tools, host.registry):
            self.registry.register(tool)
        parent = host.scheduler
        self.scheduler = Scheduler(self.registry, parent.bus, parent.stats, policy=parent.policy,
                                   interactive=parent.interactive, hooks=parent.hooks)
        self.scheduler.agent = agent.name
        self.scheduler.parent_call_id = call_id
        self.scheduler.before_change = parent.before_change
        self.scheduler.after_change = parent.after_change
        self.turns = 0
        self._declared: tuple[tuple[tuple[int, str], ...], tuple[dict[str, Any], ...]] | None = None

    def declarations(self) -> tuple[dict[str, Any], ...]:
        """Its tools' declarations and complete_task's, built again only when its tools change (a declaration is
        a schema worked out by pydantic: a few ms, which every request of every running agent paid)."""
        key = tuple((id(tool), tool.name) for tool in self.registry.offered())
        if self._declared is None or self._declared[0] != key:
            self._declared = key, (*self.registry.function_declarations(), complete_task_declaration(self.agent))
        return self._declared[1]

    async def run(self, abort: AbortSignal) -> SubagentOutcome:
        started = time.monotonic()
        signal = abort.child()
        try:
            async with asyncio.timeout(self.agent.timeout_minutes * 60):
                reason, result = await self._loop(signal)
        except TimeoutError:
            signal.abort("the agent's time limit")
            minutes = f"{self.agent.timeout_minutes:g}"
            reason, result = TerminateReason.timeout, f"Agent timed out after {minutes} minutes."
        if abort.aborted and reason is not TerminateReason.goal:
            reason, result = TerminateReason.aborted, "Agent execution was terminated before completion."
        return SubagentOutcome(reason, result, self.turns, time.monotonic() - started)

    async def _loop(self, abort: AbortSignal) -> tuple[TerminateReason, str]:
        model = self.host.model_for(self.agent.model)
        instruction = system_instruction(self.agent, self.host, self.prompt)
        try:
            first = self.agent.first_message(self.prompt)
        except ValueError as exc:
            return TerminateReason.error, f"The agent's query could not be filled: {exc}"
        self.conversation.append_user([TextPart(first)])
        for _ in range(self.agent.max_turns):
            if abort.aborted:
                return TerminateReason.aborted, "Agent execution was terminated before completion."
            self.turns += 1
            try:
                calls = await self._ask_model(model, instruction, abort)
            except ModelError as exc:
                return TerminateReason.error, f"The model request failed: {exc.message}"
            if abort.aborted:
                return TerminateReason.aborted, "Agent execution was terminated before completion."
            if not calls:
                return (TerminateReason.no_complete_task,
                        f"Agent stopped calling tools but did not call '{COMPLETE_TASK}'.")
            done, responses = await self._run_calls(calls, abort)
            self.conversation.append_responses(responses)
            if done is not None:
                return TerminateReason.goal, done
        return TerminateReason.max_turns, f"Agent reached max turns limit ({self.agent.max_turns})."

    async def _ask_model(self, model: ModelClient, instruction: str, abort: AbortSignal) -> list[FunctionCall]:
        request = ModelRequest(self.conversation.snapshot(), instruction, self.declarations(),
                               temperature=self.agent.temperature)
        parts: list[ContentPart] = []
        calls: list[FunctionCall] = []
        async for chunk in until_aborted(model.stream(request, abort), abort):
            match chunk:
                case TextChunk(text=text):
                    if parts and isinstance(parts[-1], TextPart):
                        parts[-1] = TextPart(parts[-1].text + text)
                    else:
                        parts.append(TextPart(text))
                case ThoughtChunk(text=text, signature=signature):
                    parts.append(ThoughtPart(text, signature))
                case CallChunk(call=call):
                    parts.append(call)
                    calls.append(call)
                case UsageChunk(usage=usage):
                    if self.host.stats is not None:
                        self.host.stats.model(model.model_name).tokens.add(usage)
                case RetryChunk(discard_partial=True):
                    parts, calls = [], []
                case _:
                    pass
        if abort.aborted:
            self.conversation.keep_partial(parts)
            return []
        for part in parts:
            if isinstance(part, TextPart) and part.text.strip():
                self.progress(part.text.strip().splitlines()[0][:200])
        self.conversation.append_model(parts)
        return calls

    async def _run_calls(self, calls: list[FunctionCall],
                         abort: AbortSignal) -> tuple[str | None, list[FunctionResponse]]:
        finishing = [call for call in calls if call.name == COMPLETE_TASK]
        others = [call for call in calls if call.name != COMPLETE_TASK]
        for call in others:
            self.progress(f"→ {call.name} {_short(call.args)}")
        responses = await self.scheduler.run(others, abort) if others else []
        for response in responses:
            failed = "error" in response.response
            self.progress(f"{'✗' if failed else '✓'} {response.name}")
        done: str | None = None
        for call in finishing:
            if done is not None:
                responses.append(FunctionResponse(call.id, call.name, {"error": "The task was already completed."}))
                continue
            result, problem = submitted(self.agent, dict(call.args))
            if result is None:
                responses.append(FunctionResponse(call.id, call.name, {"error": problem}))
                self.progress(f"✗ {COMPLETE_TASK}: {problem}")
                continue
            done = result
            responses.append(FunctionResponse(call.id, call.name, {"output": "Output submitted and task completed."}))
            self.progress(f"✓ {COMPLETE_TASK}")
        return done, responses


def _short(args: dict[str, Any], limit: int = 80) -> str:
    text = json.dumps(args, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
