"""The check after a command, with inotify watching the protected places: it finds what the full look finds,
for every kind of change a command can make (run for real with bash and git), and an unchanged round looks at
next to nothing; when the events cannot say (a lost event, a renamed folder), it looks at everything."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gemini_tui.core.processes.protected_snapshot import ProtectedSnapshot

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1"}

OVERFLOW = "more events than the queue holds, and a context file"
# what a command does (run by bash in the root, with the test's home): every way a protected place can change
COMMANDS = {
    "append to the config": "echo '[x]' >> .git/config",
    "git config (a lock file renamed over)": "git config core.fsmonitor 'touch P'",
    "a new hook": "printf '#!/bin/sh\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
    "a write through a hard link made elsewhere": "ln .git/config hard && echo '[y]' >> hard",
    "a write through an old hard link": "echo '[z]' >> old-link",
    "times only": "touch -d 2000-01-01 GEMINI.md",
    "truncated": "truncate -s 0 GEMINI.md",
    "replaced by a link": "ln -sf /etc/hostname GEMINI.md",
    "deleted": "rm GEMINI.md",
    "a context file deep down": "mkdir -p a/b/c && echo x > a/b/c/GEMINI.md",
    "a context file in a nested repository": "echo x > vendor/lib3/GEMINI.md",
    "a nested repository's hook": "echo x > vendor/lib2/.git/hooks/post-checkout",
    "a new nested repository": "git init -q src/newrepo",
    "a gitlink": "git init -q sub && git -C sub commit -q --allow-empty -m x && git add sub",
    "a folder renamed, then a context file in it": "mv src/lib1 src/moved && echo x > src/moved/part1/GEMINI.md",
    "the hooks folder swapped": "mv .git/hooks .git/hooks-old && mkdir .git/hooks && echo x > .git/hooks/pre-push",
    "settings made": "mkdir -p .gemini && echo '{}' > .gemini/settings.json",
    "settings changed": "echo '{\"x\": 1}' > .gemini/settings.json",
    "a hooks path and a hook in it": "git config core.hooksPath .h && mkdir .h && echo x > .h/post-checkout",
    "a module config and a gitfile naming it": "mkdir -p .git/modules/m && printf '[core]\\n\\tfsmonitor = x\\n' "
        "> .git/modules/m/config && mkdir m && echo 'gitdir: ../.git/modules/m' > m/.git",
    "gitmodules": "printf '[submodule \"x\"]\\n' > .gitmodules",
    "husky": "mkdir -p .husky/_ && echo x > .husky/_/pre-commit",
    "the shell start-up file": "echo 'alias ls=rm' >> ~/.bashrc",
    "a git config in a folder not there before": "mkdir -p ~/.config/git && echo x > ~/.config/git/config",
    "an ssh key added": "echo k >> ~/.ssh/authorized_keys",
    OVERFLOW: "(cd src/lib0/part1 && seq 20000 | sed 's/^/f/' | xargs touch) && echo x > src/lib4/GEMINI.md",
    "nothing protected": "echo x > src/lib0/part0/new.txt && mkdir -p build/out && touch build/out/o",
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The root every test starts from, made once (seven `git init`) and copied: a repository with a context file,
    settings, six nested repositories and a tree of source folders."""
    root, home = tmp_path_factory.mktemp("watched-template") / "root", tmp_path_factory.mktemp("watched-home")
    env = {**os.environ, **GIT_ENV, "HOME": str(home)}  # an empty home, as each test's own was
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    (root / "GEMINI.md").write_text("notes\n")
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text("{}\n")
    for number in range(6):
        subprocess.run(["git", "init", "-q", str(root / "vendor" / f"lib{number}")], check=True, env=env)
        for part in range(3):
            folder = root / "src" / f"lib{number}" / f"part{part}"
            folder.mkdir(parents=True)
            (folder / "f.txt").write_text("x")
    return root


def tree(base: Path, template: Path) -> tuple[Path, Path]:
    root, home = base / "root", base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".bashrc").write_text("# rc\n")
    shutil.copytree(template, root, symlinks=True)
    os.link(root / ".git" / "config", root / "old-link")  # a hard link a copy cannot carry: made in each copy
    return root, home


def run(root: Path, home: Path, command: str) -> None:
    env = {**os.environ, **GIT_ENV, "HOME": str(home)}
    subprocess.run(["bash", "-c", command], cwd=root, env=env, check=True, capture_output=True, timeout=60)


def said(changes: list, base: Path) -> list[tuple[str, str, str]]:
    """The changes, with paths relative to the test's folder and the set-aside names without their numbers."""
    return sorted((str(c.path.relative_to(base)), c.what, re.sub(r"refused-\d+-\d+", "refused", c.undone or ""))
                  for c in changes)


def rounds(base: Path, template: Path, command: str, watching: bool) -> tuple[list, list, ProtectedSnapshot, int]:
    root, home = tree(base, template)
    snapshot = ProtectedSnapshot([root], home, watching=watching, watch_from=0)
    for _ in range(2):  # the first rounds list and watch everything; the next ones are the steady state
        snapshot.before()
        assert snapshot.after(True) == []
    snapshot.before()
    run(root, home, command)
    first = said(snapshot.after(True), base)
    looked = snapshot.looked
    snapshot.before()
    return first, said(snapshot.after(True), base), snapshot, looked


@pytest.mark.parametrize("what", list(COMMANDS))
def test_watching_finds_what_the_full_look_finds(tmp_path: Path, template: Path, what: str) -> None:
    watched, watched_next, snapshot, looked = rounds(tmp_path / "w", template, COMMANDS[what], watching=True)
    assert snapshot.watching, "inotify is expected to work on this machine"
    if what == OVERFLOW:
        assert looked > 100  # events were lost: everything was looked at
    full, full_next, _, _ = rounds(tmp_path / "f", template, COMMANDS[what], watching=False)
    assert [(p.removeprefix("w/"), w, u) for p, w, u in watched] == [(p.removeprefix("f/"), w, u) for p, w, u in full]
    assert watched_next == full_next == []  # what was put back is the baseline: nothing more to say
    snapshot.close()


@pytest.mark.parametrize("what", list(COMMANDS))
def test_a_change_between_commands_is_the_users_with_watching_too(tmp_path: Path, template: Path,
                                                                 what: str) -> None:
    root, home = tree(tmp_path, template)
    snapshot = ProtectedSnapshot([root], home, watch_from=0)
    for _ in range(2):
        snapshot.before()
        snapshot.after(True)
    run(root, home, COMMANDS[what])  # the user, in their editor or terminal
    snapshot.before()
    assert snapshot.after(True) == []
    snapshot.close()


def test_an_unchanged_round_looks_at_almost_nothing_while_watching(tmp_path: Path, template: Path) -> None:
    root, home = tree(tmp_path, template)
    watched = ProtectedSnapshot([root], home, watch_from=0)
    full = ProtectedSnapshot([root], home, watching=False)
    for snapshot in (watched, full):
        for _ in range(3):
            snapshot.before()
            snapshot.after(True)
    assert watched.watching
    assert full.looked > 100  # every folder and watched path
    assert watched.looked <= 4  # the paths no watch covers (~/.config/git, ~/.config/fish)
    run(root, home, "echo x >> src/lib0/part0/f.txt")  # a command's ordinary work
    watched.before()
    watched.after(True)
    assert watched.looked <= 4
    watched.close()
