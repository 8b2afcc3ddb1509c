"""The OpenAI-compatible backend through the real `openai` SDK against the scripted server on 127.0.0.1: streamed
text, reasoning, usage, tool-call deltas split and interleaved (generated cases), malformed arguments, retries on
429/5xx, cut and malformed streams, servers that are not there, unknown models, models without tools."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.events import Usage
from gemini_tui.core.ground.model_api import (
    CallChunk,
    Content,
    FunctionCall,
    FunctionResponse,
    ModelChunk,
    ModelError,
    ModelRequest,
    RetryChunk,
    TextChunk,
    ThoughtChunk,
    UsageChunk,
)
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.models.openai_compat import OpenAICompatibleModel, chat_messages, json_schema, tool_definitions
from gemini_tui.core.models.providers import Provider, resolve_provider, split_model_name
from gemini_tui.core.models.retry import RetryPolicy
from tests.fakes.openai_server import FakeOpenAIServer, Reply, chat, error, say, tool

QUICK = RetryPolicy(max_attempts=3, initial_delay_s=0.001, max_delay_s=0.005, jitter=0.0)
LIST_DIR = {"name": "list_directory", "description": "Lists a directory.",
            "parameters": {"type": "OBJECT", "properties": {"dir_path": {"type": "STRING"}},
                           "required": ["dir_path"]}}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def model_for(server: FakeOpenAIServer, name: str = "test-model", **provider: Any) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(Provider("openai", server.base_url, api_key="sk-test", **provider), name,
                                 policy=QUICK, idle_timeout_s=5.0)


def ask(text: str = "hi", tools: tuple[dict[str, Any], ...] = (LIST_DIR,)) -> ModelRequest:
    return ModelRequest((Content("user", [TextPart(text)]),), "You are terse.", tools)


async def collect(model: OpenAICompatibleModel, request: ModelRequest | None = None) -> list[ModelChunk]:
    return [chunk async for chunk in model.stream(request or ask(), AbortSignal())]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the request ---------------------------------------------------------------------------------------------------
async def test_streamed_text_reasoning_and_usage(server: FakeOpenAIServer) -> None:
    server.script(chat(say("Hel"), say("lo."), reasoning="thinking it over",
                       usage={"prompt_tokens": 42, "completion_tokens": 9, "total_tokens": 51,
                              "completion_tokens_details": {"reasoning_tokens": 4},
                              "prompt_tokens_details": {"cached_tokens": 8}}))
    chunks = await collect(model_for(server))
    assert [c.text for c in chunks if isinstance(c, TextChunk)] == ["Hel", "lo."]
    assert [c.text for c in chunks if isinstance(c, ThoughtChunk)] == ["thinking it over"]
    [usage] = [c.usage for c in chunks if isinstance(c, UsageChunk)]
    assert usage == Usage(prompt_tokens=42, candidates_tokens=5, thoughts_tokens=4, cached_tokens=8, total_tokens=51)
    [sent] = server.chat_requests
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["model"] == "test-model"
    assert sent.messages[0] == {"role": "system", "content": "You are terse."}
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body["tools"] == [{"type": "function", "function": {
        "name": "list_directory", "description": "Lists a directory.",
        "parameters": {"type": "object", "properties": {"dir_path": {"type": "string"}}, "required": ["dir_path"]}}}]


def _random_schema(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    kind = rng.choice(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"] if depth < 3 else ["STRING"])
    schema: dict[str, Any] = {"type": kind if rng.random() < 0.5 else kind.lower()}
    if rng.random() < 0.3:
        schema["nullable"] = True
    if kind == "STRING" and rng.random() < 0.3:
        schema["enum"] = ["a", "b"]
    if kind == "ARRAY":
        schema["items"] = _random_schema(rng, depth + 1)
    if kind == "OBJECT":
        names = [f"p{i}" for i in range(rng.randint(0, 3))]
        schema["properties"] = {name: _random_schema(rng, depth + 1) for name in names}
        schema["propertyOrdering"] = names
        schema["required"] = names[:1]
    return schema


def _instance_types(schema: dict[str, Any]) -> set[str]:
    kind = schema["type"]
    return set(kind) if isinstance(kind, list) else {kind}


def test_gemini_schemas_become_valid_json_schema() -> None:
    """Generated Gemini-dialect schemas: the converted ones are valid JSON Schema, lower-case types, `nullable`
    as a null type, no Gemini-only keys; and a value of the right shape validates."""
    rng = random.Random(7)
    for _ in range(300):
        schema = _random_schema(rng)
        converted = json_schema(schema)
        jsonschema.Draft202012Validator.check_schema(converted)
        text = json.dumps(converted)
        assert "propertyOrdering" not in text and "nullable" not in text
        assert all(t.islower() for t in _instance_types(converted))
        if schema.get("nullable"):
            jsonschema.validate(None, converted)
    assert tool_definitions(({"name": "bare"},)) == [
        {"type": "function", "function": {"name": "bare", "parameters": {"type": "object", "properties": {}}}}]


def test_every_built_in_tool_declares_valid_json_schema(tmp_path) -> None:
    from gemini_tui.cli.assemble import build_registry
    from gemini_tui.core.setup.config import Settings
    from gemini_tui.tools.workspace import Workspace

    registry = build_registry(Settings(home=tmp_path), Workspace(tmp_path), {})
    tools = tool_definitions(tuple(registry.function_declarations()))
    assert len(tools) >= 10
    for definition in tools:
        jsonschema.Draft202012Validator.check_schema(definition["function"]["parameters"])
        assert definition["function"]["parameters"]["type"] == "object"


def test_history_as_messages_pairs_every_call_with_its_tool_message() -> None:
    history = (
        Content("user", [TextPart("look at both")]),
        Content("model", [TextPart("Reading."), FunctionCall("c1", "read_file", {"path": "a"}),
                          FunctionCall("c2", "read_file", {"path": "b"})]),
        Content("user", [FunctionResponse("c1", "read_file", {"output": "A"}),
                         FunctionResponse("c2", "read_file", {"error": "no such file"},
                                          (InlineDataPart("image/png", "aGk="),))]),
        Content("model", [TextPart("Done.")]),
        Content("user", [TextPart("thanks")]),
    )
    messages = chat_messages(history)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "user", "assistant", "user"]
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["c1", "c2"]
    assert json.loads(messages[1]["tool_calls"][1]["function"]["arguments"]) == {"path": "b"}
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "A"}
    assert messages[3]["tool_call_id"] == "c2" and json.loads(messages[3]["content"]) == {"error": "no such file"}
    assert messages[4]["content"] == [{"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}}]


# -- tool calls ------------------------------------------------------------------------------------------------------
def _random_args(rng: random.Random) -> dict[str, Any]:
    return {f"k{i}": rng.choice([rng.randint(-5, 500), "täxt \"quoted\" {braces}", [1, {"n": None}], True])
            for i in range(rng.randint(0, 4))}


async def test_tool_call_deltas_split_and_interleaved_become_whole_calls(server: FakeOpenAIServer) -> None:
    """Generated replies: 1-3 calls (parallel), arguments cut into 1-9 pieces, pieces interleaved or not, with
    or without text first: each call arrives whole, in order, with the server's id."""
    rng = random.Random(3)
    model = model_for(server)
    for case in range(40):
        calls = [tool(f"tool_{i}", _random_args(rng)) for i in range(rng.randint(1, 3))]
        texts = [say("Let me look.")] if case % 2 else []
        server.script(chat(*texts, calls=calls, pieces=rng.randint(1, 9), interleave=rng.random() < 0.5))
        got = [c.call for c in await collect(model) if isinstance(c, CallChunk)]
        assert [(c.id, c.name, c.args, c.problem) for c in got] == [(c.id, c.name, c.args, None) for c in calls]


