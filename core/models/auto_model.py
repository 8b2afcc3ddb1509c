"""Models room: Gemini CLI's `auto` model aliases and the Pro and Flash models each one stands for."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AutoModel:
    """An alias the user configures instead of a model (`model.name: "auto-gemini-3"`); requests go to `pro` or
    `flash`, never to the alias itself (no server knows it)."""

    alias: str
    pro: str
    flash: str


_GEMINI_2_5 = ("gemini-2.5-pro", "gemini-2.5-flash")
_GEMINI_3 = ("gemini-3-pro-preview", "gemini-3-flash-preview")
# plain `auto` is the 2.5 pair: Gemini CLI picks the preview pair only for accounts it has checked for preview
# access, and nothing here checks that, so the pair every key can use is the safe reading
AUTO_MODELS = {alias: AutoModel(alias, *pair) for alias, pair in
               (("auto", _GEMINI_2_5), ("auto-gemini-2.5", _GEMINI_2_5), ("auto-gemini-3", _GEMINI_3))}


def auto_model(name: str) -> AutoModel | None:
    """The alias `name` names (exactly, as Gemini CLI compares it), else None: a model name sent as given."""
    return AUTO_MODELS.get(name.strip())
