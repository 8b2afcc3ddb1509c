"""Benchmark: write_file through the descriptor walk (every directory opened from the root with O_NOFOLLOW, the
temp file made and renamed relative to the parent's descriptor) against the previous path-based write (realpath,
mkstemp beside the target, rename by name), on a file 20 directories deep (target: at most 1.2x)."""

from __future__ import annotations

import os
import stat
import statistics
import tempfile
import time
from pathlib import Path

from gemini_tui.tools.workspace.text_file import write_bytes_atomic

DEPTH = 20
RUNS = 400
TARGET_RATIO = 1.2
DATA = b"x = 1\n" * 200


def path_based_write(path: Path, data: bytes) -> None:
    """The write before the gate (as it was: realpath, mkstemp, fsync, chmod, rename, fsync the directory)."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o644
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(tmp_name, mode)
    os.replace(tmp_name, target)
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def median_us(write: object, path: Path, root: Path) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        if write is write_bytes_atomic:
            write_bytes_atomic(path, DATA, root=root)
        else:
            path_based_write(path, DATA)
        times.append((time.perf_counter() - started) * 1e6)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        deep = root.joinpath(*(f"d{i}" for i in range(DEPTH)))
        deep.mkdir(parents=True)
        target = deep / "file.py"
        target.write_bytes(DATA)
        median_us(write_bytes_atomic, target, root)  # warm up
        old = [median_us(path_based_write, target, root) for _ in range(3)]
        new = [median_us(write_bytes_atomic, target, root) for _ in range(3)]
    old_us, new_us = min(old), min(new)
    ratio = new_us / old_us
    verdict = "ok" if ratio <= TARGET_RATIO else "OVER TARGET"
    print(f"write {DEPTH} directories deep: path-based {old_us:.0f} us, descriptor walk {new_us:.0f} us "
          f"(median of {RUNS}, best of 3)")
    print(f"ratio {ratio:.2f}x (target <= {TARGET_RATIO}x): {verdict}")


if __name__ == "__main__":
    main()
