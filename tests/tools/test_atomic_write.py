"""write_bytes_atomic: a writer killed at any moment leaves the old file or the new one, never a mix."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gemini_tui.tools.workspace import text_file
from gemini_tui.tools.workspace.text_file import write_bytes_atomic

REPO = Path(__file__).resolve().parents[2]
SIZE = 4 * 1024 * 1024
WRITER = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from gemini_tui.tools.workspace.text_file import write_bytes_atomic
target, size = Path(sys.argv[1]), int(sys.argv[3])
versions = [b"A" * size, b"B" * size]
print("ready", flush=True)
i = 0
while True:
    write_bytes_atomic(target, versions[i % 2], root=target.parent)
    i += 1
"""


def test_sigkill_at_random_moments_leaves_old_or_new(tmp_path: Path) -> None:
    target = tmp_path / "big.dat"
    target.write_bytes(b"A" * SIZE)
    target.chmod(0o600)
    rng = random.Random(7)
    kills_mid_write = 0
    for _ in range(25):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(target), str(REPO), str(SIZE)],
                                 stdout=subprocess.PIPE)
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.12))
        child.send_signal(signal.SIGKILL)
        child.wait()
        data = target.read_bytes()
        assert data in (b"A" * SIZE, b"B" * SIZE), f"torn file: {len(data)} bytes, starts {data[:8]!r}"
        assert os.stat(target).st_mode & 0o777 == 0o600
        leftovers = [p for p in tmp_path.iterdir() if p != target]
        assert all(p.name.startswith(".big.dat.") and p.name.endswith(".tmp") for p in leftovers), leftovers
        kills_mid_write += bool(leftovers)
        for leftover in leftovers:
            leftover.unlink()
    # The kills must really land inside writes (a temp file left behind), or the test proves nothing.
    assert kills_mid_write >= 3


def test_failure_mid_write_keeps_old_file_and_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"old\n")

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        write_bytes_atomic(target, b"new\n" * 1000, root=tmp_path)
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_new_file_mode_follows_umask_and_hooks_see_old_bytes(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Path, bytes | None]] = []
    monkeypatch.setattr(text_file, "BEFORE_WRITE_HOOKS", [lambda path, old: seen.append((path, old))])
    old_umask = os.umask(0o027)
    try:
        write_bytes_atomic(tmp_path / "new" / "f.txt", b"1", root=tmp_path)
    finally:
        os.umask(old_umask)
    assert os.stat(tmp_path / "new" / "f.txt").st_mode & 0o777 == 0o640
    write_bytes_atomic(tmp_path / "new" / "f.txt", b"2", root=tmp_path)
    assert seen == [(tmp_path / "new" / "f.txt", None), (tmp_path / "new" / "f.txt", b"1")]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_root_keeps_the_owner_of_a_file(tmp_path: Path) -> None:
    target = tmp_path / "theirs.txt"
    target.write_bytes(b"old")
    os.chown(target, 65534, 65534)
    write_bytes_atomic(target, b"new", root=tmp_path)
    st = os.stat(target)
    assert (st.st_uid, st.st_gid, target.read_bytes()) == (65534, 65534, b"new")


def test_read_only_target_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "ro.txt"
    target.write_bytes(b"old")
    target.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        write_bytes_atomic(target, b"new", root=tmp_path)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["ro.txt"]  # no temp file left behind
