"""ToolRegistry: the tools the model may call, filtered by `tools.core` / `tools.exclude`."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from typing import Any

from gemini_tui.core.tooling.declared_tool import DeclaredTool
from gemini_tui.core.tooling.tool import BaseTool

DISABLED = "disabled by tools.core / tools.exclude"
_CALL_FORM = re.compile(r"^\s*([\w.\-]+)\s*(?:\((.*)\))?\s*$", re.S)


def tool_rule_name(rule: str) -> str:
    """`run_shell_command(git status)` -> `run_shell_command`; a plain name is returned as is."""
    match = _CALL_FORM.match(rule)
    return match.group(1) if match else rule.strip()


SUGGEST_CUTOFF = 0.6  # similarity (difflib ratio) a name needs to be suggested for an unknown tool


class ToolRegistry:
    """Receives tools (it never imports them). `allow` is `tools.core` (built-ins only), `deny` is `tools.exclude`.

    A rule may name the tool (`read_file`), its class (`ReadFileTool`) or its display name (`ReadFile`), and
    may carry an argument (`run_shell_command(git)`): such rules are the tool's own business (the shell tool
    reads them per command); here only a bare name in `deny` removes a tool."""

    def __init__(self, allow: Iterable[str] | None = None, deny: Iterable[str] | None = None) -> None:
        self.allow_rules = list(allow) if allow is not None else None
        self.deny_rules = list(deny or [])
        self._tools: dict[str, BaseTool[Any]] = {}
        self.skipped: dict[str, str] = {}  # name -> why it was not registered
        # (approval mode, interactive) now: the session sets it, so plan mode's tools are declared as they apply
        self.offer_context: Callable[[], tuple[str, bool]] = lambda: ("default", True)

    def _names_of(self, tool: BaseTool[Any]) -> set[str]:
        return {tool.name, *self.aliases(tool)}

    @staticmethod
    def aliases(tool: BaseTool[Any]) -> set[str]:
        """The other names a rule may use for `tool`: its class, its display name, and for an MCP tool each
        spelling of `server__tool`, Gemini CLI's `mcp_<server>_<tool>` and `mcp:server/tool`."""
        names = {type(tool).__name__, getattr(tool, "display_name", tool.name)}
        server, own = getattr(tool, "server_name", None), getattr(tool, "server_tool_name", None)
        if server and own:
            from gemini_tui.core.tooling.rule_names import mcp_names

            names |= mcp_names(server, own)
        return names

    def is_enabled(self, tool: BaseTool[Any]) -> bool:
        names = self._names_of(tool)
        # exclude only removes a tool when it names the tool itself; `run_shell_command(rm)` narrows it instead
        if any(rule.strip() in names for rule in self.deny_rules):
            return False
        # tools.core is the allow-list of built-ins: tools declared by MCP servers or a discovery command answer to
        # their own settings (mcpServers.*.includeTools / excludeTools) and to tools.exclude, as in Gemini CLI
        if self.allow_rules is None or isinstance(tool, DeclaredTool):
            return True
        return any(tool_rule_name(rule) in names for rule in self.allow_rules)

    def register(self, tool: BaseTool[Any]) -> bool:
        """Adds `tool` unless the settings disable it; a later tool with a taken name replaces nothing."""
        if not self.is_enabled(tool):
            self.skipped[tool.name] = DISABLED
            return False
        if tool.name in self._tools:
            self.skipped[tool.name] = "a tool with this name is already registered"
            return False
        self._tools[tool.name] = tool
        return True

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> BaseTool[Any] | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def tools(self) -> list[BaseTool[Any]]:
        return list(self._tools.values())

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """The registered names close to an unknown one (case aside), for the error the model receives; none
        when nothing is close (at 0.4, `delete_everything` was offered `google_web_search`)."""
        lowered = {tool.lower(): tool for tool in self._tools}
        near = difflib.get_close_matches(name.lower(), list(lowered), n=limit, cutoff=SUGGEST_CUTOFF)
        return [lowered[match] for match in near]

    def unknown_tool_message(self, name: str) -> str:
        if self.skipped.get(name) == DISABLED and name not in self._tools:
            return (f'Tool "{name}" is disabled by the user\'s settings (tools.core / tools.exclude); do not call '
                    f'it. Available tools: {", ".join(sorted(self._tools))}.')
        near = self.suggest(name)
        hint = f" Did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        return f'Tool "{name}" not found in registry.{hint} Available tools: {", ".join(sorted(self._tools))}.'

    def function_declarations(self) -> list[dict[str, Any]]:
        return [tool.function_declaration() for tool in self.offered()]

    def offered(self) -> list[BaseTool[Any]]:
        """The tools declared to the model now: each says whether it is, in the mode `offer_context` gives."""
        mode, interactive = self.offer_context()
        return [tool for tool in self._tools.values() if tool.offered(mode, interactive)]
