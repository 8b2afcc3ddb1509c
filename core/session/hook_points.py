"""Session room: where the agent, model and lifecycle hook events fire (BeforeAgent, AfterAgent, BeforeModel,
BeforeToolSelection, AfterModel, SessionStart, SessionEnd, PreCompress), with the stable request and response
shapes Gemini CLI gives hooks. `HookPoints` is built once per session and given to the parts that fire them; the
hooks themselves run in core/approvals/hooks.py (a hung or failing hook is a warning, never the session's end)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gemini_tui.core.ground.events import Notice, TurnEndReason
from gemini_tui.core.ground.model_api import (
    Content,
    CutShortChunk,
    FunctionCalling,
    ModelChunk,
    ModelError,
    ModelRequest,
    RetryChunk,
    TextChunk,
    UsageChunk,
)
from gemini_tui.core.ground.parts import TextPart

if TYPE_CHECKING:
    from gemini_tui.core.approvals.hooks import HookAnswer, Hooks
    from gemini_tui.core.ground.abort import AbortSignal
    from gemini_tui.core.ground.events import Usage
    from gemini_tui.core.ground.model_api import ContentPart, ModelClient
    from gemini_tui.core.session.conversation import Conversation
    from gemini_tui.core.session.state import SessionState

    RunAgain = Callable[[AbortSignal], Awaitable[tuple[TurnEndReason, str]]]

AFTER_AGENT_RETRIES = 3  # an AfterAgent hook that keeps denying does not loop forever
HOOK_BLOCKED = "hook_blocked"  # a ModelError kind: the turn ends, completed
HOOK_STOPPED = "hook_stopped"  # a ModelError kind: a model hook's `continue: false` ends the agent loop


def stop_message(stopped: HookAnswer, *, shown: bool = True) -> str:
    """What a hook's `continue: false` ends the run with, worded as Gemini CLI's: its systemMessage (an agent
    hook's; `shown` False for a model hook's, as Gemini CLI passes only the reason on), else its stopReason
    (else its reason)."""
    return f"Agent execution stopped: {(shown and stopped.message.strip()) or stopped.stop_reason}"


class HookPoints:
    """The session's hooks at the points of its turn loop: given once to the parts that fire them (the model
    turn, the compressor) and called by the loop. `hooks` None: every point passes straight through. `run_again`
    runs the model turns again when an AfterAgent hook sends a prompt back."""

    def __init__(self, hooks: Hooks | None, state: SessionState, run_again: RunAgain) -> None:
        self.hooks = hooks
        self.state = state
        self.run_again = run_again
        self.session_started = False  # SessionStart (startup) fires with the first prompt
        self.background: set[asyncio.Task[None]] = set()  # /clear's hooks, never waited for
        if hooks is not None:  # the hooks' voice: notices on the session's bus
            hooks.report = lambda text, level: state.bus.publish(Notice(text, level))

    async def before_agent(self, parts: list[ContentPart], prompt: str) -> Gate:
        """SessionStart (once, at the first prompt) adds its context; BeforeAgent may add context, block the
        prompt (it is discarded) or stop (it is kept)."""
        hooks = self.hooks
        if hooks is None:
            return Gate(parts)
        started, self.session_started = self.session_started, True
        if not started and hooks.has("SessionStart"):
            outcome = await hooks.fire("SessionStart", {"source": "startup"}, "startup")
            if outcome.context:  # before the prompt, in its words, as Gemini CLI's headless mode does
                parts = _before_first_text(parts, f"<hook_context>{outcome.context}</hook_context>\n\n")
        if not hooks.has("BeforeAgent"):
            return Gate(parts)
        outcome = await hooks.fire("BeforeAgent", {"prompt": prompt})
        if (stopped := outcome.stopped) is not None:
            return Gate(parts, (TurnEndReason.stopped, stop_message(stopped)), keep=True)
        if (blocked := outcome.blocked) is not None:  # worded as Gemini CLI: the hook's message, else its reason
            why = blocked.message.strip() or blocked.reason or f"the prompt was blocked by {blocked.label}"
            return Gate(parts, (TurnEndReason.blocked, f"Agent execution blocked: {why}"), keep=False)
        if outcome.context:
            parts = [*parts, TextPart(f"<hook_context>{outcome.context}</hook_context>")]
        return Gate(parts)

    async def after_agent(self, prompt: str, ended: tuple[TurnEndReason, str],
                          abort: AbortSignal) -> tuple[TurnEndReason, str]:
        """AfterAgent sees the final answer: a deny sends its reason back as a new prompt (a retry), a stop ends
        the session's turn, clearContext forgets the conversation."""
        hooks, conversation = self.hooks, self.state.conversation
        retries = 0
        while hooks is not None and hooks.has("AfterAgent") and ended[0] is TurnEndReason.completed:
            outcome = await hooks.fire("AfterAgent", {"prompt": prompt, "prompt_response": _last_model_text(
                conversation), "stop_hook_active": retries > 0})
            if outcome.specific("clearContext") is True:
                conversation.clear()
            if (stopped := outcome.stopped) is not None:
                return TurnEndReason.stopped, stop_message(stopped)
            blocked = outcome.blocked
            if blocked is None or retries >= AFTER_AGENT_RETRIES or abort.aborted:
                return ended
            retries += 1
            conversation.append_user([TextPart(blocked.reason or "Please try again.")])
            ended = await self.run_again(abort)
        return ended

    def model_stream(self, model: ModelClient, request: ModelRequest,
                     abort: AbortSignal) -> AsyncIterator[ModelChunk]:
        """`model`'s stream with the model events' hooks applied (see `model_stream`)."""
        return model_stream(self.hooks, model, request, abort)

    async def pre_compress(self, trigger: str) -> None:
        if self.hooks is not None and self.hooks.has("PreCompress"):
            await self.hooks.fire("PreCompress", {"trigger": trigger}, trigger)

    async def session_end(self, reason: str) -> None:
        if self.hooks is not None and self.hooks.has("SessionEnd"):
            await self.hooks.fire("SessionEnd", {"reason": reason}, reason)

    def on_clear(self) -> None:
        """`/clear`: SessionEnd (clear) then SessionStart (clear), in the background (clearing never waits)."""
        hooks = self.hooks
        if hooks is None or not (hooks.has("SessionEnd") or hooks.has("SessionStart")):
            return

        async def both() -> None:
            await self.session_end("clear")
            outcome = await hooks.fire("SessionStart", {"source": "clear"}, "clear")
            if outcome.context:
                self.state.conversation.append_user([TextPart(outcome.context)])

        self._in_background(both())

    def stop_requested(self) -> tuple[TurnEndReason, str] | None:
        """A tool hook's `continue: false`: the whole agent loop ends here."""
        hooks = self.hooks
        if hooks is None or not hooks.stop_requested:
            return None
        reason, hooks.stop_requested = hooks.stop_requested, None
        return TurnEndReason.stopped, f"Agent execution stopped: {reason}"

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work)
        except RuntimeError:  # no running loop (a synchronous caller): nothing to run the hooks on
            work.close()
            return
        self.background.add(task)
        task.add_done_callback(self.background.discard)


