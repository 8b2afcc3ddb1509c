"""Copying to the terminal's clipboard through OSC 52 (works over SSH, and in tmux with `set-clipboard on`):
what `/copy` takes from the conversation (the last answer's Markdown, a code block, a tool's output) and why
a terminal may not take it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

from gemini_tui.core.ground.model_api import FunctionResponse
from gemini_tui.core.ground.parts import TextPart

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\2[`~]*[ \t]*$", re.S | re.M)


def last_answer(contents: Sequence[Any]) -> str | None:
    """The text of the model's last answer exactly as it sent it (its last turn that had text)."""
    for content in reversed(list(contents)):
        if content.role != "model":
            continue
        texts = [part.text for part in content.parts if isinstance(part, TextPart)]
        if any(texts):
            return "".join(texts)
    return None


def code_blocks(markdown: str) -> list[str]:
    """The fenced code blocks of `markdown`, their code only (no fences), in order."""
    return [match.group(3) for match in _FENCE.finditer(markdown)]


def last_tool_output(contents: Sequence[Any]) -> tuple[str, str] | None:
    """(tool name, what it answered the model) of the last function response."""
    for content in reversed(list(contents)):
        for part in reversed(content.parts):
            if isinstance(part, FunctionResponse):
                value = part.response.get("output", part.response.get("error", part.response))
                return part.name, value if isinstance(value, str) else str(value)
    return None


def clipboard_problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why the terminal will not take an OSC 52 copy, when that can be known (tmux says so; a Linux console
    has no clipboard). None: it should work."""
    env = os.environ if env is None else env
    if env.get("TERM") in ("linux", "dumb"):
        return f"this terminal ({env.get('TERM')}) has no clipboard to copy to"
    if env.get("TMUX") and shutil.which("tmux"):
        try:
            done = subprocess.run(["tmux", "show-options", "-gv", "set-clipboard"], capture_output=True, text=True,
                                  timeout=2)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode == 0 and done.stdout.strip() == "off":
            return ("tmux has set-clipboard off, so it drops the copy; run `tmux set -g set-clipboard on` "
                    "(or add it to ~/.tmux.conf)")
    return None
