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
    import os

    from gemini_tui.core.models.providers import ProviderError, resolve_provider, split_model_name

    auth = session.auth
    text = auth.describe() if auth is not None else "Authentication is not known for this session."
    if (found := split_model_name(session.model_name, session.settings.model_providers)) is not None:
        try:
            provider = resolve_provider(found[0], session.settings.model_providers, os.environ)
        except ProviderError as exc:
            text = f"{exc}.\n\n{text}"
        else:
            key = f"the key in `{provider.key_env}`" if provider.key_env else "no key"
            text = (f"`{session.model_name}` is reached through the OpenAI-compatible provider `{provider.name}` at "
                    f"`{provider.base_url}` with {key}; the Gemini authentication below is not used for it."
                    f"\n\n{text}")
    return ShowMarkdown(f"**Authentication**\n\n{text}\n\nModel: `{session.model_name}`"
                        f"{' (offline demo model)' if session.is_offline else ''}.")


@command("model", "Show the model and what its provider offers, or switch it for the next request: "
                  "/model <name> [--no-tools]", "/model [name]")
async def _model(session: SessionFace, args: str, context: CommandContext) -> CommandResult:
    from gemini_tui.core.models.providers import is_provider_prefix, split_model_name

    providers = session.settings.model_providers
    words = args.split()
    listed = is_provider_prefix(words[0], providers) if words else None
    current = split_model_name(session.model_name, providers)
    if not args or listed:
        text = (f"Model: `{session.model_name}`. Switch with `/model <name>` (for example `gemini-2.5-flash`, "
                "`ollama/llama3.2`, `openai/gpt-4o-mini`, or `offline`).")
        provider = listed or (current[0] if current else None)
        if provider is None:
            return ShowMarkdown(text)
        return ShowMarkdown(f"{text}\n\n{await _provider_models(provider, providers)}")
    if session.is_running:
        return ShowNotice("A turn is running: switch the model when it ends.", "error")
    name = words[0] + (" --no-tools" if "--no-tools" in words[1:] else "")
    try:
        notice = session.set_model(name)
    except Exception as exc:  # a bad name (ConfigurationError) is said, the old model stays
        return ShowNotice(f"✗ {exc}", "error")
    return ModelChanged(notice)


async def _provider_models(provider_name: str, providers: dict[str, dict[str, object]]) -> str:
    """What the provider's `/models` endpoint lists, or why it could not be asked."""
    import os

    from gemini_tui.core.ground.model_api import ModelError
    from gemini_tui.core.models.openai_compat import OpenAICompatibleModel
    from gemini_tui.core.models.providers import ProviderError, resolve_provider

    try:
        provider = resolve_provider(provider_name, providers, os.environ)
        ids = await OpenAICompatibleModel(provider, "").list_models()
    except (ProviderError, ModelError) as exc:
        return f"The models of `{provider_name}` could not be listed: {exc}"
    if not ids:
        return f"`{provider.base_url}/models` lists no models."
    lines = [f"**{provider_name}** (`{provider.base_url}`) offers:", ""]
    lines += [f"- `{provider_name}/{model_id}`" for model_id in sorted(ids)]
    return "\n".join(lines)


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
