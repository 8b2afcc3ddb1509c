"""What a slash command returned, shown: each typed result (`app.command_registry`) becomes a few calls on the
chat, the status line or the app. The main screen hands it every line that starts with `/`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.app.command_registry import (
    ChooseTheme,
    ClearChat,
    CommandContext,
    CommandResult,
    CopyText,
    Interactive,
    ModelChanged,
    OpenScreen,
    Quit,
    SendCommand,
    Several,
    ShowConversation,
    ShowMarkdown,
    ShowNotice,
    run_command,
)
from gemini_tui.app.transcript import show_history

if TYPE_CHECKING:
    from gemini_tui.app.view import ResultView


class CommandResults:
    """Runs slash commands for `view` and shows their results; it keeps no state of its own."""

    def __init__(self, view: ResultView) -> None:
        self.view = view

    async def run(self, line: str) -> None:
        view = self.view
        await view.chat.start_turn(line)
        try:
            result = await run_command(view.session, line, CommandContext(view.mcp_status))
        except Exception as exc:  # a failed command is reported, never fatal
            await view.chat.add_notice(f"✗ {line.split()[0]} failed: {exc}", "error")
            return
        await self.apply(result)

    async def apply(self, result: CommandResult) -> None:
        view = self.view
        chat, session = view.chat, view.session
        match result:
            case ShowMarkdown(text=text):
                await chat.add_markdown(text)
            case ShowNotice(text=text, level=level):
                await chat.add_notice(text, level)
            case ClearChat():
                await chat.clear()
                view.queue.start_turn()
                view.todos.show(None)
            case ShowConversation(notice=notice):
                await chat.clear()
                if session.saved.resumed is not None:
                    await view.show_transcript(session.saved.resumed)
                else:
                    await show_history(chat, session.history)
                await chat.add_notice(notice)
                view.todos.show(session.todos)  # the list the restored history says
            case SendCommand(line=line):
                if view.turns.busy:  # the turn worker is exclusive: starting another would cancel the running one
                    await chat.add_notice("A turn is running: wait for it, or press Esc to cancel it.", "error")
                else:
                    view.turns.send_command(line)
            case ModelChanged(notice=notice):
                view.status.model_name = session.model_label
                view.status.is_offline = session.is_offline
                await chat.add_notice(f"Model switched to {session.model_name} for the next request.")
                if notice:
                    await chat.add_notice(notice, "warning")
            case ChooseTheme(name=name):
                await self.choose_theme(name)
            case Interactive(flow=flow):
                from gemini_tui.app.history_commands import in_worker

                in_worker(view, lambda: flow(view))
            case OpenScreen(name="help"):
                view.app.action_help()
            case CopyText(text=text, what=what):
                await self.copy_text(text, what)
            case Quit():
                view.app.exit()
            case Several(results=results):
                for each in results:
                    await self.apply(each)

    async def copy_text(self, text: str, what: str) -> None:
        """Through OSC 52; a notice says what was copied, or why the terminal will not take it."""
        from gemini_tui.app.clipboard import clipboard_problem

        app, chat = self.view.app, self.view.chat
        problem = None if app.is_web else clipboard_problem()  # a page: the browser's clipboard takes it
        app.copy_to_clipboard(text)
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if problem:
            await chat.add_notice(f"✗ Could not copy {what}: {problem}.", "warning")
        else:
            await chat.add_notice(f"Copied {what} ({lines} line(s), {len(text.encode())} bytes) to the clipboard.")

    async def choose_theme(self, name: str) -> None:
        """`/theme`: the themes listed, or one applied and remembered as geminiTui.theme (never as ui.theme, which
        is Gemini CLI's and takes only its names)."""
        from gemini_tui.app.themes import named_theme
        from gemini_tui.core.setup.config import TUI_SECTION, save_user_setting

        app, chat = self.view.app, self.view.chat
        themes = sorted(app.available_themes)
        if not name:
            listed = ", ".join(f"**{t}**" if t == app.theme else f"`{t}`" for t in themes)
            await chat.add_markdown(f"Themes (current in bold): {listed}\n\n`/theme NAME` picks one.")
            return
        chosen = named_theme(name, app.available_themes)
        if chosen is None:
            await chat.add_notice(f"No theme {name!r}. Themes: {', '.join(themes)}.", "error")
            return
        app.theme = chosen
        key = f"{TUI_SECTION}.theme"
        try:
            path = save_user_setting(key, chosen, self.view.session.settings.home)
        except (OSError, ValueError) as exc:
            await chat.add_notice(f"Theme {chosen} for this session; not remembered: {exc}", "warning")
            return
        await chat.add_notice(f"Theme {chosen}, remembered as {key} in {path}.")
