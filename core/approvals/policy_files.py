"""Approvals room: Gemini CLI's policy files (`[[rule]]` tables in TOML) read with their file and line, and matched.

Folders and tiers as Gemini CLI 0.61: admin (`/etc/gemini-cli/policies`, only when root owns it and nobody else
may write it) is tier 5, the user's `~/.gemini/policies` tier 4, extensions' `policies/` tier 2 (deny and ask
only, never for yolo). A rule's final priority is `tier + priority / 1000`; the settings keys sit at fixed
places inside the user tier (`SETTINGS_PRIORITY`), so a rule outranks them exactly where Gemini CLI's would.
Workspace policy folders are not applied (Gemini CLI 0.61 disables them too); a trusted folder that has one gets
a notice saying so.

Unlike Gemini CLI, which skips a whole file when one rule is wrong, each `[[rule]]` table is read on its own:
a broken one gives a notice naming its line and the rest apply; a broken table that is (or may be) a deny rule
fails closed: it denies every call of the tool it names (every tool when not even the name can be read)."""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gemini_tui.core.approvals.pattern_reach import dead_alternatives, never_matches

DEFAULT_TIER, EXTENSION_TIER, WORKSPACE_TIER, USER_TIER, ADMIN_TIER = 1, 2, 3, 4, 5
TIER_NAMES = {DEFAULT_TIER: "default", EXTENSION_TIER: "extension", WORKSPACE_TIER: "workspace",
              USER_TIER: "user", ADMIN_TIER: "admin"}
SYSTEM_POLICIES_DIR = Path("/etc/gemini-cli/policies")
# where Gemini CLI places each settings key among the rules (packages/core/src/policy/config.ts)
SETTINGS_PRIORITY = {"mcp.excluded": USER_TIER + 0.9, "tools.exclude": USER_TIER + 0.4,
                     "tools.allowed": USER_TIER + 0.3, "tools.core": USER_TIER + 0.25,
                     "mcpServers.trust": USER_TIER + 0.2, "mcp.allowed": USER_TIER + 0.1}
DECISIONS = ("allow", "deny", "ask_user")
MODES = ("default", "autoEdit", "yolo", "plan")
_OUR_MODES = {"default": "default", "auto_edit": "autoEdit", "yolo": "yolo", "plan": "plan"}
SHELL_TOOL = "run_shell_command"
KNOWN_KEYS = frozenset({"toolName", "subagent", "mcpName", "argsPattern", "commandPrefix", "commandRegex",
                        "decision", "priority", "modes", "interactive", "toolAnnotations", "allowRedirection",
                        "allow_redirection", "denyMessage", "deny_message"})
_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\"'-]+)\s*\]\]?\s*(?:#.*)?$")
_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")
_NESTED_QUANTIFIER = re.compile(r"\([^)]*[*+?{].*\)[*+?{]")
_GROUP_OPENING = re.compile(r"\(\?(?:[:=!>]|<[=!]|P?<\w+>)")  # `(?:`: its `?` is no quantifier
_REDIRECTION = re.compile(r"(?<![\\])(?:\d*>>?|<<<?|<|&>)")


@dataclass(frozen=True)
class FileRule:
    """One rule of a policy file, for one tool name (a table naming several tools gives one per name)."""

    tool: str  # the name matched: `mcp_<server>_<tool>` when mcpName is given, wildcards as Gemini CLI
    decision: str  # allow | deny | ask_user
    priority: float  # tier + priority/1000
    tier: int
    source: str  # the file
    line: int  # the line of its [[rule]] header
    text: str  # the conditions, shortly, for /permissions and the reason
    mcp_name: str | None = None
    pattern: re.Pattern[str] | None = None
    command_prefix: bool = False
    modes: tuple[str, ...] = ()
    interactive: bool | None = None
    annotations: Mapping[str, Any] | None = None
    deny_message: str | None = None
    allow_redirection: bool = False
    fail_closed: bool = False  # stands for a deny rule that could not be read
    subagent: str | None = None  # only calls made by this subagent match

    @property
    def tier_name(self) -> str:
        return TIER_NAMES.get(self.tier, "default")

    @property
    def place(self) -> str:
        return f"{_home_relative(self.source)}:{self.line}"

    def describe(self) -> str:
        return f"{self.tier_name} policy {self.place} ({self.text} → {self.decision})"


