"""Models room: any OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter, OpenAI) through the
`openai` SDK's Chat Completions, streamed, with our own retries; the SDK is imported lazily."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import re
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.debug_log import where_details
from gemini_tui.core.ground.events import Usage
from gemini_tui.core.ground.model_api import (
    CallChunk,
    Content,
    CutShortChunk,
    FunctionCall,
    FunctionResponse,
    ModelChunk,
    ModelError,
    ModelRequest,
    RetryChunk,
    TextChunk,
    ThoughtChunk,
    ThoughtPart,
    UsageChunk,
)
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.models.gemini import DEFAULT_IDLE_TIMEOUT_S, _kind, _short, _sleep_unless_aborted
from gemini_tui.core.models.providers import DEFAULT_CONTEXT_WINDOW, Provider
from gemini_tui.core.models.response_reader import _read_call
from gemini_tui.core.models.retry import LONGEST_HONOURED_DELAY_S, RetryPolicy, is_retryable_status, server_retry_delay

log = logging.getLogger(__name__)
_ids = itertools.count(1)
CONNECT_TIMEOUT_S = 10.0
WINDOW_LOOKUP_TIMEOUT_S = 3.0

# How servers say a model cannot take `tools`: Ollama ("does not support tools"), llama.cpp ("tools param
# requires --jinja flag"), vLLM ("auto" tool choice requires --enable-auto-tool-choice), LM Studio, gateways.
_NO_TOOLS = re.compile(r"(does not support tools|not support(ed)? (for )?(tools|tool calling|function)|"
                       r"tools? (are|is) not supported|--jinja|tool.choice requires|enable-auto-tool-choice|"
                       r"tool-call-parser|no endpoints found that support tool use|"
                       r"function calling is not (supported|enabled))", re.I)
_NOT_FOUND = re.compile(r"(model[^.]*not (found|exist)|no such model|unknown model|does not exist|try pulling)", re.I)


class BrokenStream(Exception):
    """The stream ended without a finish reason, in the middle of a call, or with data that is not JSON."""


# -- what we send ------------------------------------------------------------------------------------------------
_TYPES = {"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean", "ARRAY": "array",
          "OBJECT": "object", "NULL": "null", "TYPE_UNSPECIFIED": None}
_GEMINI_ONLY = {"propertyOrdering", "nullable"}


def json_schema(schema: Any) -> Any:
    """A Gemini-dialect schema (upper-case types, `nullable`, `propertyOrdering`) as plain JSON Schema, which
    is what Chat Completions servers (and their grammar compilers) read."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _GEMINI_ONLY:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: json_schema(sub) for name, sub in value.items()}
        elif key == "type" and isinstance(value, str):
            kind = _TYPES.get(value.upper(), value.lower()) if value.isupper() else value
            if kind is not None:
                out[key] = kind
        elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "not"):
            out[key] = json_schema(value)
        else:
            out[key] = value
    if schema.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str) and kind != "null":
            out["type"] = [kind, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        elif "anyOf" in out:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    if out.get("type") == "object" and "properties" not in out:
        out["properties"] = {}
    return out


def tool_definitions(declarations: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """Gemini function declarations as Chat Completions `tools`."""
    tools = []
    for declaration in declarations:
        parameters = declaration.get("parametersJsonSchema") or declaration.get("parameters")
        schema = json_schema(parameters) if isinstance(parameters, dict) else {}
        if not schema:
            schema = {"type": "object", "properties": {}}
        function: dict[str, Any] = {"name": declaration["name"], "parameters": schema}
        if declaration.get("description"):
            function["description"] = declaration["description"]
        tools.append({"type": "function", "function": function})
    return tools


def _user_content(parts: list[Any]) -> str | list[dict[str, Any]]:
    """A user message's content: plain text, or text and images as content parts."""
    pieces: list[dict[str, Any]] = []
    for part in parts:
        match part:
            case TextPart(text=text):
                pieces.append({"type": "text", "text": text})
            case InlineDataPart(mime_type=mime, data=data) if mime.startswith("image/"):
                pieces.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}})
            case InlineDataPart(mime_type=mime):
                pieces.append({"type": "text", "text": f"[an attachment of type {mime} was left out: this "
                                                       "backend sends only text and images]"})
    if all(p["type"] == "text" for p in pieces):
        return "".join(p["text"] for p in pieces)
    return pieces


