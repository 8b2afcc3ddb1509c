"""google_web_search through the real google-genai client against a grounded-answer endpoint on 127.0.0.1."""

from __future__ import annotations

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import SearchAnswer
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.tools.web_search import WebSearchParams, WebSearchTool, insert_citations
from tests.fakes.gemini_search import serve_search


async def search(tool: WebSearchTool, query: str) -> ToolResult:
    params = tool.validate_params({"query": query})
    assert isinstance(params, WebSearchParams), params
    return await tool.execute(params, AbortSignal())


async def test_grounded_answer_with_citations_and_sources() -> None:
    with serve_search() as server:
        tool = WebSearchTool("test-key", base_url=server.base_url, model="gemini-2.5-flash")
        result = await search(tool, "python 3.13 release")
    assert result.ok, result.llm_content
    assert result.llm_content == (
        'Web search results for "python 3.13 release":\n\n'
        "Python 3.13 was released in October 2024.[1] It adds a free-threaded build — experimental.[1][2]\n\n"
        "Sources:\n[1] python.org (https://python.org/downloads/release/python-3130/)\n"
        "[2] What's New (https://docs.python.org/3.13/whatsnew/3.13.html)"
    )
    display = result.return_display
    assert isinstance(display, SearchAnswer) and [s.title for s in display.sources] == ["python.org", "What's New"]
    path, headers, body = server.requests[0]
    assert path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert headers["x-goog-api-key"] == "test-key"
    assert body["tools"] == [{"googleSearch": {}}]
    assert body["contents"][0]["parts"][0]["text"] == "python 3.13 release"


async def test_empty_answer_and_api_error() -> None:
    with serve_search() as server:
        server.replies.append((200, {"candidates": [{"content": {"role": "model", "parts": []}}]}))
        server.replies.append((403, {"error": {"code": 403, "message": "API key not valid",
                                               "status": "PERMISSION_DENIED"}}))
        tool = WebSearchTool("k", base_url=server.base_url)
        empty = await search(tool, "nothing")
        failed = await search(tool, "denied")
    assert empty.ok and empty.llm_content == 'No search results or information found for query: "nothing"'
    assert failed.error is not None and "API key not valid" in failed.llm_content


async def test_offline_without_key_explains() -> None:
    result = await search(WebSearchTool(None), "anything")
    assert result.error is not None and result.error.kind is ToolErrorKind.execution_failed
    assert "GEMINI_API_KEY" in result.llm_content and "offline" in result.llm_content


@pytest.mark.parametrize(("text", "supports", "expected"), [
    ("abc def", [{"segment": {"endIndex": 3}, "groundingChunkIndices": [0]}], "abc[1] def"),
    ("abc", [{"segment": {"endIndex": 99}, "groundingChunkIndices": [1]}], "abc[2]"),
    ("é x", [{"segment": {"endIndex": 2}, "groundingChunkIndices": [0]}], "é[1] x"),
    ("é x", [{"segment": {"endIndex": 1}, "groundingChunkIndices": [0]}], "é[1] x"),  # never splits a character
    ("ab", [{"segment": {"endIndex": 1}, "groundingChunkIndices": []}], "ab"),
])
def test_insert_citations(text: str, supports: list[dict[str, object]], expected: str) -> None:
    assert insert_citations(text, supports) == expected
