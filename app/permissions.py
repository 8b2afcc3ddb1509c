"""`/permissions`: every rule and grant in force with where it came from, revoking grants, trusting the folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gemini_tui.core.approvals.hooks import POWERS, TOOL_EVENTS
from gemini_tui.core.ground.wording import sentence

if TYPE_CHECKING:
    from gemini_tui.app.command_registry import ShowNotice
    from gemini_tui.core.session.face import SessionFace

# settings field -> (what it does, how a rule reads)
RULES: tuple[tuple[str, str], ...] = (
    ("tools_allowed", "runs without asking"),
    ("tools_exclude", "never offered to the model"),
    ("tools_core", "only these built-in tools are offered"),
)
USAGE = ("`/permissions` lists; `/permissions revoke <number|key>` or `/permissions revoke all` takes grants back; "
         "`/permissions trust` / `/permissions untrust` trusts this folder or stops trusting it (from the next start).")


def _cell(text: str) -> str:
    return text.replace("`", "'").replace("\n", " ")


POLICY_RULES: tuple[tuple[str, str], ...] = (
    ("allowed", "runs without asking"),
    ("exclude", "denied"),
    ("core", "only the tools and commands listed may run"),
    ("mcp_allowed", "only the MCP servers listed connect"),
    ("mcp_excluded", "this MCP server never connects"),
)


def _policy_rules(session: SessionFace) -> list[str]:
    """Every settings rule the policy holds (with the file it came from), else the settings' own lists."""
    policy = session.policy
    settings = session.settings
    rows: list[str] = []
    if policy is None:
        for field, effect in RULES:
            where = "; ".join(settings.key_sources.get(field, [])) or "settings"
            rows += [f"- `{_cell(rule)}`: {effect} (from {_cell(where)})" for rule in getattr(settings, field) or []]
        return rows
    for attr, effect in POLICY_RULES:
        for rule in getattr(policy, attr, None) or []:
            where = f"{rule.source}: {rule.setting}" if rule.source else rule.setting
            rows.append(f"- `{_cell(rule.text)}`: {effect} (from {_cell(where)})")
    files = getattr(policy, "files", None)
    for rule in files.rules if files else []:
        where = f"{rule.describe().split(' (', 1)[0]}"
        effect = {"allow": "runs without asking", "deny": "denied", "ask_user": "asks"}.get(rule.decision, "")
        rows.append(f"- `{_cell(rule.text)}`: {effect}, priority {rule.priority:.3f} (from {_cell(where)})")
    for event, groups in (getattr(settings, "hooks", None) or {}).items():
        for group in groups:
            commands = ", ".join(str(h.get("command", "")) for h in group.get("hooks", []) if isinstance(h, dict))
            source = group.get("source", "settings")
            rows.append(f"- hook `{_cell(event)}` {_hook_scope(event, group.get('matcher'))}: runs "
                        f"`{_cell(commands)}`, which {POWERS.get(event, 'runs')} (from {_cell(str(source))}: hooks)")
    return rows


def _hook_scope(event: str, matcher: Any) -> str:
    if event in TOOL_EVENTS:
        return f"on tools matching `{_cell(str(matcher))}`" if matcher and matcher != "*" else "on every tool"
    return f"when `{_cell(str(matcher))}`" if matcher and matcher != "*" else "every time"


def permissions_markdown(session: SessionFace) -> str:
    settings = session.settings
    mode = str(session.approval_mode)
    yolo = ("yolo is disabled (security.disableYoloMode)" if settings.disable_yolo_mode
            else "Ctrl+Y or --yolo turns yolo on")
    lines = [f"**Approval mode**: `{mode}` (Shift+Tab cycles default → auto_edit → plan; {yolo})", ""]
    lines.append(sentence(f"**This folder** ({session.root}): {settings.trust.describe()}"))
    lines += ["", f"**Commands**: {session.sandbox.describe()}. {session.sandbox.explain()}"]
    if settings.withheld:
        lines += ["", "Not applied until you trust it:"]
        lines += [f"- `{_cell(item)}`" for item in settings.withheld]
    lines += ["", "**Rules from settings and policy files**", ""]
    rows = _policy_rules(session)
    for alias, server in settings.mcp_servers.items():
        if server.trust:
            servers = settings.key_sources.get("mcp_servers", [])
            where = next((w for w in servers if w.endswith(f".{alias}")), "settings")
            effect = "every tool runs without asking (trust: true)"
            rows.append(f"- `mcp:{_cell(alias)}`: {effect} (from {_cell(where)}.trust)")
    for field, effect in (("disable_yolo_mode", "yolo refused"), ("disable_always_allow", "no \"allow always\"")):
        if getattr(settings, field):
            rows.append(f"- `{field}`: {effect} (from {_cell('; '.join(settings.key_sources.get(field, [])))})")
    lines += rows or ["None."]
    lines += ["", "**Grants** (given at a confirmation)", ""]
    grants = session.grants.grants
    if grants:
        for number, grant in enumerate(grants, 1):
            scope = "this session" if grant.scope == "session" else f"always, in {grant.workspace}"
            when = grant.granted_at.astimezone().strftime("%Y-%m-%d %H:%M")
            lines.append(f"{number}. `{_cell(grant.key)}`: {scope}, granted {when}")
    else:
        lines.append("None.")
    for error in session.grants.errors:
        lines.append(f"\n⚠ {error}")
    lines += ["", USAGE]
    return "\n".join(lines)


def set_trust(session: SessionFace, trusted: bool) -> ShowNotice:
    """`/permissions trust|untrust`: this folder's answer saved in trustedFolders.json, as the question on start
    saves it. The settings it brings (or withholds) take effect at the next start: the session running now was
    built with the old answer, and rebuilding it under the user would change its tools mid-conversation."""
    from gemini_tui.app.command_registry import ShowNotice
    from gemini_tui.core.setup.config import record_trust

    level = "TRUST_FOLDER" if trusted else "DO_NOT_TRUST"
    try:
        path = record_trust(session.root, level, session.settings.home)
    except (OSError, ValueError) as exc:
        return ShowNotice(f"✗ could not save the trust decision: {exc}", "error")
    what = "trusted" if trusted else "not trusted"
    return ShowNotice(f"{session.root} is now {what} (saved in {path}). Restart gemini-tui to apply its settings "
                      f"{'with' if trusted else 'without'} what needs trust.")


def revoke(session: SessionFace, argument: str) -> list[Any]:
    """Revokes the grants `argument` names (a number from the list, a key, a bare rule, or `all`); returns
    them. Raises KeyError naming what matched nothing."""
    store = session.grants
    grants = store.grants
    wanted = argument.split() if argument.strip() != "all" else [g.key for g in grants]
    if not wanted:
        raise KeyError("name a grant: its number or key from /permissions, or all")
    chosen = []
    for word in wanted:
        if word.isdigit() and 1 <= int(word) <= len(grants):
            chosen.append(grants[int(word) - 1])
        elif (grant := store.find(word)) is not None:
            chosen.append(grant)
        else:
            raise KeyError(f"no grant {word!r}; see /permissions")
    return [store.revoke(grant.key) for grant in dict.fromkeys(chosen)]
