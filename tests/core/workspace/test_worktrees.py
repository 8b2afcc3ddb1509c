"""Worktrees made, found again and listed with real git, in a repository of the test's own temporary folder."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gemini_tui.core.workspace.worktree_place import worktree_name_of
from gemini_tui.core.workspace.worktrees import (
    WorktreeError,
    check_name,
    leaving_words,
    list_worktrees,
    new_name,
    open_worktree,
    project_root,
    state_of,
)

IDENTITY = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *IDENTITY, *args], check=True, capture_output=True,
                          text=True).stdout


def make_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "app.py").write_text("print('main')\n", encoding="utf-8")
    git(folder, "add", "app.py")
    git(folder, "commit", "-q", "-m", "first")
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "project")


# name -> why it is refused (None: accepted as it is, after stripping)
NAMES: dict[str, str | None] = {
    "feat": None, "fix-123": None, "a": None, "Feature_2.0": None, "  padded  ": None, "9lives": None,
    "x" * 100: None,
    "": "empty", "   ": "empty", "x" * 101: "longer",
    "../escape": "leave", "..": "leave", ".": "leave", "a/b": "leave", "a\\b": "leave", "/etc": "leave",
    "../../../../tmp/owned": "leave",
    ".hidden": "letters", "-rf": "letters", "--force": "letters", "with space": "letters", "semi;colon": "letters",
    "tab\tname": "letters", "new\nline": "letters", "é": "letters", "a~1": "letters", "a:b": "letters",
    "star*": "letters", "q?": "letters", "br[ack]": "letters", "at@{1}": "letters",
    "a..b": "git", "ends.": "git", "x.lock": "git",
}


@pytest.mark.parametrize(("name", "why"), NAMES.items(), ids=[repr(n)[:30] for n in NAMES])
def test_names_are_checked_before_git_sees_them(name: str, why: str | None) -> None:
    if why is None:
        assert check_name(name) == name.strip()
        # what we accept, git accepts as a branch too
        assert subprocess.run(["git", "check-ref-format", "--branch", f"worktree-{name.strip()}"],
                              capture_output=True).returncode == 0
    else:
        with pytest.raises(WorktreeError, match=why if why != "git" else "git refuses"):
            check_name(name)


@pytest.mark.parametrize("name", [n for n, why in NAMES.items() if why in ("leave", "letters", "git")])
def test_an_invalid_name_makes_nothing(repo: Path, tmp_path: Path, name: str) -> None:
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if ".git" not in p.parts)
    branches = git(repo, "branch", "--list")
    with pytest.raises(WorktreeError, match="Invalid worktree name"):
        open_worktree(repo, name)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if ".git" not in p.parts) == before
    assert git(repo, "branch", "--list") == branches
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_generated_names_have_gemini_clis_form_and_differ() -> None:
    when = datetime(2026, 11, 27, 19, 5, 7, 89_000, tzinfo=UTC)
    names = {new_name(when) for _ in range(20)}
    assert len(names) > 1
    for name in names:
        assert re.fullmatch(r"2026-11-27-19-05-07-089-[a-z0-9]{4}", name)
        assert check_name(name) == name


def test_a_named_worktree_is_made_on_its_branch_and_git_lists_it(repo: Path) -> None:
    made = open_worktree(repo, "feat")
    assert made.created and made.name == "feat" and made.branch == "worktree-feat"
    assert made.path == (repo / ".gemini" / "worktrees" / "feat").resolve()
    assert (made.path / "app.py").read_text(encoding="utf-8") == "print('main')\n"
    assert git(made.path, "branch", "--show-current").strip() == "worktree-feat"
    listed = git(repo, "worktree", "list", "--porcelain")
    assert f"worktree {made.path}\n" in listed and "branch refs/heads/worktree-feat" in listed
    assert worktree_name_of(made.path) == "feat" and worktree_name_of(made.path / "sub") == "feat"
    assert worktree_name_of(repo) is None


def test_the_same_name_opens_the_same_worktree_even_from_inside_another(repo: Path) -> None:
    first = open_worktree(repo, "feat")
    (first.path / "work.txt").write_text("in progress\n", encoding="utf-8")
    again = open_worktree(repo, " feat ")
    assert not again.created and again.path == first.path and again.branch == "worktree-feat"
    assert (again.path / "work.txt").read_text(encoding="utf-8") == "in progress\n"
    # from inside a worktree (or a subfolder of the project) the project is the main checkout's
    (repo / "pkg").mkdir()
    sibling = open_worktree(first.path, "other")
    assert sibling.path.parent == first.path.parent and project_root(repo / "pkg") == repo.resolve()
    assert len(git(repo, "worktree", "list").splitlines()) == 3


def test_without_a_name_one_is_made_up(repo: Path) -> None:
    made = open_worktree(repo, None)
    assert made.created and re.fullmatch(r"\d{4}(-\d\d){5}-\d{3}-[a-z0-9]{4}", made.name)
    assert made.branch == f"worktree-{made.name}"
    assert open_worktree(repo, "").name != made.name  # an empty name is no name: another new one


def test_a_branch_left_from_a_removed_worktree_is_checked_out_again(repo: Path) -> None:
    made = open_worktree(repo, "feat")
    (made.path / "new.txt").write_text("kept on the branch\n", encoding="utf-8")
    git(made.path, "add", "new.txt")
    git(made.path, "commit", "-q", "-m", "on the branch")
    git(repo, "worktree", "remove", str(made.path))
    again = open_worktree(repo, "feat")
    assert again.created and (again.path / "new.txt").read_text(encoding="utf-8") == "kept on the branch\n"


@pytest.mark.parametrize("setup", ["plain folder", "empty repository", "folder in the way", "bare repository"])
def test_where_no_worktree_can_be_made_the_error_says_why(tmp_path: Path, setup: str) -> None:
    folder = tmp_path / "here"
    folder.mkdir()
    expected = {"plain folder": "not in a git repository", "empty repository": "no commit yet",
                "folder in the way": "exists but is not a worktree", "bare repository": "without a main checkout"}
    if setup == "empty repository":
        git(folder, "init", "-q")
    elif setup == "folder in the way":
        make_repo(folder)
        (folder / ".gemini" / "worktrees" / "feat").mkdir(parents=True)
        (folder / ".gemini" / "worktrees" / "feat" / "mine.txt").write_text("user data\n", encoding="utf-8")
    elif setup == "bare repository":
        git(folder, "init", "-q", "--bare")
    with pytest.raises(WorktreeError, match=expected[setup]):
        open_worktree(folder, "feat")
    if setup == "folder in the way":
        assert (folder / ".gemini" / "worktrees" / "feat" / "mine.txt").read_text(encoding="utf-8") == "user data\n"
    if setup in ("plain folder", "bare repository"):  # nothing to list either, and the listing says why
        with pytest.raises(WorktreeError, match=expected[setup]):
            list_worktrees(folder)
    else:
        assert list_worktrees(folder) == []


def test_listing_gives_each_worktrees_state(repo: Path) -> None:
    clean = open_worktree(repo, "clean")
    dirty = open_worktree(repo, "dirty")
    ahead = open_worktree(repo, "ahead")
    (dirty.path / "app.py").write_text("print('changed')\n", encoding="utf-8")
    (dirty.path / "untracked.txt").write_text("new\n", encoding="utf-8")
    (ahead.path / "b.txt").write_text("b\n", encoding="utf-8")
    git(ahead.path, "add", "b.txt")
    git(ahead.path, "commit", "-q", "-m", "b")
    git(repo, "worktree", "add", "-q", str(repo.parent / "elsewhere"))  # not a Gemini worktree: not listed
    states = {state.worktree.name: state for state in list_worktrees(repo)}
    assert sorted(states) == ["ahead", "clean", "dirty"]
    assert states["clean"].describe() == "clean" and not states["clean"].dirty
    assert states["dirty"].dirty and states["dirty"].describe() == "dirty: 2 changed files"
    assert states["ahead"].describe() == "clean, 1 commit ahead"
    assert {s.worktree.branch for s in states.values()} == {"worktree-ahead", "worktree-clean", "worktree-dirty"}
    assert list_worktrees(clean.path) == list(states.values())  # the same list from inside one of them


def test_leaving_words_say_how_to_go_on_and_how_to_remove(repo: Path) -> None:
    made = open_worktree(repo, "feat")
    clean = leaving_words(state_of(made), "abc-123")
    assert f"Worktree feat kept at {made.path} (branch worktree-feat, clean)." in clean
    assert f"cd {made.path} && gemini-tui --resume abc-123" in clean
    assert clean.rstrip().endswith(f"git worktree remove {made.path}")
    (made.path / "app.py").write_text("changed\n", encoding="utf-8")
    dirty = leaving_words(state_of(made), None)
    assert "dirty: 1 changed file" in dirty and "--resume" not in dirty and "--force" in dirty


@pytest.mark.parametrize("before", [None, b"", b"# mine\n*.log", b"*.tmp\r\n", b"/.gemini/worktrees/\n"])
def test_the_main_checkout_stays_clean_and_its_exclude_file_keeps_its_lines(repo: Path, before: bytes | None) -> None:
    exclude = repo / ".git" / "info" / "exclude"
    if before is None:
        exclude.unlink()
    else:
        exclude.write_bytes(before)
    open_worktree(repo, "feat")
    open_worktree(repo, "other")
    assert git(repo, "status", "--porcelain") == ""  # untracked files shown: the worktrees are not among them
    after = exclude.read_bytes()
    assert after.startswith(before or b"")
    assert after.count(b"/.gemini/worktrees/") == 1
    if before and b"\r\n" in before:
        assert after.endswith(b"/.gemini/worktrees/\r\n")
    (repo / "new.txt").write_text("still seen\n", encoding="utf-8")
    assert git(repo, "status", "--porcelain") == "?? new.txt\n"
