"""Measuring what a key waits for, in figures the machine's load hardly moves: the CPU time of each layout of the
screen in front (Textual's `Screen._refresh_layout`: reflow and the repaint it causes) and of each garbage
collection, counted per second and per key press."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from textual.screen import Screen


@dataclass
class FrameCosts:
    """What was recorded between `start` and `stop`: (wall start, wall end, thread CPU seconds) per layout of the
    screen in front and per garbage collection."""

    layouts: list[tuple[float, float, float]] = field(default_factory=list)
    collections: list[tuple[float, float, float, int]] = field(default_factory=list)
    recording: bool = False

    def layouts_within(self, start: float, end: float) -> int:
        return sum(1 for began, ended, _ in self.layouts if ended > start and began < end)

    def summary(self, seconds: float) -> dict[str, float]:
        cpu = [spent for _, _, spent in self.layouts] or [0.0]
        gc_cpu = [spent for _, _, spent, _ in self.collections] or [0.0]
        return {"layouts": len(self.layouts), "layouts_per_s": len(self.layouts) / seconds if seconds else 0.0,
                "layout_cpu_median": statistics.median(cpu), "layout_cpu_max": max(cpu),
                "collections": len(self.collections), "gc_cpu_max": max(gc_cpu)}


@contextmanager
def frame_costs() -> Iterator[FrameCosts]:
    """Records while `costs.recording` is set (the caller sets it around the part it measures)."""
    costs = FrameCosts()
    original = Screen._refresh_layout
    began: dict[str, float] = {}

    def timed_layout(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        if not (costs.recording and self.is_current):
            return original(self, *args, **kwargs)
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            costs.layouts.append((wall, time.perf_counter(), time.thread_time() - cpu))

    def collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began["wall"], began["cpu"] = time.perf_counter(), time.thread_time()
        elif costs.recording and began:
            costs.collections.append((began["wall"], time.perf_counter(), time.thread_time() - began["cpu"],
                                      info["generation"]))

    Screen._refresh_layout = timed_layout  # type: ignore[method-assign]
    gc.callbacks.append(collection)
    try:
        yield costs
    finally:
        Screen._refresh_layout = original  # type: ignore[method-assign]
        gc.callbacks.remove(collection)