def _tool_text(response: dict[str, Any]) -> str:
    output = response.get("output")
    if isinstance(output, str) and len(response) == 1:
        return output
    return json.dumps(response, ensure_ascii=False, default=str)


def chat_messages(contents: tuple[Content, ...], system_instruction: str = "") -> list[dict[str, Any]]:
    """Our history as Chat Completions messages: a model turn is one assistant message (its calls as
    `tool_calls`), each function response a `role: tool` message with the call's id, then any text and
    images of the same user entry as a user message. Thoughts stay local (no server takes them back)."""
    messages: list[dict[str, Any]] = []
    if system_instruction:
        messages.append({"role": "system", "content": system_instruction})
    for content in contents:
        if content.role == "model":
            text = "".join(p.text for p in content.parts if isinstance(p, TextPart))
            calls = [p for p in content.parts if isinstance(p, FunctionCall)]
            # "" rather than null beside calls: llama-cpp-python refuses null, and its chat templates need the key
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                message["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name, "arguments": json.dumps(c.args, ensure_ascii=False)}}
                    for c in calls]
            if text or calls:
                messages.append(message)
            continue
        rest: list[Any] = []
        for part in content.parts:
            if isinstance(part, FunctionResponse):
                messages.append({"role": "tool", "tool_call_id": part.id, "content": _tool_text(part.response)})
                rest.extend(part.parts)  # images a tool returned: shown to the model in a user message after
            elif not isinstance(part, ThoughtPart | FunctionCall):
                rest.append(part)
        if rest:
            user = _user_content(rest)
            if user:
                messages.append({"role": "user", "content": user})
    return messages


# -- what comes back ---------------------------------------------------------------------------------------------
@dataclass
class _PendingCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class CallAssembler:
    """Streamed `tool_calls` deltas put together: the first delta of a call has its id and name, the
    arguments arrive in pieces; several calls interleave by `index`."""

    def __init__(self) -> None:
        self._calls: dict[Any, _PendingCall] = {}

    def __bool__(self) -> bool:
        return bool(self._calls)

    def add(self, delta: Any) -> None:
        index = _get(delta, "index")
        call_id = _get(delta, "id")
        function = _get(delta, "function")
        name = _get(function, "name") if function is not None else None
        arguments = _get(function, "arguments") if function is not None else None
        key: Any = index if isinstance(index, int) else (call_id if isinstance(call_id, str) else len(self._calls))
        pending = self._calls.get(key)
        if pending is not None and isinstance(call_id, str) and call_id and pending.id and call_id != pending.id:
            key = (key, len(self._calls))  # a server that numbers every call 0: a new id is a new call
            pending = None
        if pending is None:
            pending = self._calls[key] = _PendingCall()
        if isinstance(call_id, str) and call_id and not pending.id:
            pending.id = call_id
        if isinstance(name, str) and name:
            pending.name += name if pending.name != name else ""
        if isinstance(arguments, str):
            pending.arguments.append(arguments)
        elif isinstance(arguments, dict):  # a server that sends the arguments as an object
            pending.arguments.append(json.dumps(arguments))

    def calls(self, started: float) -> list[FunctionCall]:
        """The finished calls, in the order they began; malformed ones carry a `problem`."""
        done = []
        for pending in self._calls.values():
            text = "".join(pending.arguments).strip()
            problem = None
            try:
                args: Any = json.loads(text) if text else {}
            except (json.JSONDecodeError, RecursionError):
                args, problem = {}, (f"the call's arguments were not valid JSON ({_short(ValueError(text), 80)}); "
                                     "send the parameters as one JSON object")
            read = _read_call({"id": pending.id, "name": pending.name, "args": args}, None)
            name = read.name
            call_id = read.id or f"call_{int(started)}_{next(_ids)}"
            done.append(FunctionCall(call_id, name, read.args if problem is None else {}, None,
                                     problem or read.problem))
        self._calls.clear()
        return done


