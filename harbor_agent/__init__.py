"""gemini_tui.harbor: gemini-tui as an installed agent of Harbor (the optional `gemini-tui[harbor]` extra); nothing
in gemini-tui's own rooms imports it."""

from gemini_tui.harbor.agent import GeminiTuiAgent

__all__ = ["GeminiTuiAgent"]
