"""The app's colour theme: its own choice (`geminiTui.theme`, what /theme saves) or, failing that, Gemini CLI's
`ui.theme` mapped to the nearest of the app's themes. `ui.theme` is Gemini CLI's key and only ever holds its
names: a name it does not know makes it start with an error and its theme dialog."""

from __future__ import annotations

from collections.abc import Collection

# Gemini CLI 0.61's built-in themes (packages/cli/src/ui/themes) -> the nearest Textual theme: the same theme where
# Textual has it, else one of the same lightness and a close palette
GEMINI_CLI_THEMES: dict[str, str] = {
    "Default": "textual-dark",
    "Default Light": "textual-light",
    "ANSI": "ansi-dark",
    "ANSI Light": "ansi-light",
    "Atom One": "atom-one-dark",
    "Ayu": "tokyo-night",
    "Ayu Light": "atom-one-light",
    "Dracula": "dracula",
    "GitHub": "atom-one-dark",
    "GitHub Light": "atom-one-light",
    "GitHub Dark Colorblind": "atom-one-dark",
    "GitHub Light Colorblind": "atom-one-light",
    "Google Code": "textual-light",
    "Holiday": "rose-pine",
    "Shades Of Purple": "catppuccin-mocha",
    "Solarized Dark": "solarized-dark",
    "Solarized Light": "solarized-light",
    "Xcode": "catppuccin-latte",
    "Tokyo Night": "tokyo-night",
    "NoColor": "ansi-dark",
}


def theme_from_settings(own: str | None, gemini_cli: str | None, available: Collection[str]) -> tuple[str | None, str]:
    """The theme to apply (None: keep the default) and a warning to show ("" when none): `own` when it is one of
    `available`, else Gemini CLI's `ui.theme` mapped. A Gemini CLI theme the map does not hold (a custom one, a
    file) keeps the default quietly: it is Gemini CLI's setting, not a mistake."""
    if own:
        if own in available:
            return own, ""
        return None, f"geminiTui.theme {own!r} is not a theme here; /theme lists them."
    if gemini_cli:
        mapped = GEMINI_CLI_THEMES.get(gemini_cli, gemini_cli if gemini_cli in available else "")
        if mapped in available:
            return mapped, ""
    return None, ""


def named_theme(name: str, available: Collection[str]) -> str | None:
    """`/theme NAME`: one of the app's themes, or a Gemini CLI theme's name (any case) mapped to the nearest."""
    if name in available:
        return name
    by_lower = {key.lower(): value for key, value in GEMINI_CLI_THEMES.items()}
    mapped = by_lower.get(name.lower())
    return mapped if mapped in available else None