@dataclass(frozen=True)
class FileMatch:
    """What the policy files say about one call: the verdict and the rule that decided it (None when a shell
    line is sent to the user because of a redirection, with no rule)."""

    decision: str
    rule: FileRule | None
    reason: str = ""
    redirected_under: FileRule | None = None  # the allow rule a redirection made ask

    @property
    def priority(self) -> float:
        rule = self.rule or self.redirected_under
        return rule.priority if rule is not None else 0.0

    def describe(self) -> str:
        return self.rule.describe() if self.rule is not None else "policy files: a redirection asks"


@dataclass
class FilePolicy:
    """Every rule read from the policy folders, highest priority first, and the notices the reading gave."""

    rules: list[FileRule] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules.sort(key=lambda rule: -rule.priority)

    def __bool__(self) -> bool:
        return bool(self.rules)

    # -- one call -------------------------------------------------------------------------------------------
    def best(self, names: Iterable[str], args: Mapping[str, Any] | None, server: str | None, mode: str,
             interactive: bool = True, annotations: Mapping[str, Any] | None = None,
             subagent: str | None = None) -> FileRule | None:
        """The highest-priority rule that matches a call of any of `names` (first match wins, as Gemini CLI)."""
        names = list(dict.fromkeys(names))
        flat = stable_stringify(args) if args is not None and any(r.pattern for r in self.rules) else None
        wanted_mode = _OUR_MODES.get(str(mode), str(mode))
        for rule in self.rules:
            if any(rule_matches(rule, name, args, flat, server, wanted_mode, interactive, annotations, subagent)
                   for name in names):
                return rule
        return None

    def match(self, names: Iterable[str], args: Mapping[str, Any] | None, server: str | None, mode: str, *,
              interactive: bool = True, subcommands: Sequence[str] = (),
              annotations: Mapping[str, Any] | None = None, subagent: str | None = None) -> FileMatch | None:
        """The files' verdict on a call, or None when no rule speaks to it. A shell line is judged whole and
        then part by part as Gemini CLI does: any part denied denies, any part asked asks, an allowed line with
        a redirection asks (except under auto_edit and yolo) unless its rule has `allowRedirection`, and an
        allowed line with a part no rule covers is left to the other rules."""
        names = list(names)
        whole = self.best(names, args, server, mode, interactive, annotations, subagent)
        command = args.get("command") if args is not None and SHELL_TOOL in names else None
        if not isinstance(command, str) or not command.strip():
            return FileMatch(whole.decision, whole) if whole is not None else None
        if whole is not None and whole.decision == "deny":
            return FileMatch("deny", whole)
        parts = [part for part in subcommands if part.strip() and part.strip() != command.strip()]
        given = dict(args or {})
        part_rules = [self.best(names, {**given, "command": part}, server, mode, interactive, annotations, subagent)
                      for part in parts]
        for rule in part_rules:
            if rule is not None and rule.decision == "deny":
                return FileMatch("deny", rule)
        if whole is not None and whole.decision == "ask_user":
            return FileMatch("ask_user", whole)
        asked = next((rule for rule in part_rules if rule is not None and rule.decision == "ask_user"), None)
        if asked is not None:
            return FileMatch("ask_user", asked)
        if whole is None:
            return None
        redirected = _REDIRECTION.search(command) is not None
        if redirected and not whole.allow_redirection and mode not in ("auto_edit", "autoEdit", "yolo"):
            return FileMatch("ask_user", None, "The command redirects input or output, and the rule "
                             f"{whole.describe()} does not set allowRedirection.", whole)
        if any(rule is None for rule in part_rules):
            return None
        return FileMatch("allow", whole)

    def describe_rules(self) -> list[str]:
        return [rule.describe() for rule in self.rules]


