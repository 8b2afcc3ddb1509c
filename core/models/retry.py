"""When and how long to wait before retrying a model request: backoff with jitter, or the server's own delay."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_ATTEMPTS = 5
# A server asking for a longer pause than this means a spent quota, not a blip: report it instead of hanging.
LONGEST_HONOURED_DELAY_S = 120.0

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = MAX_ATTEMPTS
    initial_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.3  # +-30%

    def backoff(self, attempt: int) -> float:
        """Exponential delay after failed `attempt` (1-based), with jitter so clients don't retry in step."""
        base = min(self.max_delay_s, self.initial_delay_s * 2 ** (attempt - 1))
        return max(0.0, base * (1 + random.uniform(-self.jitter, self.jitter)))


def is_retryable_status(status: int | None) -> bool:
    return status is not None and (status == 429 or 500 <= status < 600)


def server_retry_delay(details: Any, headers: Mapping[str, str] | None) -> float | None:
    """The delay the server asked for: google.rpc.RetryInfo `retryDelay` ("3s", "1.5s") in the error
    details, else a Retry-After header in seconds."""
    error = details.get("error", details) if isinstance(details, Mapping) else None
    for item in (error or {}).get("details", []) if isinstance(error, Mapping) else []:
        if isinstance(item, Mapping) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    if headers is not None:
        value = headers.get("retry-after") or headers.get("Retry-After")
        if value is not None:
            try:
                return max(0.0, float(value))
            except ValueError:
                return None  # an HTTP date: rare from Google; fall back to backoff
    return None
