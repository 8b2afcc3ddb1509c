"""The Gemini client: google-genai (imported lazily) on API version v1beta, with our own retries."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from gemini_tui.core.abort import AbortSignal
from gemini_tui.core.events import Usage
from gemini_tui.core.models.base import (
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
from gemini_tui.core.models.retry import LONGEST_HONOURED_DELAY_S, RetryPolicy, is_retryable_status, server_retry_delay
from gemini_tui.core.parts import InlineDataPart, TextPart

API_VERSION = "v1beta"
VERTEX_API_VERSION = "v1beta1"  # google-genai's own default for Vertex AI, which Gemini CLI keeps
_ids = itertools.count(1)


class BrokenStream(Exception):
    """The stream ended without a finish reason, or with unreadable data: treated like a dropped connection."""


def _transient_errors() -> tuple[type[BaseException], ...]:
    """Network failures from whichever HTTP stack google-genai uses here (httpx2, httpx or aiohttp)."""
    found: list[type[BaseException]] = [ConnectionError, TimeoutError, asyncio.IncompleteReadError, BrokenStream,
                                        json.JSONDecodeError]
    for module, name in (("httpx2", "TransportError"), ("httpx", "TransportError"), ("aiohttp", "ClientError")):
        try:
            found.append(getattr(__import__(module), name))
        except (ImportError, AttributeError):
            continue
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
    from google.genai import types

    sdk = []
    for content in contents:
        parts = [d for p in content.parts for d in _part_to_dict(p)]
        if parts:
            sdk.append(types.Content.model_validate({"role": content.role, "parts": parts}))
    return sdk


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
                 project: str | None = None, location: str | None = None) -> None:
        self.model_name = model_name
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

    def prewarm(self) -> None:
        """Imports google-genai and builds the client on a worker thread, while the caller sets up the rest
        (headless runs: the import and TLS setup overlap with settings, tools and context files)."""
        threading.Thread(target=self._sdk, name="genai-prewarm", daemon=True).start()

    def _sdk(self) -> Any:
        with self._client_lock:
            return self._build_sdk()

    def _build_sdk(self) -> Any:
        if self._client is None:
            from google import genai
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
        from google.genai import types

        config: dict[str, Any] = {}
        if request.system_instruction:
            config["system_instruction"] = request.system_instruction
        if request.tools:
            config["tools"] = [{"function_declarations": list(request.tools)}]
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if self.model_name.removeprefix("models/").startswith(("gemini-2.5", "gemini-3")):
            config["thinking_config"] = types.ThinkingConfig(include_thoughts=True)
        return types.GenerateContentConfig.model_validate(config)

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
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
                raise ModelError(f"Vertex AI credentials are not usable: {exc}. Run `gcloud auth application-default "
                                 "login`, set GOOGLE_APPLICATION_CREDENTIALS to a key file, or use GOOGLE_API_KEY "
                                 "(express mode).", kind="auth") from exc
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
                reason = f"connection problem: {type(exc).__name__}: {exc}".rstrip(": ")
                message = reason
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
        stream = await self._sdk().aio.models.generate_content_stream(
            model=self.model_name, contents=contents_to_sdk(request.contents), config=self._config(request))
        finish_reason: str | None = None
        answered = False
        usage: Usage | None = None
        try:
            async for response in stream:
                if response.usage_metadata is not None:
                    usage = _usage(response.usage_metadata)
                feedback = response.prompt_feedback
                if feedback is not None and feedback.block_reason:
                    raise ModelError(f"The prompt was blocked ({_name(feedback.block_reason)}).", kind="blocked")
                candidate = response.candidates[0] if response.candidates else None  # we ask for one
                if candidate is None:
                    continue
                if candidate.finish_reason:
                    finish_reason = _name(candidate.finish_reason)
                for part in (candidate.content.parts if candidate.content else None) or []:
                    if part.function_call is not None:
                        answered = True
                        fc = part.function_call
                        yield CallChunk(FunctionCall(fc.id or f"{fc.name}-{int(started)}-{next(_ids)}",
                                                     fc.name or "", dict(fc.args or {}), part.thought_signature))
                    elif part.text and part.thought:
                        yield ThoughtChunk(part.text, part.thought_signature)
                    elif part.text:
                        answered = True
                        yield TextChunk(part.text)
        finally:
            await stream.aclose()
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