# -- matching -------------------------------------------------------------------------------------------------------
def rule_matches(rule: FileRule, name: str, args: Mapping[str, Any] | None, flat: str | None, server: str | None,
                 mode: str, interactive: bool, annotations: Mapping[str, Any] | None = None,
                 subagent: str | None = None) -> bool:
    """Gemini CLI's ruleMatches: modes, subagent, mcpName, toolName (with its wildcards), annotations,
    argsPattern, interactive. `name` is the call's name as Gemini CLI spells it (`mcp_<server>_<tool>` for MCP
    tools); `subagent` names the subagent that made the call (None: the session's own model)."""
    if rule.modes and mode not in rule.modes:
        return False
    if rule.subagent is not None and rule.subagent != subagent:
        return False
    if rule.mcp_name is not None:
        if rule.mcp_name == "*":
            if server is None:
                return False
        elif server != rule.mcp_name:
            return False
    if rule.tool != "*":
        if "*" in rule.tool:
            if not _wildcard(rule.tool, name, server):
                return False
        elif name != rule.tool:
            return False
    if rule.annotations and (not annotations or any(annotations.get(key) != value
                                                     for key, value in rule.annotations.items())):
        return False
    if rule.pattern is not None and (not args or flat is None or not rule.pattern.search(flat)):
        return False
    return rule.interactive is None or rule.interactive == interactive


def _wildcard(pattern: str, name: str, server: str | None) -> bool:
    if pattern == "mcp_*":
        return server is not None
    if pattern.startswith("mcp_") and pattern.endswith("_*"):
        expected = pattern[len("mcp_"):-2]
        return server == expected and name.startswith(f"mcp_{expected}_")
    return name == pattern  # Gemini CLI 0.61 compares any other pattern literally (`mcp_*_search` too)


def stable_stringify(value: Any) -> str:
    """The arguments as Gemini CLI's stableStringify writes them: keys sorted, no spaces, and each top-level
    `"key":value` pair between NUL characters (so a pattern can anchor on a whole argument)."""
    def one(item: Any, top: bool) -> str:
        if item is None:
            return "null"
        if isinstance(item, bool):
            return "true" if item else "false"
        if isinstance(item, float) and item.is_integer() and abs(item) < 2 ** 53:
            return str(int(item))
        if isinstance(item, int | float | str):
            return json.dumps(item, ensure_ascii=False)
        if isinstance(item, Mapping):
            pairs = []
            for key in sorted(item, key=str):
                pair = json.dumps(str(key), ensure_ascii=False) + ":" + one(item[key], False)
                pairs.append(f"\0{pair}\0" if top else pair)
            return "{" + ",".join(pairs) + "}"
        if isinstance(item, list | tuple):
            return "[" + ",".join(one(element, False) for element in item) + "]"
        return "null"

    return one(value, True)


def args_patterns(args_pattern: str | None, prefix: str | list[str] | None, regex: str | None) -> list[str | None]:
    """Gemini CLI's buildArgsPatterns: `commandPrefix` (each of a list) and `commandRegex` become patterns on
    the JSON of the arguments."""
    if prefix:
        prefixes = prefix if isinstance(prefix, list) else [prefix]
        patterns: list[str | None] = []
        for one in prefixes:
            encoded = json.dumps(one, ensure_ascii=False)[:-1]  # the opening quote and the text, no closing one
            patterns.append(_escape(f'"command":{encoded}') + r'(?:[\s"]|\\")')
        return patterns
    if regex:
        return [f'"command":"{regex}']
    return [args_pattern]


