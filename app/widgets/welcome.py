"""The welcome view's text, in versions from the fullest to the shortest, and the choice of the one that fits."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text


@dataclass(frozen=True)
class Frame:
    """How the welcome is drawn around its text: a CSS class of `.welcome` and the rows and columns it adds."""

    css_class: str
    rows: int
    columns: int


# margin 1 1, round border, padding 1 2 (chat.tcss); then tighter: no blank rows around it; then no box at all
FULL = Frame("", rows=2 + 2 + 2, columns=2 + 2 + 4)
TIGHT = Frame("-tight", rows=2, columns=2 + 2 + 2)
BARE = Frame("-bare", rows=0, columns=2)
FRAMES = (FULL, TIGHT, BARE)


def _offline_phrases() -> list[str]:
    from gemini_tui.core.models.offline import HELP_TEXT

    return [line for line in HELP_TEXT.splitlines() if line.startswith("- ")]


def welcome_text(level: int, model_name: str, offline: bool, root: str) -> Text:
    """Level 0 says everything; each level after says less (shorter tips, fewer lines), level 3 one line. Every
    level begins with `gemini-tui`; the unboxed ones (2 and 3) end with the key that shows the rest (`F1 keys`)."""
    if level >= 3:
        return Text.assemble(("gemini-tui", "bold"), (" (offline demo)" if offline else "", ""),
                             (" · /help · F1 keys", "dim"))
    if level == 2:
        body = "Offline demo model: set GEMINI_API_KEY for Gemini." if offline else f"Model: {model_name}."
        return Text.assemble(("gemini-tui", "bold"), (" · a terminal agent\n", ""), (f"{body}\n", ""),
                             ("Enter sends · /help commands · F1 keys", "dim"))
    lines: list[tuple[str, str]] = [("gemini-tui", "bold"), (f" · a terminal agent working in {root}\n\n", "")]
    if offline and level == 0:
        lines.append(("No API key: the offline demo model answers (not Gemini). ", "bold"))
        lines.append(("It follows these phrases:\n", ""))
        for phrase in _offline_phrases():
            # the help is Markdown: `code` spans are drawn bold here, not with their backticks
            for n, piece in enumerate(phrase.split("`")):
                lines.append((piece, "bold" if n % 2 else ""))
            lines.append(("\n", ""))
        lines.append(("Set GEMINI_API_KEY (or GOOGLE_API_KEY / Vertex AI settings) and restart to talk to "
                      "Gemini.\n\n", "italic"))
    elif offline:
        words = [phrase.split("`")[1].split()[0] for phrase in _offline_phrases() if "`" in phrase]
        lines.append(("No API key: the offline demo model answers (not Gemini). ", "bold"))
        lines.append((f"Its phrases: {', '.join(words)} (type one for its form).\n", ""))
        lines.append(("Set GEMINI_API_KEY and restart to talk to Gemini.\n\n", "italic"))
    else:
        lines.append((f"Model: {model_name}. Ask anything about the files here.\n\n", ""))
    if level == 0:
        lines.append(("Enter sends · @file attaches · /help lists commands · !cmd runs a shell command\n"
                      "PageUp/PageDown scroll · Esc cancels a turn · Ctrl+B tool history · F1 keys · "
                      "Ctrl+C twice quits", "dim"))
    else:
        lines.append(("Enter sends · /help commands · F1 keys · Ctrl+C twice quits", "dim"))
    return Text.assemble(*lines)


# richest first: the full text boxed, then tighter boxes, then less text, then no box
ORDER: tuple[tuple[int, Frame], ...] = ((0, FULL), (0, TIGHT), (1, FULL), (1, TIGHT), (2, TIGHT), (2, BARE),
                                       (3, BARE))


def fit_welcome(model_name: str, offline: bool, root: str, width: int, height: int,
                rows_of: Callable[[Text, int], int]) -> tuple[Text, Frame]:
    """The fullest welcome whose rows, drawn `width` columns wide (its text wrapped as `rows_of` says), fit in
    `height` rows; the shortest when none does."""
    text, frame = welcome_text(3, model_name, offline, root), BARE
    for level, candidate in ORDER:
        inner = width - candidate.columns
        if inner < 8:
            continue
        shown = welcome_text(level, model_name, offline, root)
        if rows_of(shown, inner) + candidate.rows <= height:
            return shown, candidate
    return text, frame


def frame_classes() -> Sequence[str]:
    return [frame.css_class for frame in FRAMES if frame.css_class]