async def test_malformed_arguments_become_a_call_with_a_problem(server: FakeOpenAIServer) -> None:
    server.script(chat(calls=[tool("read_file", raw='{"path": "a'), tool("glob", raw="[1, 2]")]))
    first, second = [c.call for c in await collect(model_for(server)) if isinstance(c, CallChunk)]
    assert first.name == "read_file" and first.args == {} and "not valid JSON" in (first.problem or "")
    assert second.name == "glob" and "not an object" in (second.problem or "")


async def test_calls_without_ids_get_unique_ones(server: FakeOpenAIServer) -> None:
    reply = chat(calls=[tool("a", x=1), tool("b", y=2)])
    for body in reply.chunks:
        for choice in body["choices"]:
            for delta in choice["delta"].get("tool_calls", []):
                delta.pop("id", None)
    server.script(reply)
    calls = [c.call for c in await collect(model_for(server)) if isinstance(c, CallChunk)]
    assert [c.name for c in calls] == ["a", "b"] and len({c.id for c in calls}) == 2


async def test_the_deprecated_function_call_form(server: FakeOpenAIServer) -> None:
    pieces = ['{"pat', 'tern": "*.py"}']
    deltas = [{"function_call": {"name": "glob", "arguments": ""}}] + [{"function_call": {"arguments": p}}
                                                                      for p in pieces]
    events = [json.dumps({"choices": [{"index": 0, "delta": d, "finish_reason": None}]}) for d in deltas]
    events.append(json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "function_call"}]}))
    server.script(Reply(raw_events=[*events, "[DONE]"]))
    [call] = [c.call for c in await collect(model_for(server)) if isinstance(c, CallChunk)]
    assert (call.name, call.args, call.problem) == ("glob", {"pattern": "*.py"}, None)


