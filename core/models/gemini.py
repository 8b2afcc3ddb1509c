"""The Gemini client: google-genai (imported lazily) on API version v1beta, with our own retries."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import logging
import sys
import threading
import time
from collections.abc import AsyncIterator
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
from gemini_tui.core.ground.wording import sentences
from gemini_tui.core.models.genai_sdk import genai_sdk
from gemini_tui.core.models.response_reader import ReadCall, UnreadableResponse, read_response
from gemini_tui.core.models.retry import LONGEST_HONOURED_DELAY_S, RetryPolicy, is_retryable_status, server_retry_delay

API_VERSION = "v1beta"
VERTEX_API_VERSION = "v1beta1"  # google-genai's own default for Vertex AI, which Gemini CLI keeps
_ids = itertools.count(1)


DEFAULT_IDLE_TIMEOUT_S = 90.0
log = logging.getLogger(__name__)


class BrokenStream(Exception):
    """The stream ended without a finish reason, or with unreadable data: treated like a dropped connection."""


def _transient_errors() -> tuple[type[BaseException], ...]:
    """Network failures from the HTTP stack google-genai uses here (httpx2 or httpx; aiohttp never, see
    `genai_sdk`, but its errors count too if something else loaded it)."""
    genai_sdk()
    from google.genai import errors

    # RecursionError: a chunk nested too deep for the JSON parser; UnknownApiResponseError: a body or SSE line
    # that is not JSON (an HTML proxy page, a truncated line)
    found: list[type[BaseException]] = [ConnectionError, TimeoutError, asyncio.IncompleteReadError, BrokenStream,
                                        json.JSONDecodeError, RecursionError, errors.UnknownApiResponseError]
    for module, name in (("httpx2", "TransportError"), ("httpx", "TransportError")):
        try:
            found.append(getattr(__import__(module), name))
        except (ImportError, AttributeError):
            continue
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(getattr(aiohttp, "ClientError", None), type):
        found.append(aiohttp.ClientError)
    return tuple(found)


def _part_to_dict(part: Any) -> list[dict[str, Any]]:
    match part:
        case TextPart(text=text):
            return [{"text": text}]
        case InlineDataPart(mime_type=mime, data=data):
            return [{"inline_data": {"mime_type": mime, "data": base64.b64decode(data)}}]
        case ThoughtPart(text=text, signature=signature):
            # a thought only matters to the model through its signature; unsigned thoughts stay local
            return [{"text": text, "thought": True, "thought_signature": signature}] if signature else []
        case FunctionCall(id=call_id, name=name, args=args, signature=signature):
            item: dict[str, Any] = {"function_call": {"id": call_id, "name": name, "args": args}}
            if signature:
                item["thought_signature"] = signature
            return [item]
        case FunctionResponse(id=call_id, name=name, response=response, parts=parts):
            # rich parts (images, PDF) follow the response in the same content, as Gemini CLI sends them
            return [{"function_response": {"id": call_id, "name": name, "response": response}},
                    *(d for p in parts for d in _part_to_dict(p))]
    raise TypeError(f"cannot send {part!r} to Gemini")


def contents_to_sdk(contents: tuple[Content, ...]) -> list[Any]:
    """Our history as google-genai `Content` models (models, not dicts: the SDK renames nested fields of
    models only, and base64-encodes their bytes)."""
    genai_sdk()
    from google.genai import types

    sdk = []
    for content in contents:
        parts = [d for p in content.parts for d in _part_to_dict(p)]
        if parts:
            sdk.append(types.Content.model_validate({"role": content.role, "parts": parts}))
    return sdk


class SentContents:
    """The history as request bodies carry it, each entry converted once. Every request sends the whole history,
    and google-genai validates and converts each entry through its pydantic models (about a millisecond for an
    entry with a few calls): a long session paid that for every entry at every request. An entry is converted again
    when its role or its parts (frozen values) are no longer the ones it was converted from; a call's arguments,
    the one mutable thing inside, change only before the call runs (a BeforeTool hook), so before their entry is
    first sent."""

    def __init__(self) -> None:
        # id of the entry -> (the entry, its role and parts when converted, its JSON body or None when it sends
        # nothing); only the entries of the last request are kept, so the ids stay those of live objects
        self._done: dict[int, tuple[Content, str, tuple[Any, ...], dict[str, Any] | None]] = {}

    def body(self, contents: tuple[Content, ...], vertex: bool) -> list[dict[str, Any]]:
        genai_sdk()
        from google.genai import _common
        from google.genai import models as sdk_models

        convert = sdk_models._Content_to_vertex if vertex else sdk_models._Content_to_mldev
        done: dict[int, tuple[Content, str, tuple[Any, ...], dict[str, Any] | None]] = {}
        out = []
        for content in contents:
            entry = self._done.get(id(content))
            parts = tuple(content.parts)
            if (entry is None or entry[0] is not content or entry[1] != content.role or len(entry[2]) != len(parts)
                    or any(a is not b for a, b in zip(entry[2], parts, strict=True))):
                sdk = contents_to_sdk((content,))
                converted = _common.encode_unserializable_types(_common.convert_to_dict(convert(sdk[0]))) if sdk \
                    else None
                entry = (content, content.role, parts, converted)
            done[id(content)] = entry
            if entry[3] is not None:
                out.append(entry[3])
        self._done = done
        if not out:
            raise ValueError("contents are required.")  # as google-genai says it
        return out


def _usage(metadata: Any) -> Usage:
    return Usage(
        prompt_tokens=metadata.prompt_token_count or 0,
        candidates_tokens=metadata.candidates_token_count or 0,
        thoughts_tokens=metadata.thoughts_token_count or 0,
        cached_tokens=metadata.cached_content_token_count or 0,
        tool_prompt_tokens=metadata.tool_use_prompt_token_count or 0,
        total_tokens=metadata.total_token_count or 0,
    )


class GeminiModel:
    """A ModelClient for Gemini. `base_url` is `GOOGLE_GEMINI_BASE_URL` (any server speaking the REST API)."""

    is_offline = False

    def __init__(self, model_name: str, api_key: str | None, *, base_url: str | None = None,
                 policy: RetryPolicy | None = None, timeout_s: float | None = None, vertex: bool = False,
                 project: str | None = None, location: str | None = None,
                 idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S) -> None:
        self.model_name = model_name
        self.idle_timeout_s = idle_timeout_s
        self.api_key = api_key
        self.base_url = base_url
        # Vertex AI: express mode (api_key) or project + location with application default credentials
        self.vertex = vertex
        self.project = project
        self.location = location
        self.policy = policy or RetryPolicy()
        self.timeout_s = timeout_s
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._sent = SentContents()

    def prewarm(self) -> None:
        """Imports google-genai and builds the client on a worker thread, while the caller sets up the rest
        (headless runs: the import and TLS setup overlap with settings, tools and context files)."""
        # not a daemon: an interpreter that shuts down waits for the import to end instead of tearing modules away
        # under it (an import running during shutdown fails inside importlib with "name 'sys' is not defined")
        threading.Thread(target=self._sdk, name="genai-prewarm", daemon=False).start()

    def _sdk(self) -> Any:
        with self._client_lock:
            return self._build_sdk()

    def _build_sdk(self) -> Any:
        if self._client is None:
            genai = genai_sdk()  # on the httpx stack the retries (and their void-partial notices) are built on
            from google.genai import types

            options = types.HttpOptions(
                base_url=self.base_url, api_version=VERTEX_API_VERSION if self.vertex else API_VERSION,
                timeout=int(self.timeout_s * 1000) if self.timeout_s else None,
                # one attempt inside the SDK (and no implicit retries): we retry, and tell the user
                retry_options=types.HttpRetryOptions(attempts=1),
            )
            if self.vertex:
                self._client = genai.Client(vertexai=True, api_key=self.api_key, project=self.project,
                                            location=self.location, http_options=options)
            else:
                self._client = genai.Client(api_key=self.api_key, http_options=options)
        return self._client

    def _config(self, request: ModelRequest) -> Any:
        genai_sdk()
        from google.genai import types

        config: dict[str, Any] = {}
        if request.system_instruction:
            config["system_instruction"] = request.system_instruction
        if request.tools:
            config["tools"] = [{"function_declarations": list(request.tools)}]
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if request.function_calling is not None:
            calling: dict[str, Any] = {"mode": request.function_calling.mode}
            if request.function_calling.allowed:
                calling["allowed_function_names"] = list(request.function_calling.allowed)
            config["tool_config"] = {"function_calling_config": calling}
        if self.model_name.removeprefix("models/").startswith(("gemini-2.5", "gemini-3")):
            config["thinking_config"] = types.ThinkingConfig(include_thoughts=True)
        return types.GenerateContentConfig.model_validate(config)

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
        genai_sdk()
        from google.auth import exceptions as auth_errors
        from google.genai import errors

        transient = _transient_errors()
        attempt = 0
        while True:
            attempt += 1
            emitted = False
            try:
                async for chunk in self._stream_once(request):
                    emitted = True
                    yield chunk
                return
            except auth_errors.GoogleAuthError as exc:
                # no application default credentials, or a token that cannot be refreshed: not worth retrying
                raise ModelError(sentences(f"Vertex AI credentials are not usable: {exc}",
                                           "Run `gcloud auth application-default login`, set "
                                           "GOOGLE_APPLICATION_CREDENTIALS to a key file, or use GOOGLE_API_KEY "
                                           "(express mode)."), kind="auth") from exc
            except errors.APIError as exc:
                status = exc.code
                message = exc.message or str(exc)
                if not is_retryable_status(status):
                    raise ModelError(_explain(status, message), status=status, kind=_kind(status)) from exc
                headers = getattr(getattr(exc, "response", None), "headers", None)
                delay = server_retry_delay(exc.details, headers)
                reason = f"{status} {exc.status or ''}".strip()
            except transient as exc:
                status, delay = None, None
                reason = f"connection problem: {type(exc).__name__}: {_short(exc)}".rstrip(": ")
                message = reason
            except (ModelError, asyncio.CancelledError, GeneratorExit):
                raise
            except Exception as exc:  # anything else from the SDK on odd data: an error the user can read
                log.exception("the model request failed")
                raise ModelError(f"The model request failed: {type(exc).__name__}: {_short(exc)}"
                                 f"{where_details()}", kind="internal") from exc
            if attempt >= self.policy.max_attempts:
                raise ModelError(f"Gave up after {attempt} attempts: {message}", status=status,
                                 kind=_kind(status) if status else "connection")
            if delay is not None and delay > LONGEST_HONOURED_DELAY_S:
                raise ModelError(f"{message} (the server asks to wait {delay:.0f}s; try again later)",
                                 status=status, kind=_kind(status))
            wait = delay if delay is not None else self.policy.backoff(attempt)
            yield RetryChunk(attempt, wait, reason, discard_partial=emitted,
                             kind=_kind(status) if status else "connection")
            if await _sleep_unless_aborted(wait, abort_signal):
                return

    async def _stream_once(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        started = time.monotonic()
        finish_reason: str | None = None
        answered = False
        usage: Usage | None = None
        async for data in self._raw_stream(request):
            try:
                read = read_response(data)
            except UnreadableResponse as exc:
                raise BrokenStream(str(exc)) from None
            for what in read.dropped:
                log.info("dropped from the model's stream: %s", what)
            if read.usage is not None:
                usage = read.usage
            if read.block_reason:
                raise ModelError(f"The prompt was blocked ({read.block_reason}).", kind="blocked")
            if read.finish_reason:
                finish_reason = read.finish_reason
            for part in read.parts:
                if isinstance(part, ReadCall):
                    answered = True
                    if part.problem:
                        log.info("malformed call %s from the model: %s", part.name, part.problem)
                    yield CallChunk(FunctionCall(part.id or f"{part.name}-{int(started)}-{next(_ids)}", part.name,
                                                 part.args, part.signature, part.problem))
                elif part.thought:
                    yield ThoughtChunk(part.text, part.signature)
                else:
                    answered = True
                    yield TextChunk(part.text)
        if finish_reason is None and not answered:
            raise BrokenStream("the response stream ended before the model finished")
        if not answered and finish_reason not in _NORMAL_ENDS:
            # SAFETY, RECITATION, MALFORMED_FUNCTION_CALL, ...: say why there is no answer instead of silence
            raise ModelError(f"The model stopped without an answer (finish reason {finish_reason}).",
                             kind="no_answer")
        if answered and finish_reason not in (None, "STOP", "FINISH_REASON_UNSPECIFIED"):
            yield CutShortChunk(finish_reason)
        if usage is not None:
            yield UsageChunk(usage)

    async def _raw_stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        """The response chunks as parsed JSON, through google-genai's transport (auth, base URL, API version)
        but not its response models, which fail the whole stream on one odd field. No chunk for
        `idle_timeout_s` is a broken stream."""
        genai_sdk()
        from google.genai import _common, types
        from google.genai import models as sdk_models

        api = self._sdk().aio._api_client
        # the history goes in already converted (see SentContents): the SDK's own conversion of the parameters
        # would validate and convert every entry again at each request
        parameters = types._GenerateContentParameters(model=self.model_name, config=self._config(request))
        convert = (sdk_models._GenerateContentParameters_to_vertex if api.vertexai
                   else sdk_models._GenerateContentParameters_to_mldev)
        body = convert(api, parameters, None, parameters)
        path = "{model}:streamGenerateContent?alt=sse".format_map(body.pop("_url", {}) or {"model": self.model_name})
        body.pop("config", None)
        body.pop("_query", None)
        body = {"contents": self._sent.body(request.contents, api.vertexai),
                **_common.encode_unserializable_types(_common.convert_to_dict(body))}
        idle = self.idle_timeout_s
        try:
            responses = await asyncio.wait_for(api.async_request_streamed("post", path, body, None), idle)
        except TimeoutError:
            raise BrokenStream(f"no response within {idle:.0f}s (model.streamIdleTimeout)") from None
        try:
            while True:
                try:
                    response = await asyncio.wait_for(anext(responses), idle)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise BrokenStream(f"the stream stalled: nothing for {idle:.0f}s "
                                       "(model.streamIdleTimeout)") from None
                yield json.loads(response.body) if response.body else {}
        finally:
            with contextlib.suppress(Exception):
                await responses.aclose()

    async def generate_json(self, prompt: str, schema: dict[str, Any], *, system_instruction: str = "",
                            timeout_s: float = 8.0) -> tuple[Any, Usage | None]:
        """One request, not streamed and without tools, whose answer is JSON of `schema`; raises ModelError
        (or TimeoutError) when it fails. Returns the parsed answer and its usage."""
        genai_sdk()
        from google.genai import errors, types

        config = types.GenerateContentConfig(
            system_instruction=system_instruction or None, response_mime_type="application/json",
            response_schema=schema, temperature=0,
            http_options=types.HttpOptions(timeout=int(timeout_s * 1000)))
        try:
            response = await asyncio.wait_for(self._sdk().aio.models.generate_content(
                model=self.model_name, contents=prompt, config=config), timeout_s)
        except errors.APIError as exc:
            raise ModelError(exc.message or str(exc), status=exc.code, kind=_kind(exc.code)) from exc
        usage = _usage(response.usage_metadata) if response.usage_metadata is not None else None
        text = response.text or ""
        try:
            return json.loads(text), usage
        except json.JSONDecodeError as exc:
            raise ModelError(f"the answer was not JSON: {text[:80]!r}", kind="invalid_response") from exc


_NORMAL_ENDS = frozenset({"STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"})


def _name(value: Any) -> str:
    """An SDK enum member or a plain string, as the API spells it."""
    return str(getattr(value, "value", value))


async def _sleep_unless_aborted(delay: float, abort_signal: AbortSignal) -> bool:
    """Sleeps `delay` seconds; True when aborted meanwhile."""
    try:
        await asyncio.wait_for(abort_signal.wait(), timeout=delay)
        return True
    except TimeoutError:
        return abort_signal.aborted


def _short(exc: BaseException, limit: int = 200) -> str:
    """An exception's message on one line, cut short (an HTML page or a huge chunk can be the message)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _kind(status: int | None) -> str:
    match status:
        case 400:
            return "invalid_request"
        case 401 | 403:
            return "auth"
        case 404:
            return "not_found"
        case 429:
            return "quota"
        case int() if status >= 500:
            return "server"
    return "api_error"


def _explain(status: int | None, message: str) -> str:
    hints = {
        400: "The request was rejected",
        401: "The API key was not accepted (check GEMINI_API_KEY)",
        403: "Permission denied (check GEMINI_API_KEY and the model's availability)",
        404: "Not found (check the model name given with -m, GEMINI_MODEL or model.name)",
    }
    return f"{hints.get(status or 0, 'Gemini API error')} [{status}]: {message}"
