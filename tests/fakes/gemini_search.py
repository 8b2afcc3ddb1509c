"""A Gemini endpoint on 127.0.0.1 answering `generateContent` like Google Search grounding does (answer text plus
groundingMetadata), for google_web_search tests through the real google-genai client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.loopback import QuietHandler, serve_handler

ANSWER = "Python 3.13 was released in October 2024. It adds a free-threaded build — experimental."


def grounded_response(text: str = ANSWER) -> dict[str, Any]:
    first = "Python 3.13 was released in October 2024."
    end_second = len(text.encode("utf-8"))
    return {
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": "STOP",
            "groundingMetadata": {
                "webSearchQueries": ["python 3.13 release"],
                "groundingChunks": [
                    {"web": {"uri": "https://python.org/downloads/release/python-3130/", "title": "python.org"}},
                    {"web": {"uri": "https://docs.python.org/3.13/whatsnew/3.13.html", "title": "What's New"}},
                ],
                "groundingSupports": [
                    {"segment": {"startIndex": 0, "endIndex": len(first.encode()), "text": first},
                     "groundingChunkIndices": [0]},
                    {"segment": {"startIndex": len(first.encode()) + 1, "endIndex": end_second},
                     "groundingChunkIndices": [0, 1]},
                ],
            },
        }],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 20, "totalTokenCount": 25},
    }


@dataclass
class SearchServer:
    base_url: str
    requests: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)
    replies: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


@contextmanager
def serve_search() -> Iterator[SearchServer]:
    state = SearchServer("")

    class Handler(QuietHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            status, payload = state.replies.pop(0) if state.replies else (200, grounded_response())
            self.send(status, json.dumps(payload).encode(), "application/json")

    with serve_handler(Handler) as base_url:
        state.base_url = base_url
        yield state
