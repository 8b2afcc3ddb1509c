"""The one approval policy: every tool call is allowed, asked or denied here, with the rule that decided.

Tools only describe what a call needs (`CallNeeds`: paths written, the shell line, the MCP server); the
scheduler asks `ApprovalPolicy.decide` and never decides itself. Order, first match wins:

1. plan mode refuses every change; 2. deny rules (`tools.exclude`, a `tools.core` allow-list, excluded MCP
servers) refuse; 3. read-only tools run; 4. what cannot be judged before it runs (opaque shell constructs)
asks, and under yolo is refused when a deny rule could apply; 5. protected paths ask (yolo runs them);
6. yolo runs everything else; auto_edit runs edits; 7. `tools.allowed`, trusted MCP servers and grants run
what they cover; 8. everything else asks. Rules of policy files (`core.approvals.policy_files`) come in where
their priority puts them among the settings keys, as in Gemini CLI."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from gemini_tui.core.approvals import policy_files
from gemini_tui.core.approvals.plan_folder import PLAN_FILE_RULE, PLAN_REVISION_RULE, PlanFolder, plan_tool_rule
from gemini_tui.core.approvals.policy_files import SETTINGS_PRIORITY, FileMatch, FilePolicy
from gemini_tui.core.ground.events import READ_ONLY_RULE
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.rule_names import mcp_names, mcp_server_names

if TYPE_CHECKING:
    from gemini_tui.core.approvals.command_effects import LineEffects
    from gemini_tui.core.shell.grammar import Command, ShellAnalysis

SHELL_TOOL = "run_shell_command"
ESCAPE_GRANT = "outside-sandbox:"  # a grant to run these programs outside the sandbox: `outside-sandbox:tool(name)`
CHANGED_CODE_RULE = "runs code the model changed"
EDIT_TOOLS = frozenset({"write_file", "replace"})
DELEGATION_RULE = "subagent (each of its calls is decided on its own)"
EDIT_GRANT = "edit"  # one grant for every edit tool: "allow edits for this session" means write_file and replace
_CALL_FORM = re.compile(r"^\s*([\w.\-:/]+)\s*(?:\((.*)\))?\s*$", re.S)


class ApprovalMode(StrEnum):
    """`default` asks for edits and commands; `auto_edit` runs edits; `yolo` asks nothing; `plan` runs only
    read-only tools and refuses every change."""

    default = "default"
    auto_edit = "auto_edit"
    yolo = "yolo"
    plan = "plan"

    def next(self) -> ApprovalMode:
        """Shift+Tab: default -> auto_edit -> plan -> default. yolo has its own key and flag."""
        cycle = [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan]
        return cycle[(cycle.index(self) + 1) % len(cycle)] if self in cycle else ApprovalMode.default


class Verdict(StrEnum):
    allow = "allow"
    ask = "ask"
    deny = "deny"


@dataclass(frozen=True)
class Decision:
    """The policy's answer for one call. `rule` names what decided, as a user can find it in their settings
    (`tools.allowed: run_shell_command(git status) (~/.gemini/settings.json)`); `reason` is the sentence
    for the user and the model (why it is denied, or why it asks); `grants` is what "allow for this
    session" would add."""

    verdict: Verdict
    rule: str
    reason: str = ""
    grants: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{self.verdict}: {self.rule}" + (f" — {self.reason}" if self.reason else "")


# -- grants --------------------------------------------------------------------------------------------------------
class GrantSource(Protocol):
    """What the policy needs of a grant store (`core.grants.GrantStore`: session and persisted grants)."""

    @property
    def grants(self) -> list[Any]: ...

    def grant(self, rules: Iterable[str], scope: Any) -> list[Any]: ...


def grant_origin(grant: Any) -> str:
    scope = str(getattr(grant, "scope", "session"))
    return "session grant" if scope == "session" else "saved grant (~/.gemini/grants.json)"


def _memory_grants() -> GrantSource:
    """Session grants only, nothing saved (tests and embedders that give no store)."""
    from gemini_tui.core.approvals.grants import GrantStore

    return GrantStore(Path.cwd(), None)