def _get(value: Any, name: str) -> Any:
    """A field of an SDK object (declared, or extra: pydantic exposes both as attributes) or of a dict; None for
    anything else (servers send odd shapes, and the SDK does not validate stream chunks)."""
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def read_usage(usage: Any) -> Usage:
    """Chat Completions usage in our terms: reasoning tokens are thoughts, not part of the answer's count."""
    prompt = _count(_get(usage, "prompt_tokens"))
    completion = _count(_get(usage, "completion_tokens"))
    reasoning = _count(_get(_get(usage, "completion_tokens_details"), "reasoning_tokens"))
    cached = _count(_get(_get(usage, "prompt_tokens_details"), "cached_tokens"))
    total = _count(_get(usage, "total_tokens")) or prompt + completion
    return Usage(prompt_tokens=prompt, candidates_tokens=max(0, completion - reasoning), thoughts_tokens=reasoning,
                 cached_tokens=cached, total_tokens=total)


_CUT = {"length": "MAX_TOKENS", "content_filter": "SAFETY"}
_NORMAL = ("stop", "tool_calls", "function_call", "eos", "end_turn")


def _window_of(entry: Any) -> int | None:
    """A model's context window as servers list it: OpenRouter/LM Studio `context_length`, vLLM
    `max_model_len`, llama.cpp `meta.n_ctx_train` (or `n_ctx`)."""
    for key in ("context_length", "max_model_len", "context_window", "max_context_length"):
        if (value := _count(_get(entry, key))) > 0:
            return value
    meta = _get(entry, "meta")
    for key in ("n_ctx", "n_ctx_train"):
        if (value := _count(_get(meta, key))) > 0:
            return value
    return None


