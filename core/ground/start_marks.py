"""Marks on the way to the first frame: with `GEMINI_TUI_START_MARKS=FILE` set, each step of the start (arguments
read, app mounted, main screen composed, first frame, session built) is appended to FILE as one JSON line with the
seconds since the process began (the kernel's own start time, so the interpreter's start counts too) and the CPU
seconds the process had used by then. Unset, a mark costs one dictionary look-up. `python -m bench first_frame`
prints them as a timeline, and takes the CPU to the first frame from them."""

from __future__ import annotations

import json
import os
import time

ENV = "GEMINI_TUI_START_MARKS"


def since_process_start() -> float | None:
    """Seconds since this process was started, by the kernel's clock (10 ms steps); None where /proc is not."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()  # the command name may hold spaces and parentheses
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat(5): start time since boot
        return time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError):
        return None


def mark(step: str) -> None:
    """Append `step` with its time to the file named by GEMINI_TUI_START_MARKS, if it is set."""
    path = os.environ.get(ENV)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"step": step, "s": since_process_start(), "cpu": time.process_time(),
                                  "pid": os.getpid()}) + "\n")
    except OSError:  # a benchmark's aid: never a reason for the app to fail
        pass