def _escape(text: str) -> str:
    return re.sub(r'[-\[\]{}()*+?.,\\^$|#\s"]', lambda m: "\\" + m.group(0), text)


def _compile(pattern: str) -> re.Pattern[str]:
    """A JavaScript regular expression as Python reads it (named groups are spelt differently)."""
    python = re.sub(r"\(\?<(?![=!])", "(?P<", pattern)
    python = re.sub(r"\\k<(\w+)>", r"(?P=\1)", python)
    return re.compile(python)


# -- reading --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PolicyFolder:
    path: Path
    tier: int
    label: str = ""  # "extension foo"


def policy_folders(gemini_dir: Path, *, extensions: Iterable[tuple[str, Path]] = (),
                   system_dir: Path = SYSTEM_POLICIES_DIR) -> tuple[list[PolicyFolder], list[str]]:
    """The folders Gemini CLI 0.61 reads, highest tier first, and notices for a system folder skipped."""
    notices: list[str] = []
    folders: list[PolicyFolder] = []
    if system_dir.is_dir():
        problem = _insecure(system_dir)
        if problem:
            notices.append(f"Security warning: skipping system policies from {system_dir}: {problem}.")
        else:
            folders.append(PolicyFolder(system_dir, ADMIN_TIER))
    folders.append(PolicyFolder(gemini_dir / "policies", USER_TIER))
    folders += [PolicyFolder(path, EXTENSION_TIER, f"extension {name}") for name, path in extensions]
    return folders, notices


def _insecure(directory: Path) -> str | None:
    try:
        info = directory.stat()
    except OSError as exc:
        return str(exc)
    if info.st_uid != 0:
        return "it is not owned by root"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "group or others may write to it"
    return None


def load_policy_files(folders: Iterable[PolicyFolder]) -> FilePolicy:
    rules: list[FileRule] = []
    notices: list[str] = []
    for folder in folders:
        if folder.path.is_file() and folder.path.suffix == ".toml":
            files = [folder.path]
        elif folder.path.is_dir():
            files = sorted(p for p in folder.path.iterdir() if p.suffix == ".toml" and p.is_file())
        else:
            continue
        for path in files:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                notices.append(f"{_home_relative(str(path))}: policy file not read ({exc}); its rules do not apply.")
                continue
            try:
                found, problems = read_policy_text(text, str(path), folder.tier)
            except Exception as exc:  # a file nobody can read is named, never a crash at start
                notices.append(f"{_home_relative(str(path))}: policy file not read ({exc!r:.200}); its rules do "
                               "not apply.")
                continue
            if folder.tier == EXTENSION_TIER:
                kept = [r for r in found if r.decision != "allow" and "yolo" not in r.modes]
                if len(kept) < len(found):
                    problems.append(f"{_home_relative(str(path))}: {folder.label} may not allow tools or set rules "
                                    "for yolo; those rules are ignored.")
                found = kept
            rules += found
            notices += problems
    return FilePolicy(rules, notices)


def read_policy_text(text: str, source: str, tier: int) -> tuple[list[FileRule], list[str]]:
    """The rules of one file, each `[[rule]]` table on its own, and a notice per problem naming its line."""
    rules: list[FileRule] = []
    notices: list[str] = []
    shown = _home_relative(source)
    for start, name, chunk in _tables(text):
        try:
            data = tomllib.loads(chunk)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            message = str(exc)
            line = start
            where = _TOML_LINE.search(message)
            if where:
                line = start + int(where.group(1)) - 1
                message = _TOML_LINE.sub("", message).strip()
            notices.append(f"{shown}:{line}: not valid TOML ({message}); this table is not applied.")
            if name == "rule":
                rules += _fail_closed(chunk, source, start, tier, notices)
            continue
        if name is None:
            if data:
                notices.append(f"{shown}:{start}: keys outside a [[rule]] table are ignored: {', '.join(data)}.")
            continue
        if name != "rule":
            notices.append(f"{shown}:{start}: [[{name}]] tables are not supported by gemini-tui; ignored.")
            continue
        entries = data.get("rule")
        entry = entries[0] if isinstance(entries, list) and entries and isinstance(entries[0], dict) else {}
        made, problems = _rule(entry, source, start, tier)
        if problems:
            notices += [f"{shown}:{start}: {problem}" for problem in problems]
        if made is None:
            rules += _fail_closed(chunk, source, start, tier, notices)
        else:
            rules += made
    return rules, notices


