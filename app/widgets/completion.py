"""Completion candidates for the prompt: `/command` names and `@path` entries under the root."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# Directories nobody means to mention with @: they would drown the list.
SKIPPED_DIRS = {".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


@dataclass(frozen=True)
class Candidate:
    """`replacement` replaces the token being typed; `label` is what the list shows."""

    replacement: str
    label: str


def token_at(line: str, column: int) -> tuple[int, str]:
    """The whitespace-delimited token that ends at `column`, and where it starts."""
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    return start, line[start:column]


def complete_command(token: str, commands: dict[str, str], limit: int = 12) -> list[Candidate]:
    """`/me` -> `/memory`: commands whose name starts with what was typed, with their one-line help."""
    typed = token[1:].lower()
    return [Candidate(f"/{name} ", f"/{name}  {help_text}") for name, help_text in commands.items()
            if name.startswith(typed)][:limit]


def complete_path(root: Path, token: str, limit: int = 30) -> list[Candidate]:
    """`@src/ma` -> `@src/main.py`: entries of the typed directory (relative to the root) matching the rest."""
    typed = token[1:].replace("\\ ", " ")
    folder, _, stem = typed.rpartition("/")
    base = (root / folder).resolve() if folder else root
    try:
        base.relative_to(root)  # never list outside the root
    except ValueError:
        return []
    found: list[Candidate] = []
    try:
        with os.scandir(base) as entries:
            for entry in sorted(entries, key=lambda e: (not e.is_dir(), e.name.lower())):
                if entry.name in SKIPPED_DIRS or not entry.name.lower().startswith(stem.lower()):
                    continue
                if entry.name.startswith(".") and not stem.startswith("."):
                    continue
                rel = f"{folder}/{entry.name}" if folder else entry.name
                suffix = "/" if entry.is_dir() else ""
                escaped = rel.replace(" ", "\\ ")
                found.append(Candidate(f"@{escaped}{suffix}" + ("" if suffix else " "), f"@{rel}{suffix}"))
                if len(found) >= limit:
                    break
    except OSError:
        return []
    return found
