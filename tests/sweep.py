"""How many generated cases a sweep runs. `make test` (and so CI) runs every case; `make check`, the daily loop,
sets GEMINI_TUI_SWEEP_SCALE=0.25 and runs a quarter of each sweep, the same seeds first."""

from __future__ import annotations

import os

SCALE = float(os.environ.get("GEMINI_TUI_SWEEP_SCALE", "1"))


def cases(full: int) -> int:
    """`full` scaled down for the daily loop; never fewer than one."""
    return max(1, round(full * min(SCALE, 1.0)))
