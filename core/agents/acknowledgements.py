"""Agents room: which of a project's agent files the user has accepted, kept as Gemini CLI 0.61 keeps them
(`~/.gemini/acknowledgments/agents.json`: project root -> agent name -> sha256 of the file)."""

from __future__ import annotations

import json
from pathlib import Path

from gemini_tui.core.persistence.private_file import locked, write_private


class Acknowledgements:
    """A project agent runs only once acknowledged with its file's current hash: a changed file asks again."""

    def __init__(self, gemini_dir: Path) -> None:
        self.path = gemini_dir / "acknowledgments" / "agents.json"

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def is_acknowledged(self, project: Path, name: str, file_hash: str) -> bool:
        entry = self._read().get(str(project))
        return isinstance(entry, dict) and entry.get(name) == file_hash

    def acknowledge(self, project: Path, name: str, file_hash: str) -> None:
        with locked(self.path):
            data = self._read()
            entry = data.get(str(project))
            if not isinstance(entry, dict):
                entry = data[str(project)] = {}
            entry[name] = file_hash
            write_private(self.path, json.dumps(data, indent=2))
