"""Setup room: Agent Skills (agentskills.io `SKILL.md` folders) found where Gemini CLI 0.61 looks, checked with the
reference validator (`skills-ref`), and worded for the system instruction and `activate_skill` as Gemini CLI does.

Precedence, lowest first (a later skill of the same name replaces an earlier one): extensions' `skills/`,
`~/.gemini/skills`, `~/.agents/skills`, then, only in a trusted folder, `.gemini/skills` and `.agents/skills`.
A folder holds `SKILL.md` itself or one level of skill folders each with their `SKILL.md`."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ACTIVATE_SKILL = "activate_skill"
_FRONT_MATTER = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?$")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    location: Path  # its SKILL.md
    body: str
    origin: str  # "user", "workspace", "extension <name>"
    problems: tuple[str, ...] = ()  # what the agentskills.io reference validator says against it
    disabled: bool = False

    @property
    def folder(self) -> Path:
        return self.location.parent


@dataclass
class SkillSet:
    skills: list[Skill] = field(default_factory=list)  # every skill found, disabled ones too, in order
    notices: list[str] = field(default_factory=list)

    @property
    def enabled(self) -> list[Skill]:
        return [skill for skill in self.skills if not skill.disabled]

    def get(self, name: str) -> Skill | None:
        wanted = name.lower()
        return next((s for s in self.skills if s.name.lower() == wanted), None)


def skill_folders(gemini_dir: Path, root: Path, *, trusted: bool,
                  extensions: Iterable[tuple[str, Path]] = ()) -> list[tuple[Path, str]]:
    """Where skills are looked for, lowest precedence first, with the origin each gives its skills."""
    agents_dir = gemini_dir.parent / ".agents"
    folders = [(path, f"extension {name}") for name, path in extensions]
    folders += [(gemini_dir / "skills", "user"), (agents_dir / "skills", "user")]
    if trusted:
        folders += [(root / ".gemini" / "skills", "workspace"), (root / ".agents" / "skills", "workspace")]
    return folders


def discover(folders: Sequence[tuple[Path, str]], disabled: Iterable[str] = ()) -> SkillSet:
    found: dict[str, Skill] = {}
    notices: list[str] = []
    seen: set[Path] = set()
    off = {name.lower() for name in disabled}
    for folder, origin in folders:
        resolved = folder.resolve() if folder.exists() else folder
        if resolved in seen or not folder.is_dir():
            continue
        seen.add(resolved)
        files = [folder / "SKILL.md"] if (folder / "SKILL.md").is_file() else []
        files += sorted(p / "SKILL.md" for p in folder.iterdir()
                        if p.is_dir() and p.name not in ("node_modules", ".git") and (p / "SKILL.md").is_file())
        for file in files:
            try:
                skill, problem = read_skill(file, origin)
            except Exception as exc:  # a file a stranger planted is skipped with its name, never a crash
                skill, problem = None, f"it cannot be read: {exc!r}"
            if skill is None:
                notices.append(f"{file}: not a skill ({problem}).")
                continue
            if skill.problems:
                notices.append(f"{file}: {'; '.join(skill.problems)} (agentskills.io); loaded anyway.")
            before = found.get(skill.name)
            if before is not None and before.location != skill.location:
                notices.append(f'Skill conflict: "{skill.name}" from {skill.location} overrides the one from '
                               f"{before.location}.")
            found[skill.name] = Skill(skill.name, skill.description, skill.location, skill.body, skill.origin,
                                      skill.problems, skill.name.lower() in off)
    return SkillSet(list(found.values()), notices)


def read_skill(file: Path, origin: str) -> tuple[Skill | None, str]:
    """The skill a SKILL.md describes (None and why when it has no front matter with a name and a description).
    Other departures from the agentskills.io rules are kept as `problems`."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, str(exc)
    match = _FRONT_MATTER.match(text)
    if not match:
        return None, "no YAML front matter between --- lines"
    from skills_ref.errors import ParseError
    from skills_ref.parser import parse_frontmatter
    from skills_ref.validator import validate_metadata

    try:
        metadata, _ = parse_frontmatter(text)
        strict_problem = ""
    except ParseError as exc:  # not YAML: read `name:` and `description:` lines as Gemini CLI falls back to
        metadata, strict_problem = _simple_front_matter(match.group(1)), str(exc)
    except Exception as exc:  # the YAML reader itself breaks on some bytes (a control character)
        metadata, strict_problem = _simple_front_matter(match.group(1)), f"the YAML reader failed: {exc!r}"
    name = metadata.get("name")
    description = metadata.get("description")
    if not isinstance(name, str) or not name.strip() or not isinstance(description, str) or not description.strip():
        return None, "the front matter needs a name and a description"
    try:
        checked = validate_metadata(metadata, file.parent)
    except Exception as exc:
        checked = [f"the checker failed: {exc!r}"]
    problems = tuple(p for p in [strict_problem, *checked] if p)
    clean = re.sub(r'[:\\/<>*?"|]', "-", name)
    return Skill(clean, description, file, (match.group(2) or "").strip(), origin, problems), ""


def _simple_front_matter(block: str) -> dict[str, str]:
    found: dict[str, str] = {}
    lines = block.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        key = re.match(r"^\s*(name|description):\s*(.*)$", line)
        index += 1
        if key is None:
            continue
        value = [key.group(2).strip()]
        if key.group(1) == "description":  # indented lines after it continue it
            while index < len(lines) and re.match(r"^[ \t]+\S", lines[index]):
                value.append(lines[index].strip())
                index += 1
        found[key.group(1)] = " ".join(v for v in value if v)
    return found


