"""GEMINI.md context files: found above, at and below the root, joined into the system instruction."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Memory:
    """The joined text of every context file, and the files it came from (in order)."""

    text: str = ""
    files: tuple[Path, ...] = field(default_factory=tuple)


def load_memory(root: Path, home: Path, file_names: list[str]) -> Memory:
    return Memory()
