"""The shadow repository is checked whole once, not before every snapshot (one git start each), and a repository
damaged after that check is still found: the snapshot that meets it replaces it (the damaged one kept aside) and
is taken all the same. Counted with a git that logs each start, then runs the real one."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from gemini_tui.core.persistence.shadow_repo import REF, ShadowRepo

REAL_GIT = shutil.which("git")
DAMAGES: dict[str, Callable[[Path], object]] = {
    "HEAD overwritten": lambda git_dir: (git_dir / "HEAD").write_text("garbage\n"),
    "objects removed": lambda git_dir: shutil.rmtree(git_dir / "objects"),
    "config unreadable": lambda git_dir: (git_dir / "config").write_text("[[[garbage\n"),
}


@pytest.fixture
def logged_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assert REAL_GIT is not None
    folder, log = tmp_path / "bin", tmp_path / "git.log"
    folder.mkdir()
    (folder / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{REAL_GIT}" "$@"\n')
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    return log


def checks(log: Path) -> int:
    return sum(line.endswith("rev-parse --git-dir") for line in log.read_text().splitlines())


@pytest.mark.skipif(REAL_GIT is None, reason="git is not installed")
@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_repository_damaged_after_its_check_is_replaced_by_the_next_snapshot(tmp_path: Path, logged_git: Path,
                                                                               damage: str) -> None:
    root, git_dir = tmp_path / "work", tmp_path / "history" / "shadow"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    repo = ShadowRepo(root, git_dir)
    first = repo.snapshot({"n": 1})
    (root / "a.txt").write_text("two\n")
    ShadowRepo(root, git_dir).snapshot({"n": 0})  # another session's repository object checks it once itself
    checked = checks(logged_git)
    second = repo.snapshot({"n": 2})
    assert checks(logged_git) == checked and second != first  # no check before a snapshot of a checked repository
    DAMAGES[damage](git_dir)
    (root / "a.txt").write_text("three\n")
    third = repo.snapshot({"n": 3})
    aside = [p.name for p in git_dir.parent.iterdir() if p.name.startswith("shadow.damaged-")]
    assert len(aside) == 1  # kept, never deleted
    assert repo.git("rev-parse", REF).decode().strip() == third
    assert repo.git("show", f"{third}:a.txt") == b"three\n"


def other_checkpoint(repo: ShadowRepo, tip: str) -> str | None:
    """Another process's checkpoint on top of `tip` (its own git, not this process's repository object)."""
    tree = repo.git("rev-parse", f"{tip}^{{tree}}").decode().strip()
    made = subprocess.run(["git", f"--git-dir={repo.git_dir}", "-c", "user.name=other", "-c", "user.email=o@o",
                           "commit-tree", tree, "-p", tip, "-m", "another window"],
                          capture_output=True, text=True, check=True)
    other = made.stdout.strip()
    subprocess.run(["git", f"--git-dir={repo.git_dir}", "update-ref", REF, other], check=True)
    return other


def ref_deleted(repo: ShadowRepo, tip: str) -> str | None:
    subprocess.run(["git", f"--git-dir={repo.git_dir}", "update-ref", "-d", REF], check=True)
    return None


MOVES: dict[str, Callable[[ShadowRepo, str], str | None]] = {
    "nobody": lambda repo, tip: tip,
    "another process's checkpoint": other_checkpoint,
    "the ref deleted": ref_deleted,
}


@pytest.mark.skipif(REAL_GIT is None, reason="git is not installed")
@pytest.mark.parametrize("move", sorted(MOVES))
def test_a_checkpoints_parent_is_the_refs_tip_even_when_another_process_moved_it(tmp_path: Path, logged_git: Path,
                                                                                move: str) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    repo = ShadowRepo(root, tmp_path / "shadow")
    first = repo.snapshot({"n": 1})
    (root / "a.txt").write_text("two\n")
    asked = sum(line.endswith(f"rev-parse --verify --quiet {REF}") for line in logged_git.read_text().splitlines())
    second = repo.snapshot({"n": 2})
    asked_again = sum(line.endswith(f"rev-parse --verify --quiet {REF}")
                      for line in logged_git.read_text().splitlines())
    assert asked_again == asked  # the tip this process wrote is the parent, without asking
    assert repo.git("rev-parse", f"{second}^").decode().strip() == first
    expected = MOVES[move](repo, second)
    (root / "a.txt").write_text("three\n")
    third = repo.snapshot({"n": 3})
    parents = repo.git("rev-list", "--parents", "-n", "1", third).decode().split()[1:]
    assert parents == ([expected] if expected else [])
    assert repo.git("rev-parse", REF).decode().strip() == third
