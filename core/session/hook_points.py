"""Session room: where the agent, model and lifecycle hook events fire (BeforeAgent, AfterAgent, BeforeModel,
BeforeToolSelection, AfterModel, SessionStart, SessionEnd, PreCompress), with the stable request and response
shapes Gemini CLI gives hooks. The session calls these in a few lines; the hooks themselves run in
core/approvals/hooks.py (a hung or failing hook is a warning, never the session's end)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gemini_tui.core.ground.events import Notice, TurnEndReason
from gemini_tui.core.ground.model_api import Content, ModelChunk, ModelError, ModelRequest, TextChunk
from gemini_tui.core.ground.parts import TextPart

if TYPE_CHECKING:
    from gemini_tui.core.ground.abort import AbortSignal
    from gemini_tui.core.ground.model_api import ContentPart

AFTER_AGENT_RETRIES = 3  # an AfterAgent hook that keeps denying does not loop forever
HOOK_BLOCKED = "hook_blocked"  # a ModelError kind: the turn ends, completed


def hooks_of(session: Any) -> Any:
    return getattr(getattr(session, "scheduler", None), "hooks", None)


def attach(session: Any) -> None:
    """Gives the session's hooks a voice (notices on its bus) and to the parts that fire model and compression
    events (its model turn and its compressor)."""
    hooks = hooks_of(session)
    if hooks is None:
        return
    bus = session.bus
    hooks.report = lambda text, level: bus.publish(Notice(text, level))
    for part in (getattr(session, "model_turn", None), getattr(session, "compressor", None)):
        if part is not None:
            part.hooks = hooks


def _text(parts: Sequence[Any]) -> str:
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


def llm_response(text: str, finish: str = "") -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [text] if text else []}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


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


async def before_agent(session: Any, parts: list[ContentPart], prompt: str) -> Gate:
    """SessionStart (once, at the first prompt) adds its context; BeforeAgent may add context, block the prompt
    (it is discarded) or stop (it is kept)."""
    hooks = hooks_of(session)
    if hooks is None:
        return Gate(parts)
    started = getattr(session, "_session_started", False)
    session._session_started = True
    if not started and hooks.has("SessionStart"):
        outcome = await hooks.fire("SessionStart", {"source": "startup"}, "startup")
        if outcome.context:  # before the prompt, in its words, as Gemini CLI's headless mode does
            parts = _before_first_text(parts, f"<hook_context>{outcome.context}</hook_context>\n\n")
    if not hooks.has("BeforeAgent"):
        return Gate(parts)
    outcome = await hooks.fire("BeforeAgent", {"prompt": prompt})
    if (stopped := outcome.stopped) is not None:
        return Gate(parts, (TurnEndReason.error, stopped.stop_reason), keep=True)
    if (blocked := outcome.blocked) is not None:
        return Gate(parts, (TurnEndReason.error, blocked.reason or f"The prompt was blocked by {blocked.label}."),
                    keep=False)
    if outcome.context:
        parts = [*parts, TextPart(f"<hook_context>{outcome.context}</hook_context>")]
    return Gate(parts)


def _before_first_text(parts: list[ContentPart], prefix: str) -> list[ContentPart]:
    for index, part in enumerate(parts):
        if isinstance(part, TextPart):
            return [*parts[:index], TextPart(prefix + part.text), *parts[index + 1:]]
    return [TextPart(prefix.rstrip()), *parts]


async def after_agent(session: Any, prompt: str, ended: tuple[TurnEndReason, str],
                      abort: AbortSignal) -> tuple[TurnEndReason, str]:
    """AfterAgent sees the final answer: a deny sends its reason back as a new prompt (a retry), a stop ends
    the session's turn, clearContext forgets the conversation."""
    hooks = hooks_of(session)
    retries = 0
    while hooks is not None and hooks.has("AfterAgent") and ended[0] is TurnEndReason.completed:
        answer = _last_model_text(session)
        outcome = await hooks.fire("AfterAgent", {"prompt": prompt, "prompt_response": answer,
                                                  "stop_hook_active": retries > 0})
        if outcome.specific("clearContext") is True:
            session.conversation.clear()
        if (stopped := outcome.stopped) is not None:
            return TurnEndReason.completed, stopped.stop_reason
        blocked = outcome.blocked
        if blocked is None or retries >= AFTER_AGENT_RETRIES or abort.aborted:
            return ended
        retries += 1
        session.conversation.append_user([TextPart(blocked.reason or "Please try again.")])
        ended = await session._run(abort)
    return ended


