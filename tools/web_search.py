"""google_web_search: a Gemini request with the Google Search tool; the grounded answer with citations and sources."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal, finished_unless_aborted
from gemini_tui.core.ground.display import SearchAnswer, SearchSource
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.models.genai_sdk import genai_sdk
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams

DEFAULT_SEARCH_MODEL = "gemini-2.5-flash"
API_VERSION = "v1beta"


class WebSearchParams(ToolParams):
    query: str = Field(description="The search query to find information on the web.")


def _get(obj: Any, *names: str) -> Any:
    """A field of an SDK object or of a plain dict, under its snake_case or camelCase name."""
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def insert_citations(text: str, supports: list[Any]) -> str:
    """`[n]` markers after each grounded segment. Segment offsets are UTF-8 byte offsets (the API's unit), so
    markers are inserted into the encoded text, last first, keeping earlier offsets valid."""
    data = text.encode("utf-8")
    inserts: list[tuple[int, str]] = []
    for support in supports:
        segment = _get(support, "segment")
        indices = _get(support, "grounding_chunk_indices", "groundingChunkIndices") or []
        end = _get(segment, "end_index", "endIndex") if segment is not None else None
        if end is None or not indices:
            continue
        inserts.append((int(end), "".join(f"[{int(i) + 1}]" for i in indices)))
    for end, marker in sorted(inserts, key=lambda item: item[0], reverse=True):
        end = min(end, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:  # never split a multi-byte character
            end += 1
        data = data[:end] + marker.encode() + data[end:]
    return data.decode("utf-8", "replace")


def answer_text(response: Any) -> str:
    candidates = _get(response, "candidates") or []
    if not candidates:
        return ""
    content = _get(candidates[0], "content")
    parts = (_get(content, "parts") or []) if content is not None else []
    return "".join(_get(p, "text") or "" for p in parts if not _get(p, "thought"))


def grounding(response: Any) -> tuple[list[SearchSource], list[Any]]:
    candidates = _get(response, "candidates") or []
    metadata = _get(candidates[0], "grounding_metadata", "groundingMetadata") if candidates else None
    if metadata is None:
        return [], []
    sources = []
    for chunk in _get(metadata, "grounding_chunks", "groundingChunks") or []:
        web = _get(chunk, "web")
        if web is not None:
            sources.append(SearchSource(_get(web, "title") or "Untitled", _get(web, "uri") or ""))
    return sources, list(_get(metadata, "grounding_supports", "groundingSupports") or [])


class WebSearchTool(BaseTool[WebSearchParams]):
    name = "google_web_search"
    display_name = "GoogleSearch"
    description = (
        "Performs a web search using Google Search (via the Gemini API) and returns the results. This tool is "
        "useful for finding information on the internet based on a query."
    )
    Params = WebSearchParams
    kind = ToolKind.search

    def __init__(self, api_key: str | None = None, *, base_url: str | None = None,
                 model: str = DEFAULT_SEARCH_MODEL, timeout_s: float = 60.0) -> None:
        """Same key and `GOOGLE_GEMINI_BASE_URL` as the main client; without a key the tool explains itself."""
        self.api_key = api_key
        self.base_url = base_url
        self.model = model
        self.timeout_s = timeout_s
        self._client: Any = None

    def check_params(self, params: WebSearchParams) -> ToolError | None:
        if not params.query.strip():
            return ToolError(ToolErrorKind.invalid_params, "The 'query' parameter cannot be empty.")
        return None

    def get_description(self, params: WebSearchParams) -> str:
        return f'Searching the web for: "{params.query}"'

    def _sdk(self) -> Any:
        if self._client is None:
            genai = genai_sdk()
            from google.genai import types

            options = types.HttpOptions(base_url=self.base_url, api_version=API_VERSION,
                                        timeout=int(self.timeout_s * 1000))
            self._client = genai.Client(api_key=self.api_key, http_options=options)
        return self._client

    async def _search(self, query: str) -> Any:
        genai_sdk()
        from google.genai import types

        config = types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())])
        return await self._sdk().aio.models.generate_content(
            model=self.model, contents=[types.Content(role="user", parts=[types.Part(text=query)])], config=config)

    async def _execute(self, params: WebSearchParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        query = params.query.strip()
        if not self.api_key:
            return ToolResult.failure(
                ToolErrorKind.execution_failed,
                "google_web_search needs the Gemini API: no GEMINI_API_KEY (or GOOGLE_API_KEY) is set, and the "
                "offline demo model cannot search the web. Set a key to use web search.")
        search = asyncio.ensure_future(self._search(query))
        if not await finished_unless_aborted(search, abort_signal):
            return ToolResult.failure(ToolErrorKind.cancelled, "google_web_search was cancelled.")
        try:
            response = search.result()
        except Exception as exc:  # API errors (key, quota, network) become a message the model can act on
            message = getattr(exc, "message", None) or str(exc)
            return ToolResult.failure(ToolErrorKind.execution_failed,
                                      f'Error during web search for query "{query}": {message}')
        text = answer_text(response)
        if not text.strip():
            message = f'No search results or information found for query: "{query}"'
            return ToolResult(message, SearchAnswer(query, message))
        sources, supports = grounding(response)
        answer = insert_citations(text, supports) if sources else text
        llm = f'Web search results for "{query}":\n\n{answer}'
        if sources:
            llm += "\n\nSources:\n" + "\n".join(f"[{n}] {s.title} ({s.url})" for n, s in enumerate(sources, 1))
        return ToolResult(llm, SearchAnswer(query, answer, tuple(sources)))