# -- failures --------------------------------------------------------------------------------------------------------
async def test_a_stream_cut_mid_call_is_retried_and_the_partial_discarded(server: FakeOpenAIServer) -> None:
    cut = chat(say("Looking"), calls=[tool("list_directory", dir_path="/r")], pieces=4)
    cut.cut_after = len(cut.chunks) - 4  # inside the arguments
    server.script(cut, chat(say("Again."), calls=[tool("list_directory", dir_path="/r", call_id="second")]))
    chunks = await collect(model_for(server))
    [retry] = [c for c in chunks if isinstance(c, RetryChunk)]
    assert retry.discard_partial and retry.kind == "connection"
    after = chunks[chunks.index(retry) + 1:]
    assert [c.call.id for c in after if isinstance(c, CallChunk)] == ["second"]
    assert [c for c in chunks[:chunks.index(retry)] if isinstance(c, CallChunk)] == []


async def test_a_stream_ending_without_finish_reason_is_broken(server: FakeOpenAIServer) -> None:
    short = chat(calls=[tool("glob", pattern="*")])
    short.chunks = short.chunks[:-2]  # no finish, no usage, but a clean [DONE]
    server.script(short, chat(say("Whole.")))
    chunks = await collect(model_for(server))
    assert "in the middle of a tool call" in next(c for c in chunks if isinstance(c, RetryChunk)).reason
    assert [c.text for c in chunks if isinstance(c, TextChunk)] == ["Whole."]


async def test_malformed_chunks_are_retried(server: FakeOpenAIServer) -> None:
    server.script(Reply(raw_events=['{"choices": [{"delta": {"content": "a"}}]}', "<html>proxy error</html>"]),
                  chat(say("Fine.")))
    chunks = await collect(model_for(server))
    assert "broken stream" in next(c for c in chunks if isinstance(c, RetryChunk)).reason
    assert [c.text for c in chunks if isinstance(c, TextChunk)][-1] == "Fine."


@pytest.mark.parametrize("status", [429, 500, 502, 503])
async def test_rate_limits_and_server_errors_are_retried(server: FakeOpenAIServer, status: int) -> None:
    server.script(error(status, "busy", headers={"Retry-After": "0"}), chat(say("Now.")))
    chunks = await collect(model_for(server))
    [retry] = [c for c in chunks if isinstance(c, RetryChunk)]
    assert retry.delay_s == 0 and str(status) in retry.reason and retry.kind == ("quota" if status == 429 else "server")
    assert [c.text for c in chunks if isinstance(c, TextChunk)] == ["Now."]


