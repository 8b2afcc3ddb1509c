"""A room's public face, imported on first use: `__getattr__ = lazy_face(__name__, {module: names})` in a package's
`__init__` names its members without importing them, so importing one small module of a room (the app's first
frame imports a few) does not import the whole room (PEP 562; Textual's `widgets/__init__.py` does the same)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_face(package: str, members: dict[str, tuple[str, ...]]) -> Callable[[str], Any]:
    home = {name: module for module, names in members.items() for name in names}

    def attribute(name: str) -> Any:
        if name in home:
            return getattr(importlib.import_module(home[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return attribute
