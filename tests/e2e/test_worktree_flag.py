"""`gemini-tui -p ... -w NAME` as a subprocess against the fake Gemini server, in a real git repository: the run
works in `.gemini/worktrees/NAME` on branch `worktree-NAME`, the main checkout stays as it was, and the worktree is
kept with words on how to come back; names and folders where no worktree can be made are refused up front."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.core.workspace.test_worktrees import NAMES, git, make_repo
from tests.e2e.test_headless import run_cli
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


def worktree_list(repo: Path) -> list[dict[str, str]]:
    """`git worktree list --porcelain`, one dict a worktree."""
    entries: list[dict[str, str]] = []
    for block in git(repo, "worktree", "list", "--porcelain").strip().split("\n\n"):
        entries.append(dict(line.partition(" ")[::2] for line in block.splitlines()))
    return entries


def write_script(server: FakeGeminiServer, content: str) -> None:
    server.script(reply(call("write_file", file_path="app.py", content=content)), reply(text("Written.")))


def test_a_headless_run_writes_in_its_worktree_and_leaves_the_main_checkout(gemini_server, tmp_path: Path,
                                                                          home: Path) -> None:
    repo = make_repo(tmp_path / "project")
    write_script(gemini_server, "print('feature')\n")
    out = run_cli(["-p", "change app.py", "-w", "feat", "--approval-mode", "auto_edit", "-o", "json"], repo, home,
                  gemini_server)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["response"] == "Written."  # stdout stays the answer alone
    worktree = (repo / ".gemini" / "worktrees" / "feat").resolve()
    assert (worktree / "app.py").read_text(encoding="utf-8") == "print('feature')\n"
    assert (repo / "app.py").read_text(encoding="utf-8") == "print('main')\n"
    assert git(repo, "status", "--porcelain") == ""  # untracked files too: the worktree is excluded
    assert {"worktree": str(worktree), "HEAD": git(repo, "rev-parse", "HEAD").strip(),
            "branch": "refs/heads/worktree-feat"} in worktree_list(repo)
    # the model was told it works in the worktree, and the worktree is kept with the way back
    assert str(worktree) in json.dumps(gemini_server.requests[0].body)
    assert f"Worktree feat kept at {worktree} (branch worktree-feat, dirty: 1 changed file)." in out.stderr
    assert f"cd {worktree} && gemini-tui --resume " in out.stderr
    assert f"git worktree remove {worktree} --force" in out.stderr

    # the same name again: the same worktree, its change still there, nothing new made; and the session id the
    # words gave resumes there (its saved sessions are the worktree's)
    session_id = out.stderr.split(f"cd {worktree} && gemini-tui --resume ", 1)[1].split()[0]
    gemini_server.script(reply(text("Still here.")))
    again = run_cli(["-p", "look", "--worktree", "feat", "--resume", session_id], repo, home, gemini_server)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Still here.\n"
    assert "change app.py" in json.dumps(gemini_server.requests[-1].contents)
    assert (worktree / "app.py").read_text(encoding="utf-8") == "print('feature')\n"
    assert len(worktree_list(repo)) == 2


def test_without_a_name_a_new_worktree_is_named_for_the_time(gemini_server, tmp_path: Path, home: Path) -> None:
    repo = make_repo(tmp_path / "project")
    gemini_server.script(reply(text("Fine.")))
    out = run_cli(["-w", "-p", "hello"], repo, home, gemini_server)
    assert out.returncode == 0, out.stderr
    [made] = [Path(e["worktree"]) for e in worktree_list(repo)[1:]]
    assert made.parent == (repo / ".gemini" / "worktrees").resolve()
    assert worktree_list(repo)[1]["branch"] == f"refs/heads/worktree-{made.name}"
    assert f"Worktree {made.name} kept at {made} (branch worktree-{made.name}, clean)." in out.stderr


@pytest.mark.parametrize("name", [n for n, why in NAMES.items() if why in ("leave", "letters", "git")][::3])
def test_an_invalid_name_is_a_bad_flag_and_makes_nothing(tmp_path: Path, home: Path, name: str) -> None:
    repo = make_repo(tmp_path / "project")
    out = run_cli(["-p", "hello", f"--worktree={name}"], repo, home)  # `=`: a name may look like an option
    assert out.returncode == 2
    assert "Invalid worktree name" in out.stderr
    assert not (repo / ".gemini").exists() and len(worktree_list(repo)) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "project"]


def test_outside_a_repository_the_run_stops_with_the_reason(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    out = run_cli(["-p", "hello", "-w", "feat"], folder, home)
    assert out.returncode == 1
    assert "gemini-tui: no worktree:" in out.stderr and "is not in a git repository" in out.stderr
    assert list(folder.iterdir()) == []


def test_acp_refuses_the_flag(tmp_path: Path, home: Path) -> None:
    repo = make_repo(tmp_path / "project")
    out = run_cli(["--acp", "-w", "feat"], repo, home)
    assert out.returncode == 2 and "--worktree cannot be combined with --acp" in out.stderr
    assert subprocess.run(["git", "-C", str(repo), "worktree", "list"], capture_output=True,
                          text=True).stdout.count("\n") == 1