async def test_giving_up_after_the_policy_s_attempts(server: FakeOpenAIServer) -> None:
    server.script(*[error(503, "overloaded")] * 3)
    with pytest.raises(ModelError, match="Gave up after 3 attempts") as caught:
        await collect(model_for(server))
    assert caught.value.kind == "server" and len(server.chat_requests) == 3


async def test_a_long_retry_after_is_reported_not_waited(server: FakeOpenAIServer) -> None:
    server.script(error(429, "quota spent", headers={"Retry-After": "3600"}))
    with pytest.raises(ModelError, match="asks to wait 3600s"):
        await collect(model_for(server))


async def test_a_stalled_stream_hits_the_idle_timeout(server: FakeOpenAIServer) -> None:
    stalled = chat(say("slow"))
    stalled.stall_after, stalled.stall_s = 1, 2.0
    server.script(stalled, chat(say("Quick.")))
    model = model_for(server)
    model.idle_timeout_s = 0.3
    chunks = await collect(model)
    assert "stalled" in next(c for c in chunks if isinstance(c, RetryChunk)).reason


async def test_the_consumer_s_own_pauses_are_not_the_server_s_silence(server: FakeOpenAIServer) -> None:
    """A consumer that waits between chunks (a question to the user) longer than the idle timeout: no retry."""
    server.script(chat(say("one "), say("two "), say("three")))
    model = model_for(server)
    model.idle_timeout_s = 0.2
    got = []
    async for chunk in model.stream(ask(), AbortSignal()):
        got.append(chunk)
        await asyncio.sleep(0.3)
    assert not any(isinstance(c, RetryChunk) for c in got) and len(server.chat_requests) == 1
    assert "".join(c.text for c in got if isinstance(c, TextChunk)) == "one two three"


async def test_nothing_listening_is_said_at_once() -> None:
    port = free_port()
    provider = resolve_provider("ollama", {}, {"OLLAMA_HOST": f"127.0.0.1:{port}"})
    with pytest.raises(ModelError) as caught:
        await collect(OpenAICompatibleModel(provider, "llama3.2", policy=QUICK))
    assert str(caught.value) == f"nothing answers at http://127.0.0.1:{port}: is Ollama running?"
    assert caught.value.kind == "connection"


async def test_an_unknown_model_is_named(server: FakeOpenAIServer) -> None:
    server.script(error(404, 'model "nope" not found, try pulling it first', ollama=True))
    provider = Provider("ollama", server.base_url)
    with pytest.raises(ModelError) as caught:
        await collect(OpenAICompatibleModel(provider, "nope", policy=QUICK))
    assert caught.value.kind == "not_found"
    assert "has no model 'nope'" in caught.value.message and "ollama pull nope" in caught.value.message
    assert "`/model ollama/` lists" in caught.value.message


@pytest.mark.parametrize("said", [
    "registry.ollama.ai/library/gemma:2b does not support tools",  # Ollama
    "tools param requires --jinja flag",  # llama.cpp
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',  # vLLM
])
async def test_a_model_without_tools_is_said_with_the_way_to_chat(server: FakeOpenAIServer, said: str) -> None:
    server.script(error(400, said))
    model = model_for(server)
    with pytest.raises(ModelError) as caught:
        await collect(model)
    assert caught.value.kind == "no_tools" and "--no-tools" in caught.value.message and said in caught.value.message
    assert len(server.chat_requests) == 1  # not retried
    model.tools_enabled = False
    server.script(chat(say("Just chatting.")))
    assert [c.text for c in await collect(model) if isinstance(c, TextChunk)] == ["Just chatting."]
    assert "tools" not in server.chat_requests[-1].body


