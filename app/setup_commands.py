"""Slash commands about the user's setup: `/auth`, `/model`, `/extensions`, `/directory` (typed results, as every
slash command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import (
    CommandContext,
    CommandResult,
    ModelChanged,
    Several,
    ShowMarkdown,
    ShowNotice,
    command,
)

if TYPE_CHECKING:
    from gemini_tui.core.session.face import SessionFace


@command("auth", "How gemini-tui reaches Gemini (API key, Vertex AI) and what to set")
async def _auth(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    auth = session.auth
    text = auth.describe() if auth is not None else "Authentication is not known for this session."
    return ShowMarkdown(f"**Authentication**\n\n{text}\n\nModel: `{session.model_name}`"
                        f"{' (offline demo model)' if session.is_offline else ''}.")


@command("model", "Show the model, or switch it for the next request: /model <name>", "/model [name]")
async def _model(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    if not args:
        return ShowMarkdown(f"Model: `{session.model_name}`. Switch with `/model <name>` "
                            "(for example `gemini-2.5-flash`, or `offline`).")
    if session.is_running:
        return ShowNotice("A turn is running: switch the model when it ends.", "error")
    try:
        notice = session.set_model(args.split()[0])
    except Exception as exc:  # a bad name (ConfigurationError) is said, the old model stays
        return ShowNotice(f"✗ {exc}", "error")
    return ModelChanged(notice)


@command("extensions", "Installed extensions and what each contributes")
async def _extensions(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    extensions = session.extensions
    if not extensions:
        return ShowMarkdown("No extensions are active (`~/.gemini/extensions/<name>/gemini-extension.json`).")
    lines = [f"**{len(extensions)} extension(s)**", ""]
    for extension in extensions:
        lines.append(f"- **{extension.name}** {extension.version} ({extension.origin}, `{extension.path}`)")
        lines += [f"  - {item}" for item in extension.contributions()] or ["  - (contributes nothing)"]
    return ShowMarkdown("\n".join(lines))


@command("directory", "Workspace directories: show, add <path>[,<path>]", "/directory show|add <path>")
async def _directory(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    sub, _, rest = args.partition(" ")
    match sub or "show":
        case "show":
            directories = [session.root, *session.include_dirs]
            return ShowMarkdown("**Workspace directories**\n\n" + "\n".join(f"- `{d}`" for d in directories))
        case "add" if rest.strip():
            said: list[CommandResult] = []
            for item in (p.strip() for p in rest.split(",")):
                if not item:
                    continue
                try:
                    said.append(ShowNotice(f"Added {session.add_directory(item)} to the workspace."))
                except ValueError as exc:
                    said.append(ShowNotice(f"✗ {exc}", "error"))
            session.refresh_memory()  # GEMINI.md imports may now reach into it
            return Several(tuple(said))
        case _:
            return ShowNotice("Usage: /directory show | /directory add <path>[,<path>]", "error")