def _tables(text: str) -> list[tuple[int, str | None, str]]:
    """(first line, table name or None for the preamble, text) for each top-level table of the file; a
    sub-table of a rule (`[rule.toolAnnotations]`) stays with its rule."""
    lines = text.splitlines(keepends=True)
    tables: list[tuple[int, str | None, list[str]]] = [(1, None, [])]
    in_string = False
    for number, line in enumerate(lines, 1):
        header = None if in_string else _HEADER.match(line)
        if header and not header.group(1).startswith(("rule.", "safety_checker.")):
            tables.append((number, header.group(1).strip("\"'"), [line]))
        else:
            tables[-1][2].append(line)
        if line.count('"""') % 2 or line.count("'''") % 2:
            in_string = not in_string
    return [(start, name, "".join(body)) for start, name, body in tables if name is not None or "".join(body).strip()]


def _rule(entry: dict[str, Any], source: str, line: int, tier: int) -> tuple[list[FileRule] | None, list[str]]:
    """The FileRules of one table, or None (with the reasons) when it cannot be applied as written."""
    errors: list[str] = []
    warnings: list[str] = []
    unknown = sorted(set(entry) - KNOWN_KEYS)
    if unknown:
        warnings.append(f"unknown key(s) {', '.join(unknown)} ignored.")
    decision = entry.get("decision")
    if decision not in DECISIONS:
        errors.append(f"decision must be one of allow, deny, ask_user (found {decision!r}).")
    priority = entry.get("priority")
    if not isinstance(priority, int) or isinstance(priority, bool) or not 0 <= priority <= 999:
        errors.append(f"priority must be a whole number from 0 to 999 (found {priority!r}).")
    raw_names = entry.get("toolName")
    mcp_name = entry.get("mcpName")
    if raw_names is None and isinstance(mcp_name, str) and mcp_name:
        raw_names = "*"  # a rule naming only its MCP server covers all its tools (Gemini CLI's docs)
    listed = raw_names if isinstance(raw_names, list) else [raw_names]
    names: list[str] = [n for n in listed if isinstance(n, str) and n]
    if not names or len(names) != len(listed):
        errors.append('toolName must be a tool name or a list of them (use "*" for every tool).')
    elif any("__" in n for n in names):
        errors.append('the "__" spelling of MCP tools is not accepted: use mcpName = "..." or mcp_<server>_<tool>.')
    if mcp_name is not None and (not isinstance(mcp_name, str) or not mcp_name):
        errors.append("mcpName must be a server name or \"*\".")
    prefix = entry.get("commandPrefix")
    regex = entry.get("commandRegex")
    pattern = entry.get("argsPattern")
    if prefix is not None and not (isinstance(prefix, str) or
                                   (isinstance(prefix, list) and all(isinstance(p, str) for p in prefix))):
        errors.append("commandPrefix must be a string or a list of strings.")
    if prefix is not None or regex is not None:
        if raw_names != SHELL_TOOL:
            errors.append(f'commandPrefix and commandRegex need toolName = "{SHELL_TOOL}" (not a list).')
        if pattern is not None:
            errors.append("commandPrefix/commandRegex and argsPattern cannot be used together.")
        if prefix is not None and regex is not None:
            errors.append("commandPrefix and commandRegex cannot be used together.")
    for key in ("argsPattern", "commandRegex", "subagent", "denyMessage", "deny_message"):
        if entry.get(key) is not None and not isinstance(entry.get(key), str):
            errors.append(f"{key} must be a string.")
    modes = entry.get("modes") or []
    if not isinstance(modes, list) or any(m not in MODES for m in modes):
        errors.append(f"modes must be a list of {', '.join(MODES)} (found {modes!r}).")
    interactive = entry.get("interactive")
    if interactive is not None and not isinstance(interactive, bool):
        errors.append("interactive must be true or false.")
    annotations = entry.get("toolAnnotations")
    if annotations is not None and not isinstance(annotations, dict):
        errors.append("toolAnnotations must be a table.")
    if entry.get("subagent") == "":
        errors.append("subagent must name a subagent when given (it cannot be empty).")
    compiled: list[tuple[re.Pattern[str] | None, str | None]] = []
    if not errors:
        for text in args_patterns(pattern, prefix, regex):
            if text is None:
                compiled.append((None, None))
                continue
            try:
                made = _compile(text)
            except re.error as exc:
                errors.append(f"invalid regular expression {text!r}: {exc}.")
                continue
            if len(text) > 2048 or _NESTED_QUANTIFIER.search(_GROUP_OPENING.sub("(", text)):
                errors.append(f"unsafe regular expression {text!r} (nested quantifiers or too long).")
                continue
            if (dead := _dead_pattern(made.pattern, regex, pattern)) is not None:
                errors.append(dead)
                continue
            warnings += _dead_branches(made.pattern, regex)
            compiled.append((made, text))
    if errors:
        return None, [*errors, *warnings]
    conditions = _conditions(entry)
    deny_message = entry.get("denyMessage") or entry.get("deny_message")
    allow_redirection = bool(entry.get("allowRedirection", entry.get("allow_redirection", False)))
    made_rules = []
    for compiled_pattern, _ in compiled:
        for name in names:
            tool = _mcp_tool_name(mcp_name, name) if mcp_name else name
            made_rules.append(FileRule(
                tool=tool, decision=str(decision), priority=tier + int(priority or 0) / 1000, tier=tier, source=source,
                line=line, text=conditions, mcp_name=mcp_name, pattern=compiled_pattern,
                command_prefix=prefix is not None, modes=tuple(modes), interactive=interactive,
                annotations=annotations, deny_message=deny_message, allow_redirection=allow_redirection,
                subagent=entry.get("subagent")))
    return made_rules, warnings


