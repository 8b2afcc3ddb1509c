"""Setup room: editing a settings.json scope in place (`gemini-tui mcp`, `gemini-tui skills`, `/agents`): read
as an object, refused when rewriting would lose its comments, written back atomically."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.jsonc import strip_json_comments
from gemini_tui.core.setup.config import SETTINGS_FILE, gemini_home


class SettingsFileError(Exception):
    pass


def settings_path(scope: str, root: Path) -> Path:
    home = gemini_home()
    user = home / ".gemini" / SETTINGS_FILE
    if scope == "user":
        return user
    project = root / ".gemini" / SETTINGS_FILE
    if project.resolve() == user.resolve():
        raise SettingsFileError("Please use --scope user to edit settings in the home directory.")
    return project


def read_for_edit(path: Path) -> dict[str, Any]:
    """The file's object. A file with comments is refused: rewriting it would drop them."""
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    if not raw.strip():
        return {}
    plain = strip_json_comments(raw)
    if plain != raw:
        raise SettingsFileError(f"{path} has comments or trailing commas, which rewriting it would lose; "
                                "edit it by hand.")
    try:
        data = json.loads(plain)
    except json.JSONDecodeError as exc:
        raise SettingsFileError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}); fix it first.") from exc
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} does not hold a JSON object; fix it first.")
    return data


def write_settings(path: Path, data: dict[str, Any]) -> None:
    """Atomically: a temporary file beside it, fsynced, renamed over it (its mode kept)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
