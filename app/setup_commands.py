"""Slash commands about the user's setup: `/auth`, `/model`, `/extensions`, `/directory`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.app.slash_commands import command

if TYPE_CHECKING:
    from gemini_tui.app.screens.main_screen import MainScreen


@command("auth", "How gemini-tui reaches Gemini (API key, Vertex AI) and what to set")
async def _auth(screen: MainScreen, args: str) -> None:
    auth = getattr(screen.session, "auth", None)
    text = auth.describe() if auth is not None else "Authentication is not known for this session."
    model = screen.session.model_name
    await screen.chat.add_markdown(f"**Authentication**\n\n{text}\n\nModel: `{model}`"
                                   f"{' (offline demo model)' if screen.session.is_offline else ''}.")


@command("model", "Show the model, or switch it for the next request: /model <name>", "/model [name]")
async def _model(screen: MainScreen, args: str) -> None:
    session = screen.session
    if not args:
        await screen.chat.add_markdown(f"Model: `{session.model_name}`. Switch with `/model <name>` "
                                       "(for example `gemini-2.5-flash`, or `offline`).")
        return
    if screen.busy:
        await screen.chat.add_notice("A turn is running: switch the model when it ends.", "error")
        return
    try:
        notice = session.set_model(args.split()[0])
    except Exception as exc:  # a bad name (ConfigurationError) is said, the old model stays
        await screen.chat.add_notice(f"✗ {exc}", "error")
        return
    screen.status.model_name = session.model_name
    screen.status.is_offline = session.is_offline
    await screen.chat.add_notice(f"Model switched to {session.model_name} for the next request.")
    if notice:
        await screen.chat.add_notice(notice, "warning")


@command("extensions", "Installed extensions and what each contributes")
async def _extensions(screen: MainScreen, args: str) -> None:
    extensions = getattr(screen.session, "extensions", None) or []
    if not extensions:
        await screen.chat.add_markdown("No extensions are active (`~/.gemini/extensions/<name>/"
                                       "gemini-extension.json`).")
        return
    lines = [f"**{len(extensions)} extension(s)**", ""]
    for extension in extensions:
        lines.append(f"- **{extension.name}** {extension.version} ({extension.origin}, `{extension.path}`)")
        lines += [f"  - {item}" for item in extension.contributions()] or ["  - (contributes nothing)"]
    await screen.chat.add_markdown("\n".join(lines))


@command("directory", "Workspace directories: show, add <path>[,<path>]", "/directory show|add <path>")
async def _directory(screen: MainScreen, args: str) -> None:
    session = screen.session
    sub, _, rest = args.partition(" ")
    match sub or "show":
        case "show":
            directories = [session.root, *getattr(session, "include_dirs", [])]
            await screen.chat.add_markdown("**Workspace directories**\n\n" + "\n".join(
                f"- `{d}`" for d in directories))
        case "add" if rest.strip():
            for item in (p.strip() for p in rest.split(",")):
                if not item:
                    continue
                try:
                    added = session.add_directory(item)
                except ValueError as exc:
                    await screen.chat.add_notice(f"✗ {exc}", "error")
                    continue
                await screen.chat.add_notice(f"Added {added} to the workspace.")
            session.refresh_memory()  # GEMINI.md imports may now reach into it
        case _:
            await screen.chat.add_notice("Usage: /directory show | /directory add <path>[,<path>]", "error")
