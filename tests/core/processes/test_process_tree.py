"""Process trees: descendants found through /proc, a subreaper keeps orphans, a tree ends with every group in it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from gemini_tui.core.processes.process_tree import alive, children, descendants, end_tree, reap

# a child that starts a grandchild in a new session (out of its group) and a great-grandchild, then waits
NESTED = """
import subprocess, sys, time
inner = "import subprocess, time; subprocess.Popen(['sleep', '300']); time.sleep(300)"
subprocess.Popen([sys.executable, '-c', inner], start_new_session=True)
time.sleep(300)
"""


def _wait(condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.05)


def test_a_tree_is_found_and_ended_whole_across_sessions() -> None:
    top = subprocess.Popen([sys.executable, "-c", NESTED], start_new_session=True)
    try:
        _wait(lambda: len(descendants(top.pid)) == 2)
        below = descendants(top.pid)
        assert children(top.pid) == below[:1]  # parents before their children
        assert os.getpgid(below[0]) != top.pid  # the grandchild left the top's group
        found = end_tree(top.pid)
        assert set(found) == {top.pid, *below}
        top.wait(10)
        _wait(lambda: not any(alive(pid) for pid in below))
    finally:
        if top.poll() is None:
            top.kill()
            top.wait()


def test_a_subreaper_keeps_the_orphans_of_its_tree() -> None:
    # the child becomes a subreaper, starts a grandchild that double-forks and leaves: the orphan stays below it
    script = """
import os, subprocess, sys, time
from gemini_tui.core.processes.process_tree import become_subreaper
assert become_subreaper()
subprocess.run(["sh", "-c", "sleep 300 & exit 0"])
time.sleep(300)
"""
    top = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        _wait(lambda: any(_name(pid) == "sleep" for pid in children(top.pid)))
    finally:
        end_tree(top.pid)
        top.wait(10)


def test_reap_collects_only_an_ended_child() -> None:
    child = subprocess.Popen(["sleep", "300"])
    try:
        assert not reap(child.pid) and alive(child.pid)
        child.kill()
        _wait(lambda: not alive(child.pid))
        _wait(lambda: reap(child.pid))
        assert reap(os.getpid())  # not our child: nothing to collect
    finally:
        child.returncode = -9


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as file:
            return file.read().strip()
    except OSError:
        return ""