def load_skills(settings: Any, root: Path, extensions: Iterable[tuple[str, Path]] = ()) -> SkillSet:
    """The skills a session with these settings (`core.setup.config.Settings`) offers."""
    if not getattr(settings, "skills_enabled", True):
        return SkillSet()
    folders = skill_folders(Path(settings.gemini_dir), root, trusted=settings.workspace_trusted,
                            extensions=extensions)
    found = discover(folders, getattr(settings, "skills_disabled", []))
    for path in (root / ".gemini" / "skills", root / ".agents" / "skills"):
        if not settings.workspace_trusted and path.is_dir() and any(path.iterdir()):
            found.notices.append(f"{path}: skills of an untrusted folder are not loaded.")
    return found


# -- the model's words (Gemini CLI 0.61) -----------------------------------------------------------------------------
def system_section(skills: Sequence[Skill], model: str) -> str:
    """The "Available Agent Skills" section of the system instruction. Gemini CLI words it two ways: its
    Gemini 3 prompt says "call the", its older one "you can call the"."""
    if not skills:
        return ""
    entries = "\n".join(f"  <skill>\n    <name>{s.name}</name>\n    <description>{s.description}</description>\n"
                        f"    <location>{s.location}</location>\n  </skill>" for s in skills)
    verb = "call" if _modern(model) else "you can call"
    return ("# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill "
            f"and receive its detailed instructions, {verb} the `{ACTIVATE_SKILL}` tool with the skill's name.\n\n"
            f"<available_skills>\n{entries}\n</available_skills>")


def _modern(model: str) -> bool:
    return bool(re.match(r"^(models/)?gemini-(3|[4-9])", model))


def activate_description(names: Sequence[str]) -> str:
    hint = f" (Available: {', '.join(repr(n) for n in names)})" if names else ""
    return (f"Activates a specialized agent skill by name{hint}. Returns the skill's instructions wrapped in "
            "`<activated_skill>` tags. These provide specialized guidance for the current task. Use this when you "
            "identify a task that matches a skill's description. ONLY use names exactly as they appear in the "
            "`<available_skills>` section.")


def activate_schema(names: Sequence[str]) -> dict[str, Any]:
    if names:
        prop: dict[str, Any] = {"type": "string", "enum": list(names),
                                "description": "The name of the skill to activate."}
    else:
        prop = {"type": "string", "description": "No skills are currently available."}
    return {"type": "object", "properties": {"name": prop}, "required": ["name"]}


def activated_text(skill: Skill, structure: str) -> str:
    return (f'<activated_skill name="{skill.name}">\n  <instructions>\n    {skill.body}\n  </instructions>\n\n'
            f"  <available_resources>\n    {structure}\n  </available_resources>\n</activated_skill>")


def folder_structure(folder: Path, limit: int = 200) -> str:
    """The skill's files as a tree (what the model may now read), laid out as Gemini CLI lists a folder: a
    summary line, the folder, then in each folder its files before its subfolders."""
    lines: list[str] = []
    count = 0
    cut = False

    def walk(directory: Path, indent: str) -> None:
        nonlocal count, cut
        try:
            entries = [e for e in directory.iterdir() if e.name not in (".git", "node_modules")]
        except OSError:
            return
        files = sorted((e for e in entries if not e.is_dir()), key=lambda p: p.name)
        folders = sorted((e for e in entries if e.is_dir()), key=lambda p: p.name)
        ordered = [*files, *folders]
        for index, entry in enumerate(ordered):
            last = index == len(ordered) - 1
            if count >= limit:
                lines.append(f"{indent}└───...")
                cut = True
                return
            count += 1
            lines.append(f"{indent}{'└───' if last else '├───'}{entry.name}{'/' if entry.is_dir() else ''}")
            if entry.is_dir() and not entry.is_symlink():
                walk(entry, indent + ("    " if last else "│   "))

    walk(folder, "")
    summary = f"Showing up to {limit} items (files + folders)."
    if cut:
        summary += (f" Folders or files indicated with ... contain more items not shown, were ignored, or the "
                    f"display limit ({limit} items) was reached.")
    return "\n".join([summary, "", f"{folder}/", *lines])


# -- managing (gemini-tui skills ...) -------------------------------------------------------------------------------
def install(source: str, target_root: Path, *, subpath: str | None = None) -> list[Path]:
    """Copies the skills of a local folder or a git repository (cloned with git) into `target_root`; returns
    the installed folders. Raises ValueError when the source holds no valid skill."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        base = Path(source).expanduser()
        if not base.exists():
            clone = Path(scratch) / "repo"
            done = subprocess.run(["git", "clone", "--depth", "1", source, str(clone)], capture_output=True,
                                  text=True, timeout=300)
            if done.returncode != 0:
                raise ValueError(f"{source} is neither a folder nor a git repository git can clone: "
                                 f"{done.stderr.strip()}")
            base = clone
        if subpath:
            base = base / subpath
        found = discover([(base, "install")])
        valid = [s for s in found.skills]
        if not valid:
            raise ValueError(f"no skill (a SKILL.md with a name and a description) in {base}")
        installed = []
        target_root.mkdir(parents=True, exist_ok=True)
        for skill in valid:
            target = target_root / skill.name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(skill.folder, target, ignore=shutil.ignore_patterns(".git"))
            installed.append(target)
        return installed


def uninstall(name: str, target_root: Path) -> Path:
    """Removes skill `name` from `target_root`. Raises KeyError when it is not installed there."""
    found = discover([(target_root, "user")]).get(name)
    if found is None or found.folder == target_root:
        raise KeyError(f"no skill {name!r} in {target_root}")
    shutil.rmtree(found.folder)
    return found.folder
