"""The app's Textual stylesheets (`*.tcss`), shipped as package data and found with importlib.resources."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path


def stylesheet(name: str) -> Path:
    """The path of one stylesheet; package data of a regular install is a real file on disk."""
    with as_file(files(__name__) / name) as path:
        return Path(path)