async def test_a_server_refusing_stream_options_still_answers(server: FakeOpenAIServer) -> None:
    server.script(error(400, "Unrecognized request argument supplied: stream_options"), chat(say("Old server.")))
    chunks = await collect(model_for(server))
    assert [c.text for c in chunks if isinstance(c, TextChunk)] == ["Old server."]
    assert "stream_options" not in server.chat_requests[-1].body
    assert not any(isinstance(c, RetryChunk) for c in chunks)


async def test_bad_key_is_explained(server: FakeOpenAIServer) -> None:
    server.script(error(401, "Incorrect API key provided"))
    with pytest.raises(ModelError, match=r"not accepted \(check OPENAI_API_KEY\) \[401\]"):
        await collect(OpenAICompatibleModel(Provider("openai", server.base_url, "bad", key_env="OPENAI_API_KEY"),
                                            "gpt", policy=QUICK))


async def test_cut_short_by_length(server: FakeOpenAIServer) -> None:
    server.script(chat(say("Half an ans"), finish="length"))
    chunks = await collect(model_for(server))
    assert any(getattr(c, "finish_reason", None) == "MAX_TOKENS" for c in chunks)


# -- not streamed, models, window ------------------------------------------------------------------------------------
async def test_generate_json_asks_for_the_schema_and_reads_fenced_json(server: FakeOpenAIServer) -> None:
    server.script(chat(say('```json\n{"fixed": "x"}\n```')))
    answer, usage = await model_for(server).generate_json("fix it", {"type": "OBJECT", "properties": {
        "fixed": {"type": "STRING"}}})
    assert answer == {"fixed": "x"} and usage is not None and usage.total_tokens == 110
    [sent] = server.chat_requests
    assert "stream" not in sent.body
    assert sent.body["response_format"]["json_schema"]["schema"]["properties"]["fixed"] == {"type": "string"}


async def test_models_listed_and_the_window_learnt_from_the_server(server: FakeOpenAIServer) -> None:
    server.models = [{"id": "small", "context_length": 8192}, {"id": "test-model", "max_model_len": 4096}]
    model = model_for(server)
    assert model.context_window == 32_768  # not asked yet
    assert await model.list_models() == ["small", "test-model"]
    assert model.context_window == 4096
    assert model_for(server, context_window=1000).context_window == 1000  # settings win


def test_provider_names_urls_keys_and_headers() -> None:
    providers = {"router": {"baseUrl": "https://openrouter.example/api/v1/", "apiKeyEnv": "ROUTER_KEY",
                            "headers": {"X-Title": "gemini-tui"}, "contextWindow": 200000}}
    assert split_model_name("ollama/llama3.2:3b") == ("ollama", "llama3.2:3b")
    assert split_model_name("router/meta-llama/llama-3-8b", providers) == ("router", "meta-llama/llama-3-8b")
    assert split_model_name("models/gemini-2.5-pro", providers) is None
    assert split_model_name("gemini-2.5-pro") is None
    router = resolve_provider("router", providers, {"ROUTER_KEY": "k1"})
    assert (router.base_url, router.api_key, router.headers, router.context_window) == (
        "https://openrouter.example/api/v1", "k1", {"X-Title": "gemini-tui"}, 200000)
    assert resolve_provider("ollama", {}, {}).base_url == "http://localhost:11434/v1"
    for host, url in [("0.0.0.0", "http://127.0.0.1:11434/v1"), ("box:1234", "http://box:1234/v1"),
                      ("https://gpu.lan", "https://gpu.lan:11434/v1"), ("http://h:1/v1", "http://h:1/v1")]:
        assert resolve_provider("ollama", {}, {"OLLAMA_HOST": host}).base_url == url
    openai = resolve_provider("openai", {"openai": {"baseUrl": "http://settings/v1"}}, {"OPENAI_API_KEY": "sk"})
    assert (openai.base_url, openai.api_key) == ("http://settings/v1", "sk")
    assert resolve_provider("openai", {"openai": {"baseUrl": "http://settings/v1"}},
                            {"OPENAI_BASE_URL": "http://env/v1"}).base_url == "http://env/v1"
    assert resolve_provider("openai", {}, {}).base_url == "https://api.openai.com/v1"


