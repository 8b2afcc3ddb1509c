"""ACP room: the SDK imported without reading its schema's attribute docstrings, a third of the agent's start.

The SDK's models ask pydantic for `use_attribute_docstrings`: for each of its ~270 classes pydantic reads and
tokenizes the class's source to copy each field's docstring into the field's description. A description only
ever reaches a JSON Schema; validating and writing messages, all the agent does with them, never reads it. The
step is skipped while the SDK is first imported (at start, before any other thread runs) and put back at once;
should pydantic no longer have it, the import is the plain one."""

from __future__ import annotations

import importlib
import sys
from typing import Any

STEP = "_update_fields_from_docstrings"  # pydantic 2's field collection calls it for use_attribute_docstrings


def _skipped(*_args: Any, **_kwargs: Any) -> None:
    return None


def import_sdk() -> None:
    if "acp" in sys.modules:
        return
    try:
        fields: Any = importlib.import_module("pydantic._internal._fields")
    except ImportError:
        fields = None
    step = getattr(fields, STEP, None)
    if not callable(step):
        importlib.import_module("acp")
        return
    setattr(fields, STEP, _skipped)
    try:
        importlib.import_module("acp")
    finally:
        setattr(fields, STEP, step)
