"""The app's Textual stylesheets (`*.tcss`), shipped as package data beside this module."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def stylesheet(name: str) -> Path:
    """The path of one stylesheet: package data is a real file beside this module in every install the app runs
    from (Textual reads stylesheets by path), so importlib.resources, and the zip readers it brings, are not needed
    on the way to the first frame."""
    return HERE / name