async def test_declared_headers_reach_the_server(server: FakeOpenAIServer) -> None:
    provider = resolve_provider("mine", {"mine": {"baseUrl": server.base_url, "headers": {"X-Team": "blue"}}}, {})
    await collect(OpenAICompatibleModel(provider, "m", policy=QUICK))
    assert server.chat_requests[0].headers["x-team"] == "blue"
    assert server.chat_requests[0].headers["authorization"] == "Bearer none"


# -- hostile servers -------------------------------------------------------------------------------------------------
def _odd(rng: random.Random) -> Any:
    return rng.choice([None, 7, -1, "x", "", [], {}, [1, "a"], {"a": {"b": []}}, True, 1.5, "0"])


def _hostile_chunk(rng: random.Random) -> str:
    """A chunk that is almost right: one field of the usual shapes replaced by something odd."""
    delta: dict[str, Any] = {"content": "t", "tool_calls": [{"index": 0, "id": "c", "function": {
        "name": "glob", "arguments": '{"pattern": "*"}'}}]}
    chunk: dict[str, Any] = {"id": "x", "object": "chat.completion.chunk",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    where = rng.choice(["chunk", "choices", "choice", "delta", "content", "tool_calls", "call", "function", "name",
                        "arguments", "index", "id", "finish", "usage", "reasoning", "not-json"])
    odd = _odd(rng)
    match where:
        case "chunk":
            return json.dumps(odd)
        case "choices":
            chunk["choices"] = odd
        case "choice":
            chunk["choices"] = [odd]
        case "delta":
            chunk["choices"][0]["delta"] = odd
        case "content":
            delta["content"] = odd
        case "tool_calls":
            delta["tool_calls"] = odd
        case "call":
            delta["tool_calls"] = [odd]
        case "function":
            delta["tool_calls"][0]["function"] = odd
        case "name":
            delta["tool_calls"][0]["function"]["name"] = odd
        case "arguments":
            delta["tool_calls"][0]["function"]["arguments"] = odd
        case "index":
            delta["tool_calls"][0]["index"] = odd
        case "id":
            delta["tool_calls"][0]["id"] = odd
        case "finish":
            chunk["choices"][0]["finish_reason"] = odd
        case "usage":
            chunk["usage"] = odd
        case "reasoning":
            delta["reasoning_content"] = odd
        case "not-json":
            return rng.choice(["{", "<html>", "nan", '{"choices": [', "\x00"])
    return json.dumps(chunk)


async def test_hostile_chunks_end_in_calls_text_or_a_readable_error(server: FakeOpenAIServer) -> None:
    """Generated streams with one odd chunk: the turn ends with text or whole calls (after a retry, when the
    stream could not be read), or a ModelError a user can read; never another exception, never a call without
    a name or with arguments that are not an object."""
    rng = random.Random(11)
    model = model_for(server)
    seen: dict[str, int] = {"call": 0, "retry": 0, "error": 0}
    for _ in range(150):
        events = [_hostile_chunk(rng)]
        finish = json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        server.script(Reply(raw_events=[*events, finish, "[DONE]"]), chat(say("Recovered.")),
                      chat(say("Recovered.")))
        try:
            chunks = await collect(model)
        except ModelError as exc:
            assert exc.kind != "internal", exc.message
            seen["error"] += 1
            continue
        finally:
            with server._lock:
                server._script.clear()  # the unused recoveries
        for call in (c.call for c in chunks if isinstance(c, CallChunk)):
            assert isinstance(call.name, str) and call.name and isinstance(call.args, dict) and call.id
            seen["call"] += 1
        seen["retry"] += any(isinstance(c, RetryChunk) for c in chunks)
    assert seen["call"] > 0 and seen["retry"] > 0, seen
