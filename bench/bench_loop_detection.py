"""Benchmark: the loop detector on legitimately repetitive answers (target: no false alarm) and on genuine
loops (target: every one stopped within 2 KB of repetition), streamed in random small deltas."""

from __future__ import annotations

import random
import time

from bench.loop_corpus import legitimate, loops
from gemini_tui.core.session.loop_detection import LoopDetector

TARGET_CHARS = 2048


def stream(detector: LoopDetector, text: str, rng: random.Random) -> int | None:
    """Feeds `text` in deltas of 1-80 characters; where (characters fed) the detector stopped, or None."""
    fed = 0
    while fed < len(text):
        delta = text[fed:fed + rng.randint(1, 80)]
        fed += len(delta)
        if detector.check_text(delta) is not None:
            return fed
    return None


def measure(seed: int = 3) -> tuple[list[str], list[tuple[str, int | None]], int]:
    """False alarms (names), genuine loops with the characters of repetition before the stop, corpus size."""
    rng = random.Random(seed)
    false_alarms = [name for name, text in legitimate() if stream(LoopDetector(), text, rng) is not None]
    caught: list[tuple[str, int | None]] = []
    for name, prefix, unit in loops():
        answer = prefix + unit * (8 * TARGET_CHARS // len(unit) + 2)
        stopped = stream(LoopDetector(), answer, rng)
        caught.append((name, None if stopped is None else stopped - len(prefix)))
    return false_alarms, caught, sum(len(text) for _, text in legitimate())


def main() -> None:
    started = time.perf_counter()
    false_alarms, caught, size = measure()
    elapsed = time.perf_counter() - started
    stopped = [chars for _, chars in caught if chars is not None]
    late = [name for name, chars in caught if chars is None or chars > TARGET_CHARS]
    print(f"legitimate answers: {len(legitimate())} ({size / 1000:.0f} KB), false alarms {len(false_alarms)} "
          f"(target 0) {'OK' if not false_alarms else 'MISSED: ' + ', '.join(false_alarms)}")
    print(f"genuine loops: {len(caught)}, stopped {len(stopped)}, repetition before the stop: median "
          f"{sorted(stopped)[len(stopped) // 2] if stopped else 0} chars, max {max(stopped, default=0)} "
          f"(target <= {TARGET_CHARS}) {'OK' if not late else 'MISSED: ' + ', '.join(late[:5])}")
    print(f"time: {elapsed:.2f} s for the whole corpus")


if __name__ == "__main__":
    main()
