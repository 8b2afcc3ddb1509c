"""web_fetch against a real HTTP server on 127.0.0.1: HTML to text, redirects, 404, slow and huge pages, and the
private-address policy (also after a redirect)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import InfoConfirmation
from gemini_tui.core.ground.display import WebPage
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.tools.web_fetch.tool import WebFetchParams, WebFetchTool, extract_urls, github_raw
from tests.fakes.http_site import serve_site


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_site() as base:
        yield base


async def fetch(tool: WebFetchTool, prompt: str) -> ToolResult:
    params = tool.validate_params({"prompt": prompt})
    assert isinstance(params, WebFetchParams), params
    return await tool.execute(params, AbortSignal())


async def test_html_becomes_readable_text_with_sources(site: str) -> None:
    result = await fetch(WebFetchTool(allow_private=True), f"Summarize {site}/page please.")
    assert result.ok, result.llm_content
    text = result.llm_content
    assert isinstance(text, str)
    assert f"--- [1] {site}/page (Test Page) ---" in text
    assert "# Welcome" in text and "The answer is 42." in text
    assert f"[the intro]({site}/docs/intro.html)" in text
    assert "1. first\n2. second" in text
    assert "alert" not in text and "color: red" not in text and "About" not in text
    assert text.rstrip().endswith(f"Sources:\n[1] Test Page: {site}/page")
    assert isinstance(result.return_display, WebPage) and result.return_display.pages[0].title == "Test Page"


async def test_redirect_404_and_several_urls(site: str) -> None:
    result = await fetch(WebFetchTool(allow_private=True), f"Compare {site}/redirect and {site}/nothing-here.")
    assert result.ok
    assert f"--- [1] {site}/page (Test Page) ---" in result.llm_content
    assert f"Error fetching {site}/nothing-here: HTTP 404 Not Found" in result.llm_content
    assert "Fetched 1 of 2 URL(s)" in result.llm_content


async def test_redirect_loop_and_charset(site: str) -> None:
    result = await fetch(WebFetchTool(allow_private=True), f"{site}/loop {site}/latin1")
    assert "too many redirects" in result.llm_content
    assert "café au lait" in result.llm_content


async def test_all_failed_is_an_error(site: str) -> None:
    result = await fetch(WebFetchTool(allow_private=True), f"{site}/missing")
    assert result.error is not None and result.error.kind is ToolErrorKind.execution_failed


async def test_slow_server_times_out(site: str) -> None:
    result = await fetch(WebFetchTool(allow_private=True, timeout_s=0.5), f"{site}/slow")
    assert result.error is not None
    assert "timed out" in result.llm_content or "Timeout" in result.llm_content


async def test_huge_page_is_capped(site: str) -> None:
    tool = WebFetchTool(allow_private=True, max_bytes=200_000, max_chars=20_000)
    result = await fetch(tool, f"{site}/huge")
    assert result.ok
    assert isinstance(result.return_display, WebPage)
    page = result.return_display.pages[0]
    assert page.truncated and len(page.text) <= 20_000
    assert "[content truncated]" in result.llm_content and len(result.llm_content) < 25_000


async def test_binary_content_is_described(site: str) -> None:
    result = await fetch(WebFetchTool(allow_private=True), f"{site}/image")
    assert "[binary content of type image/png, 108 bytes, not shown]" in result.llm_content


async def test_loopback_refused_without_the_setting(site: str) -> None:
    result = await fetch(WebFetchTool(), f"Read {site}/page")
    assert result.error is not None
    assert "private or loopback address (127.0.0.1)" in result.llm_content


class _TrustsOnlyTheIp(WebFetchTool):
    """Treats 127.0.0.1 as a public host, so a redirect to another loopback address must be checked on its own.

    (The redirect names 127.0.0.2, not `localhost`: that name does not resolve on every machine.)"""

    async def refusal(self, host: str, addresses: list[str] | None = None) -> str | None:
        return None if host == "127.0.0.1" else await super().refusal(host, addresses)


async def test_redirect_to_private_address_is_refused(site: str) -> None:
    result = await fetch(_TrustsOnlyTheIp(), f"{site}/to-localhost")
    assert result.error is not None
    assert "refused: 127.0.0.2 resolves to a private or loopback address" in result.llm_content


async def test_confirmation_lists_urls() -> None:
    tool = WebFetchTool()
    params = tool.validate_params({"prompt": "see https://a.example/x, and (https://b.example/y)."})
    details = await tool.should_confirm_execute(params, AbortSignal())
    assert isinstance(details, InfoConfirmation)
    assert details.urls == ("https://a.example/x", "https://b.example/y")


@pytest.mark.parametrize(("prompt", "urls"), [
    ("no urls here", []),
    ("https://a.com/x. http://b.org/y?q=1!", ["https://a.com/x", "http://b.org/y?q=1"]),
    ("https://en.wikipedia.org/wiki/Foo_(bar)", ["https://en.wikipedia.org/wiki/Foo_(bar)"]),
    ("dup https://a.com https://a.com", ["https://a.com"]),
    ("<https://a.com/z>", ["https://a.com/z"]),
])
def test_extract_urls(prompt: str, urls: list[str]) -> None:
    assert extract_urls(prompt) == urls


def test_prompt_without_url_is_invalid() -> None:
    error = WebFetchTool().validate_params({"prompt": "summarize the news"})
    assert not isinstance(error, WebFetchParams) and error.kind is ToolErrorKind.invalid_params


def test_github_blob_becomes_raw() -> None:
    assert github_raw("https://github.com/o/r/blob/main/README.md") == \
        "https://raw.githubusercontent.com/o/r/main/README.md"


async def test_abort_ends_a_slow_fetch_at_once(site: str) -> None:
    import asyncio
    import time

    tool = WebFetchTool(allow_private=True)
    params = tool.validate_params({"prompt": f"{site}/slow"})
    assert isinstance(params, WebFetchParams)
    signal = AbortSignal()
    asyncio.get_running_loop().call_later(0.2, signal.abort)
    started = time.monotonic()
    result = await tool.execute(params, signal)
    assert result.error is not None and result.error.kind is ToolErrorKind.cancelled
    assert time.monotonic() - started < 2  # the page takes 3 s


class _StubDns(WebFetchTool):
    """A DNS of our own for names that exist nowhere: `answers[name]` is a list of answers, one per lookup (the
    last one repeats). Names the policy sees as public may still point at 127.0.0.1: that is the attack."""

    def __init__(self, answers: dict[str, list[list[str]]], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.answers = answers
        self.lookups: list[str] = []

    async def resolve(self, host: str) -> list[str]:
        self.lookups.append(host)
        queue = self.answers.get(host)
        if queue is None:
            return await super().resolve(host)
        return queue.pop(0) if len(queue) > 1 else queue[0]


async def test_the_connection_goes_to_the_address_that_was_checked(site: str) -> None:
    # site.invalid resolves nowhere but in the stub: the page loads only if the checked address is the one used
    port = site.rsplit(":", 1)[1]
    tool = _StubDns({"site.invalid": [["127.0.0.1"]]}, allow_private=True)
    result = await fetch(tool, f"Read http://site.invalid:{port}/page")
    assert result.ok, result.llm_content
    assert "The answer is 42." in result.llm_content


async def test_dns_rebinding_between_check_and_connect_is_refused(site: str) -> None:
    # the first answer is public (the check passes), the next one is loopback: the connection must not be made
    port = site.rsplit(":", 1)[1]
    tool = _StubDns({"rebind.invalid": [["93.184.216.34"], ["127.0.0.1"]]})
    result = await fetch(tool, f"Read http://rebind.invalid:{port}/page")
    assert result.error is not None
    assert "refused: rebind.invalid resolves to a private or loopback address (127.0.0.1)" in result.llm_content
    assert tool.lookups == ["rebind.invalid", "rebind.invalid"]