def _dead_pattern(python: str, regex: str | None, args_pattern: str | None) -> str | None:
    """Why a rule's pattern can never match the call's JSON, or None when it may."""
    if not never_matches(python):
        return None
    if regex is not None:
        anchors = _anchors(regex)
        why = ("`^` cannot match there (the text starts with `{` long before); leave the `^` out, the pattern "
               "already starts at the command's first character" if "^" in anchors else "")
        if "$" in anchors:
            why += ("; " if why else "") + ("`$` cannot match there (a `\"` closes the command and the JSON goes on); "
                                            "end the pattern with `\"` (the quote closing the command) instead")
        return (f"commandRegex {regex!r} can never match: Gemini CLI tests it on the call's JSON right after "
                f"`\"command\":\"`, {why or 'and no text there fits it'}; the rule is not applied.")
    return (f"argsPattern {args_pattern!r} can never match the call's JSON (it starts with `{{` and ends with "
            "`}`); the rule is not applied.")


def _dead_branches(python: str, regex: str | None) -> list[str]:
    """A commandRegex with a top-level `|`: its later alternatives are tested anywhere in the JSON, and a
    dead one is said."""
    if regex is None or not (dead := dead_alternatives(python)):
        return []
    shown = ", ".join(repr(piece.removeprefix('"command":"')) for piece in dead)
    return [f"commandRegex {regex!r}: the alternative(s) {shown} can never match (a top-level `|` also "
            "unties the alternatives after it from the command's start; wrap the pattern in `(?:...)`)."]


