"""web_fetch: the URLs in a prompt fetched (timeout, size cap, no private addresses), HTML made readable."""

from __future__ import annotations

import asyncio
import codecs
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal, finished_unless_aborted
from gemini_tui.core.ground.confirmation import ConfirmationDetails, InfoConfirmation
from gemini_tui.core.ground.display import FetchedPage, WebPage
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.web_fetch.html_text import html_to_text

MAX_URLS = 20
MAX_REDIRECTS = 5
_URL = re.compile(r"https?://[^\s<>\"'`]+", re.I)
_TRAILING = ".,;:!?'\"]}>"
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "application/javascript",
               "application/ld+json", "application/rss", "application/atom")


def extract_urls(prompt: str) -> list[str]:
    """The http(s) URLs in `prompt`, in order, without duplicates or trailing punctuation."""
    urls: list[str] = []
    for match in _URL.finditer(prompt):
        url = match.group(0)
        while url and (url[-1] in _TRAILING or (url[-1] == ")" and url.count("(") < url.count(")"))):
            url = url[:-1]
        if url not in urls and urlsplit(url).hostname:
            urls.append(url)
    return urls


def github_raw(url: str) -> str:
    """A GitHub `blob` page becomes the raw file, which is what the user meant to read."""
    match = re.match(r"https?://github\.com/([^/]+)/([^/]+)/blob/(.+)", url)
    return f"https://raw.githubusercontent.com/{match[1]}/{match[2]}/{match[3]}" if match else url


class WebFetchParams(ToolParams):
    prompt: str = Field(description=(
        "A comprehensive prompt that includes the URL(s) (up to 20) to fetch and specific instructions on how "
        "to process their content (e.g., \"Summarize https://example.com/article and extract key points from "
        "https://another.com/data\"). Must contain at least one URL starting with http:// or https://."))


class AddressRefused(Exception):
    """No connection was made: the address policy refused it, or the name did not resolve (the message says)."""


@dataclass
class _Fetch:
    url: str
    final_url: str = ""
    status: int | None = None
    content_type: str = ""
    body: bytes = b""
    encoding: str = "utf-8"
    truncated: bool = False
    error: str | None = None


