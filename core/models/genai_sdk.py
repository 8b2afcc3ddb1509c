"""google-genai, imported once and kept on the HTTP stack our retries are built on (httpx, never aiohttp)."""

from __future__ import annotations

import sys
import threading
from types import ModuleType

_lock = threading.Lock()


def genai_sdk() -> ModuleType:
    """The `google.genai` package, imported without aiohttp.

    aiohttp is installed for `gemini-tui serve` (textual-serve), and the SDK imports it whenever it can and then
    sends its async requests through it: a stream broken part-way would then fail before the chunks already
    received are handed over, and the import alone costs a headless run or an ACP agent a few tenths of a second.
    Hiding it while the SDK is imported keeps both away; a later import of aiohttp (the web server's) is unaffected.
    """
    with _lock:
        loaded = sys.modules.get("google.genai")
        if loaded is not None:
            return loaded
        hidden = "aiohttp" not in sys.modules
        if hidden:
            sys.modules["aiohttp"] = None  # type: ignore[assignment]  # None makes `import aiohttp` fail: documented
        try:
            from google import genai
            from google.genai import _api_client
        finally:
            if hidden and "aiohttp" in sys.modules and sys.modules["aiohttp"] is None:
                del sys.modules["aiohttp"]
        _api_client.has_aiohttp = False  # in case aiohttp was imported before us (a web server in this process)
        return genai
