"""`gemini-tui skills list|install|uninstall|enable|disable`: Agent Skills as `gemini skills` manages them (skills in
`~/.gemini/skills` or `.gemini/skills`, `skills.disabled` in the scope's settings.json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gemini_tui.core.setup.config import gemini_home, load_settings
from gemini_tui.core.setup.extensions import find_extensions
from gemini_tui.core.setup.settings_edit import SettingsFileError, read_for_edit, settings_path, write_settings
from gemini_tui.core.setup.skills import SkillSet, install, load_skills, uninstall

SCOPES = ("user", "workspace")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gemini-tui skills", description="Manage Agent Skills (SKILL.md folders).")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="list the skills found and whether they are enabled")
    listing.add_argument("--all", action="store_true", help="accepted for Gemini CLI's sake (no built-in skills)")
    add = sub.add_parser("install", help="install skills from a folder or a git repository")
    add.add_argument("source")
    add.add_argument("--scope", choices=SCOPES, default="user")
    add.add_argument("--path", help="the folder inside the repository holding the skill(s)")
    add.add_argument("--consent", action="store_true", help="skip the confirmation")
    remove = sub.add_parser("uninstall", help="remove an installed skill")
    remove.add_argument("name")
    remove.add_argument("--scope", choices=SCOPES, default="user")
    for action in ("enable", "disable"):
        switch = sub.add_parser(action, help=f"{action} a skill (skills.disabled in settings.json)")
        switch.add_argument("name")
        switch.add_argument("--scope", choices=SCOPES, default="user")
    return parser


def current_skills(root: Path) -> SkillSet:
    settings = load_settings(root)
    extensions, _ = find_extensions(settings.home, root, workspace_trusted=settings.workspace_trusted)
    return load_skills(settings, root, [(e.name, e.path / "skills") for e in extensions])


def skills_dir(scope: str, root: Path) -> Path:
    return (gemini_home() / ".gemini" / "skills") if scope == "user" else root / ".gemini" / "skills"


def list_skills(root: Path) -> int:
    found = current_skills(root)
    for notice in found.notices:
        print(f"warning: {notice}", file=sys.stderr)
    if not found.skills:
        print("No skills found.")
        return 0
    for skill in found.skills:
        state = "disabled" if skill.disabled else "enabled"
        print(f"{skill.name} [{state}] ({skill.origin}) {skill.location.parent}")
        print(f"  {skill.description}")
    return 0


def switch(name: str, scope: str, root: Path, *, enable: bool) -> int:
    path = settings_path("user" if scope == "user" else "project", root)
    data = read_for_edit(path)
    section = data.setdefault("skills", {})
    if not isinstance(section, dict):
        raise SettingsFileError(f"{path}: skills is not an object; fix it first.")
    disabled = [n for n in section.get("disabled", []) if isinstance(n, str)]
    known = current_skills(root).get(name)
    if known is None and not enable:
        print(f"gemini-tui skills: no skill {name!r} is installed.", file=sys.stderr)
        return 1
    if enable:
        section["disabled"] = [n for n in disabled if n.lower() != name.lower()]
    elif name.lower() not in (n.lower() for n in disabled):
        section["disabled"] = [*disabled, name]
    write_settings(path, data)
    print(f"Skill {name!r} {'enabled' if enable else 'disabled'} in {path}.")
    return 0


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    root = Path.cwd().resolve()
    try:
        match args.action:
            case "install":
                if not args.consent and sys.stdin.isatty():
                    answer = input(f"Skills run with the model's trust and may tell it to run commands. Install "
                                   f"from {args.source}? [y/N] ")
                    if answer.strip().lower() not in ("y", "yes"):
                        print("Not installed.")
                        return 1
                for folder in install(args.source, skills_dir(args.scope, root), subpath=args.path):
                    print(f"Installed skill {folder.name} into {folder}.")
                return 0
            case "uninstall":
                removed = uninstall(args.name, skills_dir(args.scope, root))
                print(f"Uninstalled skill {args.name} ({removed}).")
                return 0
            case "enable" | "disable":
                return switch(args.name, args.scope, root, enable=args.action == "enable")
            case _:
                return list_skills(root)
    except (SettingsFileError, ValueError, KeyError, OSError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"gemini-tui skills: {message}", file=sys.stderr)
        return 1