class OpenAICompatibleModel:
    """A ModelClient for an OpenAI-compatible Chat Completions server. `model_name` is the full
    `provider/model` (stats, status line); the server is asked for `api_model`."""

    is_offline = False

    def __init__(self, provider: Provider, api_model: str, *, policy: RetryPolicy | None = None,
                 idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S, tools: bool | None = None) -> None:
        self.provider = provider
        self.api_model = api_model
        self.model_name = f"{provider.name}/{api_model}"
        self.policy = policy or RetryPolicy()
        self.idle_timeout_s = idle_timeout_s
        self.tools_enabled = provider.tools if tools is None else tools
        self.headless = False  # `-p`: advice names the command-line flag, not the app's `/model`
        self._server_window: int | None = None
        self._window_asked = False
        self._usage_supported = True  # off when the server refuses stream_options
        self._client: Any = None
        self._client_loop: Any = None
        self._tools: tuple[Any, list[dict[str, Any]]] = (None, [])
        self._client_lock = threading.Lock()

    @property
    def context_window(self) -> int:
        return self.provider.context_window or self._server_window or DEFAULT_CONTEXT_WINDOW

    def prewarm(self) -> None:
        threading.Thread(target=self._sdk, name="openai-prewarm", daemon=True).start()

    def _sdk(self) -> Any:
        with self._client_lock:
            try:
                loop: Any = asyncio.get_running_loop()
            except RuntimeError:
                loop = None  # built ahead on a thread (prewarm): any loop may use it first
            if self._client is not None and loop is not None and self._client_loop not in (None, loop):
                self._client = None  # its connections belong to a loop that is gone
            if self._client is None or self._client_loop is None:
                self._client_loop = loop
            if self._client is None:
                import openai

                self._client = openai.AsyncOpenAI(
                    api_key=self.provider.api_key or "none", base_url=self.provider.base_url,
                    default_headers=self.provider.headers or None, max_retries=0,  # we retry, and say so
                    timeout=openai.Timeout(None, connect=CONNECT_TIMEOUT_S))
            return self._client

    async def list_models(self) -> list[str]:
        """What the server's `/models` offers (ids), noting each model's window when it is listed."""
        import openai

        try:
            page = await asyncio.wait_for(self._sdk().models.list(), CONNECT_TIMEOUT_S)
        except (openai.APIConnectionError, TimeoutError) as exc:
            raise ModelError(self._nothing_answers(), kind="connection") from exc
        except openai.APIStatusError as exc:
            raise ModelError(f"{self.provider.origin} did not list its models [{exc.status_code}]: "
                             f"{_error_message(exc)}", status=exc.status_code, kind=_kind(exc.status_code)) from exc
        ids = []
        for entry in _get(page, "data") or []:
            model_id = _get(entry, "id")
            if isinstance(model_id, str):
                ids.append(model_id)
                if model_id == self.api_model and (window := _window_of(entry)):
                    self._server_window = window
        return ids

    async def _learn_window(self) -> None:
        """Once, before the first request: the model's window as the server lists it (best effort)."""
        if self._window_asked or self.provider.context_window:
            return
        self._window_asked = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.list_models(), WINDOW_LOOKUP_TIMEOUT_S)

    def _nothing_answers(self) -> str:
        return f"nothing answers at {self.provider.origin}: {self.provider.hint}"

    def _body(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {**self.provider.extra_body, "model": self.api_model,
                                "messages": chat_messages(request.contents, request.system_instruction)}
        if request.tools and self.tools_enabled:
            if self._tools[0] is not request.tools:  # the session keeps one tuple until its tools change
                self._tools = request.tools, tool_definitions(request.tools)
            body["tools"] = self._tools[1]
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if stream:
            body["stream"] = True
            if self._usage_supported:
                body["stream_options"] = {"include_usage": True}
        return body

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
        import openai

        await self._learn_window()
        attempt = 0
        while True:
            attempt += 1
            emitted = False
            status: int | None = None
            delay: float | None = None
            try:
                async for chunk in self._stream_once(request):
                    emitted = True
                    yield chunk
                return
            except openai.APIStatusError as exc:
                status = exc.status_code
                message = _error_message(exc)
                if status == 400 and self._usage_supported and "stream_options" in message:
                    self._usage_supported = False  # an older server: no usage rather than no answer
                    attempt -= 1
                    continue
                self._raise_if_explained(status, message, request)
                if not is_retryable_status(status):
                    raise ModelError(self._explain(status, message), status=status, kind=_kind(status)) from exc
                delay = server_retry_delay(_body_of(exc), exc.response.headers)
                reason = f"{status} {message}".strip()
            except openai.APIConnectionError as exc:
                if not emitted and _refused(exc) and self.provider.is_local:
                    # a local server that is not running will not start during our backoff: say so now
                    raise ModelError(self._nothing_answers(), kind="connection") from exc
                reason = f"connection problem: {_short(exc.__cause__ or exc)}"
                message = reason if not _refused(exc) else self._nothing_answers()
            except openai.APIError as exc:  # an error object sent inside the stream
                message = _error_message(exc)
                self._raise_if_explained(None, message, request)
                reason = message = f"the server reported an error in the stream: {message}"
            except (BrokenStream, json.JSONDecodeError, UnicodeDecodeError) as exc:
                reason = message = f"broken stream: {_short(exc)}"
            except (ModelError, asyncio.CancelledError, GeneratorExit):
                raise
            except Exception as exc:
                log.exception("the model request failed")
                raise ModelError(f"The model request failed: {type(exc).__name__}: {_short(exc)}"
                                 f"{where_details()}", kind="internal") from exc
            kind = _kind(status) if status else "connection"
            if attempt >= self.policy.max_attempts:
                raise ModelError(f"Gave up after {attempt} attempts: {message}", status=status, kind=kind)
            if delay is not None and delay > LONGEST_HONOURED_DELAY_S:
                raise ModelError(f"{message} (the server asks to wait {delay:.0f}s; try again later)",
                                 status=status, kind=kind)
            wait = delay if delay is not None else self.policy.backoff(attempt)
            yield RetryChunk(attempt, wait, reason, discard_partial=emitted, kind=kind)
            if await _sleep_unless_aborted(wait, abort_signal):
                return

    def _raise_if_explained(self, status: int | None, message: str, request: ModelRequest) -> None:
        """A model without tool support, or no such model: failures no retry mends, said plainly."""
        if request.tools and self.tools_enabled and _NO_TOOLS.search(message):
            without = (f'run again with -m "{self.model_name} --no-tools"' if self.headless
                       else f"switch with `/model {self.model_name} --no-tools`")
            raise ModelError(
                f"The model {self.model_name} does not support tools (function calling), so it cannot read files "
                f"or run commands here. To chat with it without tools, {without} (or set "
                f"model.providers.{self.provider.name}.tools to false); or pick a model that supports tools. "
                f"The server said: {message}", status=status, kind="no_tools")
        if status == 404 and not _NOT_FOUND.search(message):
            raise ModelError(f"Nothing at {self.provider.base_url}/chat/completions [404]: {message}. Check the "
                             "provider's base URL (it usually ends in /v1).", status=status, kind="not_found")
        if status == 404 or (status in (400, None) and _NOT_FOUND.search(message)):
            pull = f" Pull it with `ollama pull {self.api_model}`." if self.provider.name == "ollama" else ""
            raise ModelError(f"{self.provider.origin} has no model {self.api_model!r}: {message}.{pull} "
                             f"`/model {self.provider.name}/` lists the models it offers.",
                             status=status, kind="not_found")

    def _explain(self, status: int | None, message: str) -> str:
        hints = {
            400: "The request was rejected",
            401: f"The API key was not accepted (check {self.provider.key_env or 'the provider apiKeyEnv'})",
            403: f"Permission denied (check {self.provider.key_env or 'the key'} and the model's availability)",
        }
        return f"{hints.get(status or 0, f'{self.provider.name} API error')} [{status}]: {message}"

    async def _stream_once(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        started = time.monotonic()
        idle = self.idle_timeout_s
        watch = _IdleWatch(idle)
        try:
            stream = await watch.wait(self._sdk().chat.completions.create(**self._body(request, stream=True)))
        except BaseException as exc:
            watch.stop()
            if isinstance(exc, TimeoutError):
                raise BrokenStream(f"no response within {idle:.0f}s (model.streamIdleTimeout)") from None
            raise
        calls = CallAssembler()
        finish: str | None = None
        answered = False
        usage: Usage | None = None
        try:
            while True:
                try:
                    chunk = await watch.wait(anext(stream))
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise BrokenStream(f"the stream stalled: nothing for {idle:.0f}s (model.streamIdleTimeout)") \
                        from None
                if (raw_usage := _get(chunk, "usage")) is not None:
                    usage = read_usage(raw_usage)
                choices = _get(chunk, "choices")
                if not isinstance(choices, list) or not choices:
                    continue
                choice = choices[0]  # we ask for one
                delta = _get(choice, "delta")
                if delta is not None:
                    extra = delta if isinstance(delta, dict) else getattr(delta, "model_extra", None)
                    if extra:  # reasoning is not a field of the SDK's delta: llama.cpp, vLLM, Ollama, OpenRouter
                        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
                        if isinstance(reasoning, str) and reasoning:
                            yield ThoughtChunk(reasoning)
                    text = _get(delta, "content")
                    if isinstance(text, str) and text:
                        answered = True
                        yield TextChunk(text)
                    tool_calls = _get(delta, "tool_calls")
                    for tool_delta in tool_calls if isinstance(tool_calls, list) else ():
                        calls.add(tool_delta)
                    if not tool_calls and (legacy := _get(delta, "function_call")) is not None:
                        calls.add({"index": 0, "function": legacy})  # the deprecated one-call form, older servers
                reason = _get(choice, "finish_reason")
                if isinstance(reason, str) and reason:
                    finish = reason
        finally:
            watch.stop()
            with contextlib.suppress(Exception):
                await stream.close()
        if finish is None:
            what = "in the middle of a tool call" if calls else "before the model finished"
            raise BrokenStream(f"the response stream ended {what}")
        for call in calls.calls(started):
            answered = True
            if call.problem:
                log.info("malformed call %s from the model: %s", call.name, call.problem)
            yield CallChunk(call)
        if not answered and finish not in _NORMAL:
            raise ModelError(f"The model stopped without an answer (finish reason {finish}).", kind="no_answer")
        if answered and finish not in _NORMAL:
            yield CutShortChunk(_CUT.get(finish, finish.upper()))
        if usage is not None:
            yield UsageChunk(usage)

    async def generate_json(self, prompt: str, schema: dict[str, Any], *, system_instruction: str = "",
                            timeout_s: float = 8.0) -> tuple[Any, Usage | None]:
        """One request, not streamed, without tools, asking for JSON of `schema` (the edit fixer's tier)."""
        import openai

        messages = chat_messages((Content("user", [TextPart(prompt)]),), system_instruction)
        try:
            response = await asyncio.wait_for(self._sdk().chat.completions.create(
                model=self.api_model, messages=messages, temperature=0,
                response_format={"type": "json_schema",
                                 "json_schema": {"name": "answer", "schema": json_schema(schema)}}), timeout_s)
        except openai.APIStatusError as exc:
            raise ModelError(_error_message(exc), status=exc.status_code, kind=_kind(exc.status_code)) from exc
        except openai.APIConnectionError as exc:
            raise ModelError(self._nothing_answers(), kind="connection") from exc
        usage = read_usage(response.usage) if getattr(response, "usage", None) is not None else None
        choices = _get(response, "choices") or []
        text = _get(_get(choices[0], "message"), "content") if choices else None
        text = (text or "").strip()
        fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)  # small models fence their JSON
        if fenced:
            text = fenced.group(1)
        try:
            return json.loads(text), usage
        except json.JSONDecodeError as exc:
            raise ModelError(f"the answer was not JSON: {text[:80]!r}", kind="invalid_response") from exc


class _IdleWatch:
    """model.streamIdleTimeout for a stream, at the cost of a clock read per chunk (asyncio.timeout per chunk
    costs ~20 us, a tenth of the backend's own work per turn): one timer that wakes every `idle` seconds and
    cancels the task only while it has been waiting in `wait` that long. Never armed across a yield: the
    consumer's own waits (a question to the user) are not the server's silence."""

    def __init__(self, idle: float) -> None:
        self.idle = idle
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.since: float | None = None
        self.fired = False
        self.handle = self.loop.call_later(idle, self._check)

    def _check(self) -> None:
        now, since = self.loop.time(), self.since
        if since is not None and now - since >= self.idle and self.task is not None:
            self.fired = True
            self.task.cancel()
            return
        self.handle = self.loop.call_later(self.idle - (now - since) if since is not None else self.idle,
                                           self._check)

    async def wait(self, awaitable: Any) -> Any:
        """`awaitable`'s result; TimeoutError after `idle` seconds without it."""
        self.since = self.loop.time()
        try:
            return await awaitable
        except asyncio.CancelledError:
            if self.fired and self.task is not None and self.task.uncancel() == 0:
                raise TimeoutError from None  # our cancel, and nobody else's
            raise
        finally:
            self.since = None

    def stop(self) -> None:
        self.handle.cancel()


def _body_of(exc: Any) -> Any:
    return exc.body if isinstance(getattr(exc, "body", None), dict) else None


def _error_message(exc: Any) -> str:
    """The server's own words: `error.message` of the body (OpenAI, vLLM, llama.cpp), Ollama's `error` string,
    else the SDK's message."""
    body = getattr(exc, "body", None)  # the SDK keeps the body's `error` member when there is one
    if isinstance(body, str) and body.strip():
        return _short(ValueError(body), 400)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return _short(ValueError(error["message"]), 400)
        if isinstance(error, str):
            return _short(ValueError(error), 400)
        if isinstance(body.get("message"), str):
            return _short(ValueError(body["message"]), 400)
        if isinstance(body.get("detail"), str):
            return _short(ValueError(body["detail"]), 400)
    return _short(ValueError(getattr(exc, "message", None) or str(exc)), 400)


def _refused(exc: BaseException) -> bool:
    """The connection itself failed (refused, no route, DNS): nothing was listening, no request was sent."""
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__name__ == "ConnectError" or isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False