class WebFetchTool(BaseTool[WebFetchParams]):
    name = "web_fetch"
    display_name = "WebFetch"
    description = (
        "Processes content from URL(s), including local and private network addresses (e.g., localhost), "
        "embedded in a prompt. Include up to 20 URLs and instructions (e.g., summarize, extract specific data) "
        "directly in the 'prompt' parameter. Returns the readable text of each page with its source, for you "
        "to answer the instructions from."
    )
    Params = WebFetchParams
    kind = ToolKind.fetch

    def __init__(self, *, allow_private: bool = False, timeout_s: float = 10.0, max_bytes: int = 2_000_000,
                 max_chars: int = 100_000) -> None:
        """`allow_private` lets loopback and private-network addresses through (a setting; tests use it)."""
        self.allow_private = allow_private
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.max_chars = max_chars
        if not allow_private:
            self.description = type(self).description.replace(  # type: ignore[misc]
                "including local and private network addresses (e.g., localhost), ", "")

    def check_params(self, params: WebFetchParams) -> ToolError | None:
        if not params.prompt.strip():
            return ToolError(ToolErrorKind.invalid_params, "The 'prompt' parameter cannot be empty.")
        if not extract_urls(params.prompt):
            return ToolError(ToolErrorKind.invalid_params, "The 'prompt' must contain at least one valid URL "
                                                           "(starting with http:// or https://).")
        return None

    def get_description(self, params: WebFetchParams) -> str:
        text = params.prompt.replace("\n", " ")
        return f'Processing URLs and instructions from prompt: "{text[:100]}{"..." if len(text) > 100 else ""}"'

    async def should_confirm_execute(self, params: WebFetchParams,
                                     abort_signal: AbortSignal) -> ConfirmationDetails | None:
        urls = tuple(extract_urls(params.prompt)[:MAX_URLS])
        return InfoConfirmation(title="Confirm Web Fetch", prompt=params.prompt, urls=urls)

    # ----- address policy ----------------------------------------------------------------------------------
    async def resolve(self, host: str) -> list[str]:
        """The addresses `host` stands for (an IP literal stands for itself). Raises OSError."""
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
        return list(dict.fromkeys(str(info[4][0]) for info in infos))

    async def refusal(self, host: str, addresses: list[str] | None = None) -> str | None:
        """Why `host` (resolved now, or to `addresses`) may not be fetched: a non-public address; or None."""
        if self.allow_private:
            return None
        if addresses is None:
            try:
                addresses = await self.resolve(host)
            except OSError as exc:
                return f"cannot resolve {host}: {exc}"
        for text in addresses:
            address = ipaddress.ip_address(text.split("%", 1)[0])
            if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
                address = address.ipv4_mapped
            if not address.is_global:
                return (f"{host} resolves to a private or loopback address ({address}); fetching such addresses "
                        "is turned off (enable the private-address setting to allow it)")
        return None

    async def connect_to(self, host: str, port: int, connect: Callable[[str, int], Awaitable[Any]]) -> Any:
        """Opens a connection with `connect(address, port)` to an address of `host` that passed the policy just
        now: the request never resolves the name again, so a second DNS answer (rebinding) cannot redirect it."""
        try:
            addresses = await self.resolve(host)
        except OSError as exc:
            raise AddressRefused(f"cannot resolve {host}: {exc}") from exc
        if (why := await self.refusal(host, addresses)) is not None:
            raise AddressRefused(f"refused: {why}")
        failure: Exception | None = None
        for address in addresses:
            try:
                return await connect(address, port)
            except OSError as exc:  # the next address of the host may answer
                failure = exc
            except Exception as exc:  # httpcore's ConnectError and timeouts
                failure = exc
        raise failure or AddressRefused(f"{host} has no address")

    # ----- fetching ----------------------------------------------------------------------------------------
    async def _fetch(self, client: Any, url: str) -> _Fetch:
        result = _Fetch(url)
        current = github_raw(url)
        for _ in range(MAX_REDIRECTS + 1):
            parts = urlsplit(current)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                result.error = f"unsupported URL: {current}"
                return result
            if (why := await self.refusal(parts.hostname)) is not None:
                result.error = f"refused: {why}"
                return result
            async with client.stream("GET", current) as response:
                if response.is_redirect and "location" in response.headers:
                    current = urljoin(current, response.headers["location"])
                    continue
                result.final_url = current
                result.status = response.status_code
                result.content_type = response.headers.get("content-type", "")
                if response.status_code >= 400:
                    result.error = f"HTTP {response.status_code} {response.reason_phrase}".strip()
                    return result
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size >= self.max_bytes:
                        result.truncated = True
                        break
                result.body = b"".join(chunks)[: self.max_bytes]
                result.encoding = response.charset_encoding or "utf-8"
                try:
                    codecs.lookup(result.encoding)
                except LookupError:  # a charset Python does not know: UTF-8 with replacements still reads
                    result.encoding = "utf-8"
                return result
        result.error = f"too many redirects (more than {MAX_REDIRECTS})"
        return result

    async def _fetch_bounded(self, client: Any, url: str) -> _Fetch:
        try:
            async with asyncio.timeout(self.timeout_s * 2):  # a server that drips bytes still ends
                return await self._fetch(client, url)
        except TimeoutError:
            return _Fetch(url, error=f"timed out after {self.timeout_s:g} s")
        except AddressRefused as exc:
            return _Fetch(url, error=str(exc))
        except Exception as exc:  # network errors of any kind belong to this URL only
            return _Fetch(url, error=f"{type(exc).__name__}: {exc}".rstrip(": "))

    def _page(self, fetched: _Fetch, char_budget: int) -> FetchedPage:
        if fetched.error is not None:
            return FetchedPage(fetched.url, fetched.final_url, fetched.status, fetched.content_type.split(";")[0],
                               error=fetched.error)
        encoding = fetched.encoding
        mime = fetched.content_type.split(";")[0].strip().lower()
        title = ""
        if mime in ("", "text/html", "application/xhtml+xml"):
            readable = html_to_text(fetched.body.decode(encoding, "replace"), fetched.final_url)
            title, text = readable.title, readable.text
        elif mime.startswith(_TEXT_TYPES) or mime.endswith(("+json", "+xml")):
            text = fetched.body.decode(encoding, "replace")
        else:
            text = f"[binary content of type {mime}, {len(fetched.body)} bytes, not shown]"
        truncated = fetched.truncated or len(text) > char_budget
        text = text[:char_budget]
        return FetchedPage(fetched.url, fetched.final_url, fetched.status, mime, title, text, truncated)

    async def _execute(self, params: WebFetchParams, abort_signal: AbortSignal,
                       context: CallContext) -> ToolResult:
        import httpx2

        all_urls = extract_urls(params.prompt)
        urls = all_urls[:MAX_URLS]
        timeout = httpx2.Timeout(self.timeout_s)
        headers = {"User-Agent": "gemini-tui web_fetch (+https://github.com/google-gemini/gemini-cli)",
                   "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5"}
        transport = httpx2.AsyncHTTPTransport()
        transport._pool._network_backend = _CheckedBackend(self, transport._pool._network_backend)  # pyright: ignore[reportAttributeAccessIssue]
        async with httpx2.AsyncClient(timeout=timeout, follow_redirects=False, headers=headers,
                                      transport=transport) as client:
            work = asyncio.ensure_future(asyncio.gather(*(self._fetch_bounded(client, u) for u in urls)))
            if not await finished_unless_aborted(work, abort_signal):
                return ToolResult.failure(ToolErrorKind.cancelled, "web_fetch was cancelled.")
            fetched: list[_Fetch] = work.result()
        budget = max(self.max_chars // max(len(urls), 1), 1000)
        pages = tuple(self._page(f, budget) for f in fetched)
        display = WebPage(params.prompt, pages)
        llm = self._llm_content(params.prompt, pages, skipped=all_urls[MAX_URLS:])
        if all(p.error is not None for p in pages):
            return ToolResult(llm, display, ToolError(ToolErrorKind.execution_failed,
                                                       "None of the URLs could be fetched."))
        return ToolResult(llm, display)

    @staticmethod
    def _llm_content(prompt: str, pages: tuple[FetchedPage, ...], skipped: list[str]) -> str:
        ok = sum(1 for p in pages if p.error is None)
        lines = [f"Fetched {ok} of {len(pages)} URL(s) for this request: {prompt}"]
        if skipped:
            lines.append(f"Only the first {MAX_URLS} URLs were fetched; skipped: {', '.join(skipped)}")
        for number, page in enumerate(pages, 1):
            lines.append("")
            where = page.final_url or page.url
            heading = f"--- [{number}] {where}" + (f" ({page.title})" if page.title else "") + " ---"
            lines.append(heading)
            if page.error is not None:
                lines.append(f"Error fetching {page.url}: {page.error}")
                continue
            lines.append(page.text or "(empty page)")
            if page.truncated:
                lines.append("[content truncated]")
        lines.append("")
        lines.append("Sources:")
        for number, page in enumerate(pages, 1):
            if page.error is None:
                lines.append(f"[{number}] {page.title or page.final_url}: {page.final_url or page.url}")
        return "\n".join(lines)


class _CheckedBackend:
    """httpcore's network backend with the address policy at connect time (httpx2 offers no public hook for
    it, hence the pool's `_network_backend`; the web_fetch tests fail loudly if that name ever changes)."""

    def __init__(self, tool: WebFetchTool, inner: Any) -> None:
        self.tool = tool
        self.inner = inner

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None, socket_options: Any = None) -> Any:
        async def connect(address: str, port: int) -> Any:
            return await self.inner.connect_tcp(address, port, timeout=timeout, local_address=local_address,
                                                socket_options=socket_options)

        return await self.tool.connect_to(host, port, connect)

    async def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        raise AddressRefused("web_fetch does not connect to unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)
