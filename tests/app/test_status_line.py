"""The status line at every width: it never outgrows the screen, its parts give way whole (a number is never cut),
the root path shortens first, and `working…`, the mode and the context share stay the longest."""

from __future__ import annotations

import itertools
import re

import pytest

from gemini_tui.app.widgets.status import StatusLine
from gemini_tui.app.widgets.status_fit import SEPARATOR

ROOTS = ["/r", "/home/someone/src/a-rather-long-project-name/with/nested/folders/inside"]
STATES = list(itertools.product([False, True], [False, True], ROOTS, [{}, {"time": "connected", "slow": "failed"}]))


def status(busy: bool, offline: bool, root: str, mcp: dict[str, str]) -> StatusLine:
    line = StatusLine()
    line.model_name = "gemini-2.5-pro"
    line.is_offline = offline
    line.approval_mode = "auto_edit"
    line.root = root
    line.tokens = 1_234_567
    line.context_percent = 14
    line.busy = busy
    line.sandbox = "sandbox: bwrap"
    line.mcp = mcp
    return line


@pytest.mark.parametrize(("busy", "offline", "root", "mcp"), STATES)
def test_the_status_line_fits_every_width_and_never_cuts_a_part(busy: bool, offline: bool, root: str,
                                                               mcp: dict[str, str]) -> None:
    line = status(busy, offline, root, mcp)
    full = line.line(1000).plain
    full_parts = [p.strip() for p in full.split(SEPARATOR.strip())]
    numbers = set(re.findall(r"\d[\d.]*[kM%]?", full))
    for width in range(200, 19, -1):
        shown = line.line(width).plain
        assert len(shown) <= width, (width, shown)
        for number in re.findall(r"\d[\d.]*[kM%]?", shown):
            assert number in numbers, (width, shown)  # never a number cut short (`14` of `1.2M`)
        for part in (p.strip() for p in shown.split("│")[1:]):
            assert part in full_parts or part.startswith("…"), (width, part)  # whole, or the shortened root
        if width >= 60:
            assert "mode: auto_edit" in shown and "context 14%" in shown
            assert ("working…" in shown) is busy
        if width >= 90 and mcp:
            assert "MCP 1/2" in shown
        if width >= len(full):
            assert shown == full  # room for all: nothing given way


def test_the_root_shortens_before_anything_is_dropped() -> None:
    line = status(True, False, ROOTS[1], {})
    full = line.line(1000).plain
    shown = line.line(len(full) - 20).plain
    assert "…" in shown and "inside" in shown  # its end kept
    for part in ("gemini-2.5-pro", "mode: auto_edit", "sandbox: bwrap", "1.2M tokens", "context 14%", "working…"):
        assert part in shown