def _last_model_text(session: Any) -> str:
    for content in reversed(list(session.conversation)):
        if content.role == "model":
            text = _text(content.parts)
            if text:
                return text
    return ""


# -- the model request ----------------------------------------------------------------------------------------------
async def model_stream(hooks: Any, model: Any, request: ModelRequest,
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
            raise ModelError(stopped.stop_reason, kind="hook_stopped")
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
    after = hooks.has("AfterModel")
    async for chunk in model.stream(request, abort):
        if after and isinstance(chunk, TextChunk):
            outcome = await hooks.fire("AfterModel", {"llm_request": llm_request(request, name),
                                                      "llm_response": llm_response(chunk.text)})
            if (stopped := outcome.stopped) is not None:
                raise ModelError(stopped.stop_reason, kind="hook_stopped")
            if (blocked := outcome.blocked) is not None:
                raise ModelError(blocked.reason or f"The model's answer was blocked by {blocked.label}.",
                                 kind="hook_blocked_answer")
            replaced = _response_text(outcome.specific("llm_response"))
            if replaced is not None:
                chunk = TextChunk(replaced)
        yield chunk


async def _select_tools(hooks: Any, request: ModelRequest, model: str) -> ModelRequest:
    outcome = await hooks.fire("BeforeToolSelection", {"llm_request": llm_request(request, model)})
    configs = [a.specific.get("toolConfig") for a in outcome.answers
               if a.specific and isinstance(a.specific.get("toolConfig"), dict)]
    if not configs:
        return request
    if any(str(c.get("mode", "")).upper() == "NONE" for c in configs):
        return replace(request, tools=())
    allowed: set[str] = set()
    for config in configs:
        names = config.get("allowedFunctionNames")
        if isinstance(names, list):
            allowed |= {str(n) for n in names}
    if not allowed:
        return request
    return replace(request, tools=tuple(d for d in request.tools if d.get("name") in allowed))


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


# -- lifecycle ------------------------------------------------------------------------------------------------------
async def session_end(session: Any, reason: str) -> None:
    hooks = hooks_of(session)
    if hooks is not None and hooks.has("SessionEnd"):
        await hooks.fire("SessionEnd", {"reason": reason}, reason)


def on_clear(session: Any) -> None:
    """`/clear`: SessionEnd (clear) then SessionStart (clear), in the background (clearing never waits)."""
    hooks = hooks_of(session)
    if hooks is None or not (hooks.has("SessionEnd") or hooks.has("SessionStart")):
        return

    async def both() -> None:
        await session_end(session, "clear")
        outcome = await hooks.fire("SessionStart", {"source": "clear"}, "clear")
        if outcome.context:
            session.conversation.append_user([TextPart(outcome.context)])

    try:
        task = asyncio.get_running_loop().create_task(both())
    except RuntimeError:
        return
    session._background.add(task)
    task.add_done_callback(session._background.discard)


async def pre_compress(hooks: Any, trigger: str) -> None:
    if hooks is not None and hooks.has("PreCompress"):
        await hooks.fire("PreCompress", {"trigger": trigger}, trigger)


def stop_requested(session: Any) -> tuple[TurnEndReason, str] | None:
    """A tool hook's `continue: false`: the whole agent loop ends here."""
    hooks = hooks_of(session)
    if hooks is None or not hooks.stop_requested:
        return None
    reason, hooks.stop_requested = hooks.stop_requested, None
    return TurnEndReason.completed, reason
