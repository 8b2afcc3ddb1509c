"""invoke_agent: hands a task to a subagent (declared as Gemini CLI 0.61 declares it; the agents come from
core/agents/catalog.py, a run from core/agents/subagent.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from gemini_tui.core.agents.catalog import AgentCatalog
from gemini_tui.core.agents.definition import AgentDefinition
from gemini_tui.core.agents.instruction import agents_section
from gemini_tui.core.agents.subagent import AgentHost, SubagentRun, TerminateReason
from gemini_tui.core.agents.tool_choice import INVOKE_AGENT, WAIT_FOR_PREVIOUS, choose_tools
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import AgentReport
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams

_AGENT_NAME = "Name of the subagent to invoke"
_PROMPT = ("The COMPLETE query to send the subagent. MUST be comprehensive and detailed. Include all context, "
           "background, questions, and expected output format. Do NOT send brief or incomplete instructions.")
_WAIT = WAIT_FOR_PREVIOUS


class InvokeAgentParams(ToolParams):
    agent_name: str = Field(description=_AGENT_NAME)
    prompt: str = Field(description=_PROMPT)
    wait_for_previous: bool | None = Field(default=None, description=_WAIT)


class InvokeAgentTool(BaseTool[InvokeAgentParams]):
    name = INVOKE_AGENT
    display_name = "Invoke Subagent"
    description = "Invoke a subagent to perform a specific task or investigation."
    Params = InvokeAgentParams
    kind = ToolKind.other

    def __init__(self, catalog: AgentCatalog, host: AgentHost) -> None:
        self.catalog = catalog
        self.host = host
        self._slots: asyncio.Semaphore | None = None  # agents.maxParallel runs at once (made on first use)

    def function_declaration(self) -> dict[str, Any]:
        # a JSON schema, as Gemini CLI sends it (lower-case types), not the SDK's Schema
        return {"name": self.name, "description": self.description, "parametersJsonSchema": {
            "type": "object",
            "properties": {"agent_name": {"type": "string", "description": _AGENT_NAME},
                           "prompt": {"type": "string", "description": _PROMPT},
                           "wait_for_previous": {"type": "boolean", "description": _WAIT}},
            "required": ["agent_name", "prompt"]}}

    def system_section(self, model_name: str) -> str:
        return agents_section(self.catalog.enabled, model_name, self.host.plan_mode)

    def check_params(self, params: InvokeAgentParams) -> ToolError | None:
        if self.catalog.get(params.agent_name) is None:
            names = ", ".join(a.name for a in self.catalog.enabled) or "none"
            return ToolError(ToolErrorKind.invalid_params,
                             f"Subagent '{params.agent_name}' not found. Available subagents: {names}.")
        return None

    def _agent(self, params: InvokeAgentParams) -> AgentDefinition:
        agent = self.catalog.get(params.agent_name)
        assert agent is not None  # check_params refused an unknown one
        return agent

    def read_only(self, agent: AgentDefinition) -> bool:
        """An agent whose every tool (of those the session has) changes nothing."""
        return all(tool.kind.is_read_only for tool in choose_tools(agent.tools, self.host.registry))

    def get_description(self, params: InvokeAgentParams) -> str:
        return f"Delegating to agent '{params.agent_name}'"

    def needs(self, params: InvokeAgentParams) -> CallNeeds:
        return CallNeeds(read_only=self.read_only(self._agent(params)), delegates=True)

    def runs_alongside(self, params: InvokeAgentParams) -> bool:
        return not params.wait_for_previous and self.read_only(self._agent(params))

    async def _execute(self, params: InvokeAgentParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        agent = self._agent(params)
        if self._slots is None:
            self._slots = asyncio.Semaphore(max(1, self.host.max_parallel))
        progress = context.on_output
        run = SubagentRun(agent, self.host, params.prompt, context.call_id,
                          (lambda line: progress(line + "\n")) if progress is not None else None)
        async with self._slots:
            outcome = await run.run(abort_signal)
        if outcome.reason is TerminateReason.aborted:
            return ToolResult.failure(ToolErrorKind.cancelled, f"Subagent '{agent.name}' was cancelled.")
        text = outcome.for_model(agent.name)
        return ToolResult(text, AgentReport(agent.name, outcome.reason.value, outcome.result, outcome.turns,
                                            outcome.duration_s, text))