# -- rules ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """One settings entry: `setting` (tools.allowed, ...), its text, the file it came from."""

    setting: str
    text: str
    source: str = ""

    @property
    def tool(self) -> str:
        match = _CALL_FORM.match(self.text)
        return match.group(1) if match else self.text.strip()

    @property
    def argument(self) -> str | None:
        match = _CALL_FORM.match(self.text)
        return match.group(2).strip() if match and match.group(2) is not None else None

    def describe(self) -> str:
        return f"{self.setting}: {self.text}" + (f" ({_home_relative(self.source)})" if self.source else "")


def _home_relative(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home and home != "/" and path.startswith(home + os.sep) else path


def rules_from(setting: str, entries: Iterable[str], origins: Mapping[str, str] | None = None) -> list[Rule]:
    origins = origins or {}
    return [Rule(setting, entry, origins.get(entry, "")) for entry in entries]


# -- protected paths -----------------------------------------------------------------------------------------------
PROTECTED_DIRS = {".git": "it is git's own directory (hooks and config run code)",
                  ".gemini": "it holds settings that decide what runs without asking",
                  ".husky": "it holds git hooks, which run code", ".githooks": "it holds git hooks, which run code"}
# in the user's home: files a shell, git or ssh reads and runs (a write there runs code later, outside any rule)
HOME_PROTECTED = {
    ".bashrc": "a shell start-up file", ".bash_profile": "a shell start-up file", ".bash_login": "a shell start-up "
    "file", ".bash_logout": "a shell start-up file", ".profile": "a shell start-up file", ".zshrc": "a shell "
    "start-up file", ".zshenv": "a shell start-up file", ".zprofile": "a shell start-up file", ".zlogin": "a shell "
    "start-up file", ".zlogout": "a shell start-up file", ".kshrc": "a shell start-up file", ".mkshrc": "a shell "
    "start-up file", ".cshrc": "a shell start-up file", ".tcshrc": "a shell start-up file", ".inputrc": "a shell "
    "start-up file", ".config/fish": "a shell start-up folder", ".gitconfig": "git's configuration (aliases and "
    "programs it runs)", ".config/git": "git's configuration (aliases and programs it runs)",
    ".ssh": "ssh's keys and configuration (ProxyCommand runs programs)", ".gemini": "your settings, grants and "
    "memory", ".config/environment.d": "the session's environment", ".pam_environment": "the session's environment",
}


@dataclass(frozen=True)
class ProtectedPaths:
    """Files that widen the agent's own permissions or run code when written: `.gemini/**`, `.git/**`,
    context files (GEMINI.md and the configured names), `.geminiignore`, and everything under `~/.gemini`."""

    root: Path
    gemini_home: Path  # ~/.gemini
    context_files: tuple[str, ...] = ("GEMINI.md",)

    def why(self, path: str, cwd: Path | None = None) -> str | None:
        """Why writing `path` must be asked about (None when it is an ordinary file)."""
        raw = path.split("=", 1)[1] if re.match(r"^[\w-]+=", path) else path
        base = cwd or self.root
        candidate = Path(raw) if os.path.isabs(raw) else base / raw
        for form in {os.path.normpath(candidate), _real(candidate)}:
            reason = self._why(Path(form))
            if reason:
                return reason
        return None

    def hooks_folder(self) -> str | None:
        """The folder `core.hooksPath` names (read from git), when it is set."""
        from gemini_tui.core.shell.judge import hooks_path

        return hooks_path(str(self.root))

    def _why(self, path: Path) -> str | None:
        home = os.path.normpath(self.gemini_home)
        if str(path) == home or str(path).startswith(home + os.sep):
            return f"protected path {_home_relative(str(path))}: ~/.gemini holds your settings, grants and memory"
        user_home = os.path.normpath(os.path.expanduser("~"))
        if user_home not in ("", "/") and str(path).startswith(user_home + os.sep):
            inside = str(path)[len(user_home) + 1:]
            for name, what in HOME_PROTECTED.items():
                if inside.lower() == name.lower() or inside.lower().startswith(name.lower() + "/"):
                    return f"protected path ~/{inside}: {what}"
        hooks = self.hooks_folder()
        if hooks and (str(path) == hooks or str(path).startswith(hooks.rstrip(os.sep) + os.sep)):
            return (f"protected path {_home_relative(str(path))}: the folder core.hooksPath names holds git hooks, "
                    "which run code")
        try:  # inside the root only the part below it counts (a root may itself sit under some .git)
            parts = path.relative_to(self.root).parts
        except ValueError:
            parts = path.parts
        for index, part in enumerate(parts):
            if part.lower() in PROTECTED_DIRS:
                shown = "/".join(parts[index:index + 3])
                return f"protected path {shown}: {PROTECTED_DIRS[part.lower()]}"
        if path.name in self.context_files or path.name.lower() in {n.lower() for n in self.context_files}:
            return (f"protected path {path.name}: a context file, read into the model's instructions "
                    "(it could tell the model to run anything)")
        if path.name.lower() == ".geminiignore":
            return "protected path .geminiignore: it decides what the tools may see"
        return None


def _real(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path)


# -- the policy ----------------------------------------------------------------------------------------------------
@dataclass
class ApprovalPolicy:
    """Holds the mode, the settings rules and the grants; `decide` answers each call."""

    mode: ApprovalMode = ApprovalMode.default
    core: list[Rule] | None = None  # tools.core: only these tools (and shell commands) may run
    exclude: list[Rule] = field(default_factory=list)  # tools.exclude
    allowed: list[Rule] = field(default_factory=list)  # tools.allowed
    mcp_allowed: list[Rule] | None = None  # mcp.allowed / --allowed-mcp-server-names
    mcp_excluded: list[Rule] = field(default_factory=list)  # mcp.excluded
    disable_yolo: Rule | None = None  # security.disableYoloMode
    protected: ProtectedPaths | None = None
    grants: GrantSource = field(default_factory=_memory_grants)
    allow_redirection: bool = False  # tools.shell.allowRedirection: covered commands may write inside the roots
    extra_roots: list[Path] = field(default_factory=list)  # context.includeDirectories: reads there are covered
    sandboxed: bool = False  # commands run in the sandbox: project code the model changed runs contained
    unreviewed: dict[str, None] = field(default_factory=dict)  # files the model changed that nobody reviewed
    plans: PlanFolder | None = None  # the session's plans folder: plan mode's one writable place

    # -- what the model changed -----------------------------------------------------------------------------
    def after_call(self, needs: CallNeeds, decision: Decision, reviewed: bool) -> None:
        """A call ran: edits nobody reviewed are remembered (a test runner that would run them asks again);
        the user approving a command that listed them has now seen the list."""
        if needs.edit and not reviewed:
            for path in needs.writes:
                self.unreviewed[self._shown_path(path)] = None
        if reviewed and decision.rule.startswith(CHANGED_CODE_RULE):
            self.unreviewed.clear()

    def _shown_path(self, path: str) -> str:
        root = str(self.protected.root) if self.protected is not None else os.getcwd()
        return os.path.relpath(path, root) if path.startswith(root.rstrip(os.sep) + os.sep) else path

    def _roots(self) -> list[str]:
        root = str(self.protected.root) if self.protected is not None else os.getcwd()
        return [root, *(str(p) for p in self.extra_roots)]

    def _effects(self, needs: CallNeeds) -> LineEffects | None:
        if needs.shell is None:
            return None
        from gemini_tui.core.approvals.command_effects import line_effects

        roots = self._roots()
        return line_effects(needs.shell, needs.cwd or roots[0], roots[0])
    files: FilePolicy | None = None  # the rules of policy files (user, admin, extensions)

    # -- modes --------------------------------------------------------------------------------------------------
    def set_mode(self, mode: ApprovalMode | str) -> None:
        """Raises PermissionError when yolo is refused by security.disableYoloMode."""
        mode = ApprovalMode(mode)
        if mode is ApprovalMode.yolo and self.disable_yolo is not None:
            raise PermissionError(f"yolo mode is disabled by {self.disable_yolo.describe()}.")
        self.mode = mode

    # -- MCP servers --------------------------------------------------------------------------------------------
    def server_refusal(self, server: str) -> str | None:
        """Why MCP server `server` must not even connect (None when it may)."""
        for rule in self.mcp_excluded:
            if rule.text == server:
                return f"excluded by {rule.describe()}"
        if self.mcp_allowed is not None and not any(rule.text == server for rule in self.mcp_allowed):
            settings = ", ".join(sorted({r.setting for r in self.mcp_allowed})) or "mcp.allowed"
            return f"not in {settings}"
        return None

    # -- one call -----------------------------------------------------------------------------------------------
    def decide(self, tool: str, needs: CallNeeds, aliases: Iterable[str] = (), requested_by: str = "model", *,
               args: Mapping[str, Any] | None = None, interactive: bool = True, subagent: str = "") -> Decision:
        """`subagent` names the subagent that made the call ("" for the session's model): policy-file rules with
        a `subagent` field match only its calls."""
        names = {tool, *aliases}
        if needs.mcp_server and needs.mcp_tool:
            names |= mcp_names(needs.mcp_server, needs.mcp_tool)
        shell = needs.shell
        if requested_by == "model" and (own := plan_tool_rule(tool, self.mode.value, interactive)) is not None:
            return Decision(Verdict(own[0]), f"plan mode tools: {tool}", own[1])
        if self.mode is ApprovalMode.plan and requested_by == "model":
            plans = self.plans
            if (tool in EDIT_TOOLS and plans is not None and needs.writes
                    and all(plans.is_plan_file(path) for path in needs.writes)):
                if interactive and any(os.path.exists(path) for path in needs.writes):
                    # a revision of the plan is reviewed hunk by hunk, like any edit; the first draft is not
                    return Decision(Verdict.ask, PLAN_REVISION_RULE, "The model revises the plan.")
                return Decision(Verdict.allow, PLAN_FILE_RULE)
            if needs.delegates and not needs.read_only:
                return Decision(Verdict.deny, "approval mode plan", (
                    "Plan mode is on: only read-only subagents run, and this one may change files or run commands. "
                    "It was not run. Investigate with a read-only agent (codebase_investigator) or the tools."))
            if not needs.read_only:
                where = f" Write the plan as a .md file in {plans.path} instead." if plans is not None else ""
                return Decision(Verdict.deny, "approval mode plan", (
                    f"Plan mode is on: only read-only tools run, and {tool} would change something. It was not "
                    f"run.{where} The user leaves plan mode to apply it."))
        from_files = self.file_match(tool, aliases, needs, args, interactive, requested_by, subagent)
        if from_files is not None and from_files.priority > SETTINGS_PRIORITY["mcp.excluded"]:
            return self._file_decision(tool, from_files, needs)
        effects = self._effects(needs)
        denied = self._denied(tool, names, needs, effects)
        if denied is not None:
            return denied
        if needs.escalation is not None:
            return self._escalation(tool, needs)
        if from_files is not None and (from_files.priority > SETTINGS_PRIORITY["tools.allowed"]
                                       or not self._settings_cover(tool, names, needs)):
            return self._file_decision(tool, from_files, needs)
        if requested_by == "user" and shell is None:
            return Decision(Verdict.allow, "requested by the user")  # `/memory add`: typing it was the consent
        if needs.delegates:  # a subagent starts unasked (as in Gemini CLI); each of its calls is decided alone
            return Decision(Verdict.allow, DELEGATION_RULE)
        if needs.read_only and not needs.writes:
            return Decision(Verdict.allow, READ_ONLY_RULE)
        grants = self._grant_rules(tool, needs)
        if shell is not None:
            opaque = self._shell_opaque(shell, names)
            if opaque is not None:
                return opaque if opaque.verdict is Verdict.deny else Decision(
                    opaque.verdict, opaque.rule, opaque.reason, grants)
        protected = self._protected(needs, effects)
        if protected is not None:
            if self.mode is ApprovalMode.yolo:
                return Decision(Verdict.allow, "approval mode yolo", protected)
            return Decision(Verdict.ask, protected.split(":", 1)[0], _sentence(protected), grants)
        if self.mode is ApprovalMode.yolo:
            return Decision(Verdict.allow, "approval mode yolo")
        if self.mode is ApprovalMode.auto_edit and needs.edit:
            return Decision(Verdict.allow, "approval mode auto_edit")
        if needs.trusted_server and needs.mcp_server:
            return Decision(Verdict.allow, f"mcpServers.{needs.mcp_server}.trust")
        covered = self._covered(tool, names, needs)
        if covered is not None and effects is not None:
            problem = self._coverage_problem(needs, effects)
            if problem is not None:
                kind, sentence = problem
                return Decision(Verdict.ask, f"{kind} (not covered by {covered})", sentence, grants)
        if covered is not None:
            return Decision(Verdict.allow, covered)
        return Decision(Verdict.ask, f"approval mode {self.mode}", "", grants)

    # -- the parts of decide ------------------------------------------------------------------------------------
    def _escalation(self, tool: str, needs: CallNeeds) -> Decision:
        """Leaving the sandbox asks in every mode (yolo only removes the prompts for what stays inside); a grant
        given at such a prompt ("for the session", "always") covers the same programs again."""
        names = needs.shell.command_names() if needs.shell is not None else [tool]
        grants = tuple(f"{ESCAPE_GRANT}{tool}({name})" for name in names)
        granted = {g.rule for g in self.grants.grants}
        if grants and all(g in granted for g in grants):
            return Decision(Verdict.allow, f"granted: {', '.join(grants)}")
        return Decision(Verdict.ask, "leaves the sandbox", (
            f"It asks to run outside the sandbox: {needs.escalation}. Outside, it can reach the network, write "
            "anywhere you can and read your home. Without a person to approve that (a headless run), run with "
            "--no-sandbox, or widen the sandbox in your settings (tools.sandboxNetwork: true, "
            "tools.sandboxWritableRoots: [folders])."), grants)

    def file_match(self, tool: str, aliases: Iterable[str], needs: CallNeeds, args: Mapping[str, Any] | None,
                   interactive: bool, requested_by: str, subagent: str = "") -> FileMatch | None:
        if not self.files or (requested_by == "user" and needs.shell is None):
            return None
        server = needs.mcp_server if needs.mcp_tool else None
        names = [f"mcp_{server}_{needs.mcp_tool}"] if server else [tool, *aliases]
        if args is None and needs.shell is not None:
            args = {"command": needs.shell.source}
        parts = [command.text for command in needs.shell.commands] if needs.shell is not None else []
        return self.files.match(names, args, server, str(self.mode), interactive=interactive, subcommands=parts,
                                subagent=subagent or None)

    def _file_decision(self, tool: str, found: FileMatch, needs: CallNeeds) -> Decision:
        rule = found.describe()
        if found.decision == "deny":
            message = found.rule.deny_message if found.rule is not None else None
            return Decision(Verdict.deny, rule, message or f"{tool} is denied by {rule}. It was not run.")
        if found.decision == "ask_user":
            return Decision(Verdict.ask, rule, found.reason)
        if needs.shell is not None and needs.shell.opaque:
            named = "; ".join(dict.fromkeys(o.construct for o in needs.shell.opaque))
            return Decision(Verdict.ask, f"opaque command: {named}",
                            f"It holds {named}: what it runs is only known when it runs, so it always asks.")
        effects = self._effects(needs)
        protected = self._protected(needs, effects)
        if protected is not None and self.mode is not ApprovalMode.yolo:
            return Decision(Verdict.ask, protected.split(":", 1)[0], _sentence(protected))
        if effects is not None and needs.shell is not None and self.mode is not ApprovalMode.yolo:
            # a rule's allowRedirection has the limits of tools.shell.allowRedirection: inside the roots only
            from gemini_tui.core.approvals.command_effects import writes_problem

            roots = self._roots()
            problem = writes_problem(effects.redirects, roots, needs.cwd or roots[0], True,
                                     needs.shell.changes_directory)
            if problem is not None:
                kind, sentence = problem
                return Decision(Verdict.ask, f"{kind} (not covered by {rule})", sentence)
        return Decision(Verdict.allow, rule)

    def _settings_cover(self, tool: str, names: set[str], needs: CallNeeds) -> bool:
        """Whether a settings key that outranks a user policy rule below it lets the call run (grants do not)."""
        if needs.trusted_server and needs.mcp_server:
            return True
        grants = self.grants
        try:
            self.grants = _NO_GRANTS
            return self._covered(tool, names, needs) is not None
        finally:
            self.grants = grants

    def _denied(self, tool: str, names: set[str], needs: CallNeeds,
                effects: LineEffects | None = None) -> Decision | None:
        if needs.mcp_server and (refusal := self.server_refusal(needs.mcp_server)):
            return Decision(Verdict.deny, refusal.removeprefix("excluded by ").removeprefix("not in "),
                            f"MCP server {needs.mcp_server} is {refusal}; {tool} was not run.")
        for rule in self.exclude:
            if rule.argument is None and rule.tool in names:
                return Decision(Verdict.deny, rule.describe(), f"{tool} is disabled by {rule.describe()}.")
        # tools.core for whole tools is the registry's business (a tool it names not is never registered)
        if needs.shell is None:
            return None
        deny_rules = self._shell_rules(self.exclude, names)
        inner = [c for line in (effects.visible_lines() if effects else []) for c in _analyze(line).commands]
        for command in [*needs.shell.commands, *inner]:
            for rule in deny_rules:
                if _matches(command, rule[1], exact=True):
                    return Decision(Verdict.deny, rule[0].describe(), (
                        f"Command '{_shown(command)}'{_via(command)} is blocked by {rule[0].describe()}. "
                        "It was not run."))
        if deny_rules and self.mode is ApprovalMode.yolo and effects is not None:
            from gemini_tui.core.shell.grammar import Command as ShellCommand

            for command, found in effects.commands:
                if not found.unknown:
                    continue
                # a program the table does not know may run its arguments (`x86_64 rm x`): a denied name among
                # them is refused, as the inner command cannot be seen
                for at in range(1, len(command.words)):
                    rest = ShellCommand(command.words[at:], command.text, command.via)
                    if command.words[at] is None:
                        continue
                    for rule, prefix in deny_rules:
                        if _matches(rest, prefix, exact=False):
                            return Decision(Verdict.deny, f"hidden command under yolo ({rule.describe()})", (
                                f"Refused under yolo while a deny list is set: {found.unknown}, and it is given "
                                f"`{_shown(rest)}`, which {rule.describe()} forbids; what it runs cannot be "
                                "checked. It was not run. A deny list is not a sandbox."))
            hidden = effects.hidden_code()
            if hidden:
                command, why = hidden[0]
                rule = deny_rules[0][0].describe()
                return Decision(Verdict.deny, f"hidden command under yolo ({rule})", (
                    f"Refused under yolo while a deny list is set: {_lower(why)}, so what it runs cannot be "
                    f"checked against {rule}. It was not run. A deny list is not a sandbox: run the command in "
                    "plain steps the rules can see, or use --sandbox to contain yolo."))
        core_prefixes = self._shell_rules(self.core or [], names)
        if self.core is not None and core_prefixes and not any(
                r.argument is None and r.tool in names for r in self.core):
            for command in [*needs.shell.commands, *inner]:
                if command.wrapper:
                    continue
                if not any(_matches(command, prefix, exact=False, allow=True) for _, prefix in core_prefixes):
                    return Decision(Verdict.deny, "tools.core", (
                        f"Command '{_shown(command)}'{_via(command)} is not among the commands tools.core "
                        "allows. It was not run."))
            for command, why in (effects.hidden_code() if effects else []):
                if command.wrapper or why.endswith(("the project's own code", "standard input)")):
                    continue  # a runner tools.core names runs the project's code: that is what it was named for
                return Decision(Verdict.deny, "tools.core", (
                    f"{why[:1].upper() + why[1:]}: tools.core allows `{command.name}`, not the other code it "
                    "would run. It was not run."))
            if needs.shell.opaque:
                construct = needs.shell.opaque[0].construct
                return Decision(Verdict.deny, "tools.core", (
                    f"The command holds {construct}, which could run a command tools.core does not allow. "
                    "It was not run."))
        return None

    def _shell_opaque(self, shell: ShellAnalysis, names: set[str]) -> Decision | None:
        """Opaque lines ask; under yolo they are refused when any deny rule could apply."""
        deny = self._shell_rules(self.exclude, names)
        possible = [(command, rule) for command in shell.commands for rule, prefix in deny
                    if _matches(command, prefix, exact=False) or _fed_words(command, prefix)]
        visible_ok = self.mode is ApprovalMode.yolo
        constructs = [o.construct for o in shell.opaque if not (visible_ok and o.visible)]
        if possible:
            constructs.append(f"arguments computed at run time ({_shown(possible[0][0])})")
        if not constructs:
            return None
        named = "; ".join(dict.fromkeys(constructs))
        if self.mode is ApprovalMode.yolo:
            deny_rules = [r for r in self.exclude if r.tool in names]
            if not deny_rules:
                return None  # yolo and nothing forbidden: it runs
            return Decision(Verdict.deny, f"opaque command under yolo ({deny_rules[0].describe()})", (
                f"Refused under yolo: the command holds {named}, which could run a command that "
                f"{deny_rules[0].describe()} forbids. It was not run; run it in plain steps the rules can see. A deny "
                "list is not a sandbox: --sandbox contains yolo."))
        return Decision(Verdict.ask, f"opaque command: {named}",
                        f"It holds {named}: what it runs is only known when it runs, so it always asks.")

    def _protected(self, needs: CallNeeds, effects: LineEffects | None = None) -> str | None:
        if self.protected is None:
            return None
        for path in needs.writes:
            if reason := self.protected.why(path):
                return reason
        shell = needs.shell
        if shell is None or effects is None:
            return None
        cwd = Path(needs.cwd) if needs.cwd else None
        for target, how in effects.writes():
            if target is None:
                return f"a write to a path computed at run time ({how}): it could be a protected file"
            if reason := self.protected.why(target, cwd):
                return reason
            if shell.changes_directory and not os.path.isabs(target):
                return "a write after cd: the path it lands on could be a protected file"
        for command, found in effects.commands:
            if not found.unknown:
                continue
            for word in command.words[1:]:  # a program the table does not know may write any path it is given
                if word and not word.startswith("-") and (reason := self.protected.why(word, cwd)):
                    return reason
        return None

    def _coverage_problem(self, needs: CallNeeds, effects: LineEffects) -> tuple[str, str] | None:
        from gemini_tui.core.approvals.command_effects import coverage_problem, reads_problem, writes_problem

        assert needs.shell is not None
        roots = self._roots()
        cwd = needs.cwd or roots[0]
        problem = reads_problem(effects.reads, roots, cwd, needs.shell.changes_directory)
        if problem is not None:
            return problem
        problem = writes_problem(effects.redirects, roots, cwd, self.allow_redirection,
                                 needs.shell.changes_directory)
        if problem is not None:
            return problem
        unreviewed = list(self.unreviewed)
        for command, found in effects.commands:
            if command.wrapper:
                problem = writes_problem(found.writes, roots, cwd, self.allow_redirection,
                                         needs.shell.changes_directory)
            else:
                problem = coverage_problem(command, found, roots, cwd, self.allow_redirection, unreviewed,
                                           self.sandboxed, needs.shell.changes_directory)
            if problem is not None:
                return problem
        return None

    def _covered(self, tool: str, names: set[str], needs: CallNeeds) -> str | None:
        """The rule or grant that lets this call run unasked, described; None when nothing does."""
        rules: list[tuple[str, str]] = [(r.text, r.describe()) for r in self.allowed]
        rules += [(g.rule, f"{grant_origin(g)} {g.rule}") for g in self.grants.grants]
        if needs.shell is not None:
            prefixes = [(describe, prefix) for text, describe in rules
                        if (prefix := _shell_prefix(Rule("", text), names)) is not None]
            whole = next((d for t, d in rules if Rule("", t).tool in names and not Rule("", t).argument), None)
            if whole is not None:
                return whole
            used: list[str] = []
            for command in needs.shell.commands:
                if command.wrapper:
                    continue
                match = next((d for d, prefix in prefixes
                              if prefix and _matches(command, prefix, exact=True, allow=True)), None)
                if match is None:
                    return None
                used.append(match)
            return ", ".join(dict.fromkeys(used)) if used else None
        server_rules = mcp_server_names(needs.mcp_server) if needs.mcp_server else set()
        for text, describe in rules:
            if text in server_rules:
                return describe
            if text == EDIT_GRANT and needs.edit:
                return describe
            rule = Rule("", text)
            if rule.argument in (None, "") and rule.tool in names:
                return describe
        return None

    def _grant_rules(self, tool: str, needs: CallNeeds) -> tuple[str, ...]:
        """What "allow for this session" adds for this call."""
        if needs.shell is not None:
            return tuple(f"{tool}({name})" for name in needs.shell.command_names())
        if needs.edit:
            return (EDIT_GRANT,)
        if needs.mcp_server and needs.mcp_tool:
            return (f"mcp:{needs.mcp_server}/{needs.mcp_tool}",)
        return (tool,)

    @staticmethod
    def _shell_rules(rules: Iterable[Rule], names: set[str]) -> list[tuple[Rule, tuple[str, ...]]]:
        found = []
        for rule in rules:
            prefix = _shell_prefix(rule, names)
            if prefix:
                found.append((rule, prefix))
        return found


class _NoGrantSource:
    @property
    def grants(self) -> list[Any]:
        return []

    def grant(self, rules: Iterable[str], scope: Any) -> list[Any]:
        return []


_NO_GRANTS = _NoGrantSource()


def policy_from_settings(settings: Any, root: Path, *, grants: GrantSource | None = None,
                         allowed_mcp_server_names: Iterable[str] | None = None,
                         files: FilePolicy | None = None) -> ApprovalPolicy:
    """The policy the settings describe (`core.config.Settings`), with `--allowed-mcp-server-names`; the
    policy files are read unless `files` is given."""
    origins: Mapping[str, Mapping[str, str]] = getattr(settings, "origins", {}) or {}
    mcp_allowed = None
    if allowed_mcp_server_names is not None:
        mcp_allowed = [Rule("--allowed-mcp-server-names", name) for name in allowed_mcp_server_names]
    elif getattr(settings, "mcp_allowed", None) is not None:
        mcp_allowed = rules_from("mcp.allowed", settings.mcp_allowed, origins.get("mcp_allowed"))
    core = settings.tools_core
    return ApprovalPolicy(
        core=rules_from("tools.core", core, origins.get("tools_core")) if core is not None else None,
        exclude=rules_from("tools.exclude", settings.tools_exclude, origins.get("tools_exclude")),
        allowed=rules_from("tools.allowed", settings.tools_allowed, origins.get("tools_allowed")),
        mcp_allowed=mcp_allowed,
        mcp_excluded=rules_from("mcp.excluded", getattr(settings, "mcp_excluded", []), origins.get("mcp_excluded")),
        disable_yolo=Rule("security.disableYoloMode", "true") if getattr(settings, "disable_yolo_mode", False)
        else None,
        protected=ProtectedPaths(Path(root), Path(settings.gemini_dir), tuple(settings.context_file_names)),
        allow_redirection=bool(getattr(settings, "shell_allow_redirection", False)),
        extra_roots=[Path(root, p).expanduser() for p in getattr(settings, "include_directories", []) or []],
        grants=grants if grants is not None else _memory_grants(),  # an empty store is falsy (it has a len)
        files=files if files is not None else policy_files.load_for_settings(settings, root),
    )


def _shell_prefix(rule: Rule, names: set[str]) -> tuple[str, ...] | None:
    """`run_shell_command(git status)` -> ("git", "status"); None for other rules."""
    if rule.tool not in names or not rule.argument:
        return None
    from gemini_tui.core.shell.grammar import command_words

    return command_words(rule.argument) or tuple(rule.argument.split())


SYSTEM_BIN = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"})


def _matches(command: Command, prefix: tuple[str, ...], *, exact: bool, allow: bool = False) -> bool:
    """Whole-word prefix match. `exact`: every compared word must be literal (a definite match); otherwise a
    word computed at run time matches anything (the rule *could* apply). A deny rule matches a command by its
    name wherever it lives (`/bin/rm`, `./rm`); an `allow` rule only the command itself or its copy in a
    system directory (`./ls` is a program in the project, not the `ls` the user allowed)."""
    first = command.words[0] if command.words else None
    if allow and first and "/" in first and first != prefix[0] and os.path.dirname(first) not in SYSTEM_BIN:
        return False
    words = command.words
    if len(words) < len(prefix):
        return False
    for index, (word, wanted) in enumerate(zip(words, prefix, strict=False)):
        if word is None:
            if exact:
                return False
            continue
        if index == 0:
            if os.path.basename(word) != os.path.basename(wanted):
                return False
        elif word != wanted:
            return False
    return True


def _fed_words(command: Command, prefix: tuple[str, ...]) -> bool:
    """`xargs git`: the words xargs adds from its input could complete a deny rule (`git push`)."""
    if "xargs" not in command.via.split() or not command.words or command.words[0] is None:
        return False
    words = [w for w in command.words if w is not None]
    return os.path.basename(words[0]) == os.path.basename(prefix[0]) and tuple(words[1:]) == prefix[
        1:len(words)]


def _analyze(line: str) -> ShellAnalysis:
    from gemini_tui.core.shell.grammar import analyze

    return analyze(line)


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _shown(command: Command) -> str:
    return " ".join(w if w is not None else "…" for w in command.words)


def _via(command: Command) -> str:
    return f" (run by {command.via})" if command.via else ""


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