def _text(parts: Sequence[object]) -> str:
    return "".join(p.text for p in parts if isinstance(p, TextPart))


def llm_request(request: ModelRequest, model: str) -> dict[str, Any]:
    """Gemini CLI's stable LLMRequest: the model, the messages as text, the config."""
    messages = []
    if request.system_instruction:
        messages.append({"role": "system", "content": request.system_instruction})
    for content in request.contents:
        text = _text(content.parts)
        if text:
            messages.append({"role": content.role, "content": text})
    config: dict[str, Any] = {}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    names = [d.get("name") for d in request.tools]
    return {"model": model, "messages": messages, "config": config,
            "toolConfig": {"mode": "AUTO", "allowedFunctionNames": names}}


def llm_response(text: str, finish: str = "", usage: Usage | None = None) -> dict[str, Any]:
    """Gemini CLI's stable LLMResponse of one streamed response: its text, the candidate's text parts, and on
    the last one the finish reason and the usage."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [text] if text else []}}
    if finish:
        candidate["finishReason"] = finish
    response: dict[str, Any] = {"candidates": [candidate]}
    if text:
        response["text"] = text
    if usage is not None:
        response["usageMetadata"] = {"promptTokenCount": usage.prompt_tokens,
                                     "candidatesTokenCount": usage.candidates_tokens,
                                     "totalTokenCount": usage.total_tokens}
    return response


def _response_text(response: Any) -> str | None:
    """The text of a hook's LLMResponse (its first candidate's parts), None when it is not one."""
    if not isinstance(response, dict):
        return None
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return None
    parts = (candidates[0].get("content") or {}).get("parts") or []
    texts = [p if isinstance(p, str) else p.get("text", "") if isinstance(p, dict) else "" for p in parts]
    return "".join(texts)


# -- BeforeAgent / AfterAgent ---------------------------------------------------------------------------------------
@dataclass
class Gate:
    parts: list[ContentPart]
    end: tuple[TurnEndReason, str] | None = None
    keep: bool = True  # the prompt stays in history (a stop keeps it, a deny discards it)


def _before_first_text(parts: list[ContentPart], prefix: str) -> list[ContentPart]:
    for index, part in enumerate(parts):
        if isinstance(part, TextPart):
            return [*parts[:index], TextPart(prefix + part.text), *parts[index + 1:]]
    return [TextPart(prefix.rstrip()), *parts]


def _last_model_text(conversation: Conversation) -> str:
    for content in reversed(list(conversation)):
        if content.role == "model":
            text = _text(content.parts)
            if text:
                return text
    return ""


# -- the model request ----------------------------------------------------------------------------------------------
async def model_stream(hooks: Hooks | None, model: ModelClient, request: ModelRequest,
                       abort: AbortSignal) -> AsyncIterator[ModelChunk]:
    """`model`'s stream with BeforeToolSelection, BeforeModel (block, rewrite, or answer instead of the model)
    and AfterModel (per chunk: replace or block) applied. A block raises ModelError (the turn ends with it)."""
    if hooks is None or not any(hooks.has(e) for e in ("BeforeToolSelection", "BeforeModel", "AfterModel")):
        async for chunk in model.stream(request, abort):
            yield chunk
        return
    name = model.model_name
    if hooks.has("BeforeToolSelection"):
        request = await _select_tools(hooks, request, name)
    if hooks.has("BeforeModel"):
        outcome = await hooks.fire("BeforeModel", {"llm_request": llm_request(request, name)})
        if (stopped := outcome.stopped) is not None:
            raise ModelError(stop_message(stopped, shown=False), kind=HOOK_STOPPED)
        if (blocked := outcome.blocked) is not None:
            # as Gemini CLI 0.61: a blocked request answers with the hook's synthetic response when it gives one,
            # else the turn ends quietly (the session says why in a notice)
            synthetic = _response_text(outcome.specific("llm_response"))
            if synthetic is not None:
                yield TextChunk(synthetic)
                return
            raise ModelError(blocked.reason or f"The model request was blocked by {blocked.label}.",
                             kind=HOOK_BLOCKED)
        request = _rewritten(request, outcome.specific("llm_request"))
    if not hooks.has("AfterModel"):
        async for chunk in model.stream(request, abort):
            yield chunk
        return
    async for chunk in _after_model(hooks, model, request, name, abort):
        yield chunk


async def _after_model(hooks: Hooks, model: ModelClient, request: ModelRequest, name: str,
                       abort: AbortSignal) -> AsyncIterator[ModelChunk]:
    """AfterModel for every response, as Gemini CLI fires it per streamed response: each piece of text, and
    the last response (a call-only answer too) with its finish reason and usage. The newest text is held
    until the next piece arrives, so the hook that sees the last one can still replace it."""
    pending: TextChunk | None = None
    held: list[ModelChunk] = []  # what came after the last text: calls, usage, a cut-short notice
    finish = "STOP"
    usage: Usage | None = None
    async for chunk in model.stream(request, abort):
        if isinstance(chunk, RetryChunk) and chunk.discard_partial:
            pending, held = None, []
        if isinstance(chunk, UsageChunk):
            usage = chunk.usage
        elif isinstance(chunk, CutShortChunk):
            finish = chunk.finish_reason
        if isinstance(chunk, TextChunk):
            if pending is not None:
                yield await _after_one(hooks, request, name, pending, "", None)
            for waiting in held:
                yield waiting
            pending, held = chunk, []
        else:
            held.append(chunk)
    last = await _after_one(hooks, request, name, pending or TextChunk(""), finish, usage)
    if last.text:
        yield last
    for waiting in held:
        yield waiting


async def _after_one(hooks: Hooks, request: ModelRequest, name: str, chunk: TextChunk, finish: str,
                     usage: Usage | None) -> TextChunk:
    outcome = await hooks.fire("AfterModel", {"llm_request": llm_request(request, name),
                                              "llm_response": llm_response(chunk.text, finish, usage)})
    if (stopped := outcome.stopped) is not None:
        raise ModelError(stop_message(stopped, shown=False), kind=HOOK_STOPPED)
    if (blocked := outcome.blocked) is not None:
        raise ModelError(blocked.reason or f"The model's answer was blocked by {blocked.label}.",
                         kind="hook_blocked_answer")
    replaced = _response_text(outcome.specific("llm_response"))
    return TextChunk(replaced) if replaced is not None else chunk


async def _select_tools(hooks: Hooks, request: ModelRequest, model: str) -> ModelRequest:
    """BeforeToolSelection's toolConfigs merged as Gemini CLI merges them (NONE wins, then ANY, else AUTO; the
    names of all of them) become the request's functionCallingConfig; the names also narrow the declared set."""
    outcome = await hooks.fire("BeforeToolSelection", {"llm_request": llm_request(request, model)})
    configs: list[dict[str, Any]] = [config for a in outcome.answers if a.specific
                                     and isinstance(config := a.specific.get("toolConfig"), dict)]
    if not configs:
        return request
    modes = {str(c.get("mode") or "").upper() for c in configs}
    allowed: set[str] = set()
    for config in configs:
        names = config.get("allowedFunctionNames")
        if isinstance(names, list):
            allowed |= {str(n) for n in names}
    if "NONE" in modes:
        return replace(request, function_calling=FunctionCalling("NONE"))
    mode = "ANY" if "ANY" in modes else "AUTO"
    tools = tuple(d for d in request.tools if d.get("name") in allowed) if allowed else request.tools
    return replace(request, tools=tools, function_calling=FunctionCalling(mode, tuple(sorted(allowed))))


def _rewritten(request: ModelRequest, changes: Any) -> ModelRequest:
    """BeforeModel's llm_request: its config (temperature) and, when it gives messages, the conversation's text
    as the hook wrote it (system messages become the system instruction)."""
    if not isinstance(changes, dict):
        return request
    config = changes.get("config")
    if isinstance(config, dict) and isinstance(config.get("temperature"), int | float):
        request = replace(request, temperature=float(config["temperature"]))
    messages = changes.get("messages")
    if isinstance(messages, list) and messages:
        system = "\n".join(str(m.get("content", "")) for m in messages
                           if isinstance(m, dict) and m.get("role") == "system")
        contents = tuple(Content("model" if m.get("role") == "model" else "user", [TextPart(str(m.get("content")))])
                         for m in messages if isinstance(m, dict) and m.get("role") in ("user", "model"))
        if contents:
            request = replace(request, contents=contents, system_instruction=system or request.system_instruction)
    return request
