"""What a Gemini CLI user brings beyond settings.json: extensions, custom commands and other workspace
directories, gathered once when the session is built."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gemini_tui.core.setup.config import Settings
from gemini_tui.core.setup.custom_commands import CustomCommand, load_custom_commands
from gemini_tui.core.setup.extensions import Extension, apply, find_extensions, select
from gemini_tui.core.setup.skills import SkillSet, load_skills


@dataclass
class UserSetup:
    settings: Settings  # with the extensions' MCP servers and excluded tools merged in
    extensions: list[Extension] = field(default_factory=list)
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    include_dirs: list[Path] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    skills: SkillSet = field(default_factory=SkillSet)  # Agent Skills (core/setup/skills.py)


def include_directories(settings: Settings, root: Path, extra: Sequence[str] = ()) -> tuple[list[Path], list[str]]:
    """`context.includeDirectories` and `--include-directories` as absolute, existing directories."""
    found: list[Path] = []
    notices: list[str] = []
    for written in [*settings.include_directories, *extra]:
        for item in written.split(","):
            item = item.strip()
            if not item:
                continue
            path = Path(item).expanduser()
            path = (path if path.is_absolute() else root / path).resolve()
            if not path.is_dir():
                notices.append(f"Included directory {item} is not a directory; it is not part of the workspace.")
            elif path != root and path not in found:
                found.append(path)
    return found, notices


def load_user_setup(settings: Settings, root: Path, wanted_extensions: Sequence[str] | None = None,
                    include: Sequence[str] = ()) -> UserSetup:
    trusted = settings.workspace_trusted
    installed, notices = find_extensions(settings.home, root, workspace_trusted=trusted)
    extensions, unknown = select(installed, wanted_extensions)
    notices += unknown
    folders: list[tuple[Path, str]] = [(e.commands_dir, f"extension {e.name}") for e in extensions
                                       if e.commands_dir is not None]
    folders.append((settings.gemini_dir / "commands", "user"))
    project = root / ".gemini" / "commands"
    if project.resolve() != (settings.gemini_dir / "commands").resolve():
        if trusted:
            folders.append((project, "project"))
        elif project.is_dir():
            notices.append(f"{project}: commands of an untrusted folder are not loaded.")
    commands, command_notices = load_custom_commands(folders)
    directories, directory_notices = include_directories(settings, root, include)
    skills = load_skills(settings, root, [(e.name, e.path / "skills") for e in extensions])
    return UserSetup(apply(settings, extensions), extensions, commands, directories,
                     [*notices, *command_notices, *directory_notices, *skills.notices], skills)