def _anchors(regex: str) -> set[str]:
    found = set()
    for match in re.finditer(r"\\.|\[(?:\\.|[^\]])*\]|[$^]", regex):
        if match.group(0) in ("^", "$"):
            found.add(match.group(0))
    return found


def _mcp_tool_name(server: str, tool: str | None) -> str:
    if server == "*" and tool in (None, "*"):
        return "mcp_*"
    if server == "*":
        return f"mcp_*_{tool}"
    if tool in (None, "*"):
        return f"mcp_{server}_*"
    return f"mcp_{server}_{tool}"


def _conditions(entry: Mapping[str, Any]) -> str:
    parts = []
    for key in ("toolName", "subagent", "mcpName", "commandPrefix", "commandRegex", "argsPattern", "modes",
                "interactive"):
        if entry.get(key) is not None:
            value = entry[key]
            parts.append(f"{key} {json.dumps(value) if not isinstance(value, str) else repr(value)}")
    parts.append(f"priority {entry.get('priority')}")
    return ", ".join(parts)


_DECISION_TEXT = re.compile(r"^\s*decision\s*=\s*[\"']([^\"']*)[\"']", re.M)
_TOOL_TEXT = re.compile(r"^\s*toolName\s*=\s*[\"']([^\"']+)[\"']", re.M)
_MCP_TEXT = re.compile(r"^\s*mcpName\s*=\s*[\"']([^\"']+)[\"']", re.M)


def _fail_closed(chunk: str, source: str, line: int, tier: int, notices: list[str]) -> list[FileRule]:
    """A rule that cannot be read and is, or may be, a deny rule: deny every call of the tool it names (of its
    MCP server; of every tool when neither can be read), above every other rule of its tier."""
    decision = _DECISION_TEXT.search(chunk)
    if decision is not None and decision.group(1) in ("allow", "ask_user"):
        return []
    tool_found = _TOOL_TEXT.search(chunk)
    server_found = _MCP_TEXT.search(chunk)
    server = server_found.group(1) if server_found else None
    tool = tool_found.group(1) if tool_found else "*"
    name = _mcp_tool_name(server, tool) if server else tool
    covered = (f"every tool of MCP server {server}" if server and tool == "*"
               else "every tool" if name == "*" else f"every call of {name}")
    notices.append(f"{_home_relative(source)}:{line}: this rule may be a deny rule and could not be read, so it "
                   f"fails closed: {covered} is denied until the file is fixed.")
    return [FileRule(tool=name, decision="deny", priority=tier + 0.999, tier=tier, source=source, line=line,
                     text="unreadable deny rule, failing closed", mcp_name=server,
                     deny_message="A policy rule that could not be read denies this tool until its file is "
                                  "fixed.", fail_closed=True)]


def _home_relative(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home and home != "/" and path.startswith(home + os.sep) else path


def load_for_settings(settings: Any, root: Path, extensions: Iterable[tuple[str, Path]] = (),
                      system_dir: Path = SYSTEM_POLICIES_DIR) -> FilePolicy:
    """The policy files that apply to a session with these settings (`core.setup.config.Settings`)."""
    gemini_dir = Path(settings.gemini_dir)
    folders, notices = policy_folders(gemini_dir, extensions=extensions, system_dir=system_dir)
    policy = load_policy_files(folders)
    workspace = Path(root) / ".gemini" / "policies"
    if (getattr(settings, "workspace_trusted", False) and workspace.is_dir()
            and workspace.resolve() != (gemini_dir / "policies").resolve()
            and any(workspace.glob("*.toml"))):
        notices.append(f"{workspace}: workspace policy files are not applied (Gemini CLI 0.61 disables them "
                       "too); put the rules in ~/.gemini/policies.")
    policy.notices[:0] = notices
    return policy
