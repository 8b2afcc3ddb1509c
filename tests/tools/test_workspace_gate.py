"""The workspace gate: resolution inside the root, ignore rules at every level, sniffing, atomic writes."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind
from gemini_tui.tools.workspace import FileType, Workspace, WorkspaceError, sniff_bytes
from gemini_tui.tools.workspace.text_file import decode_text, encode_text, read_text, write_text


def test_resolve_inside_and_outside(workspace: Workspace, root: Path, tmp_path: Path) -> None:
    (root / "a").mkdir()
    assert workspace.resolve("a") == root / "a"
    assert workspace.resolve(str(root / "a" / "new.txt")) == root / "a" / "new.txt"
    for bad in ("..", "../x", "/etc/passwd", "a/../../x", "~", "~/x"):
        with pytest.raises(WorkspaceError) as err:
            workspace.resolve(bad)
        assert err.value.kind is ToolErrorKind.path_outside_root
    with pytest.raises(WorkspaceError):
        workspace.resolve("a\x00b")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    for bad in ("link", "link/file", "dangling"):
        with pytest.raises(WorkspaceError):
            workspace.resolve(bad)


def test_ignore_rules_at_every_level(workspace: Workspace, root: Path) -> None:
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "sub").mkdir()
    (root / "sub" / ".gitignore").write_text("!keep.log\nlocal.txt\n")
    (root / ".geminiignore").write_text("secret.md\n")
    for name in ("a.log", "sub/keep.log", "sub/local.txt", "local.txt", "secret.md", "build/x.py",
                 "node_modules/m.js", "src/ok.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    files = {found.rel for found in workspace.scan(root)}
    assert files == {".gitignore", ".geminiignore", "sub/.gitignore", "sub/keep.log", "local.txt", "src/ok.py"}
    assert workspace.is_ignored(root / "a.log")
    assert not workspace.is_ignored(root / "sub" / "keep.log")
    assert workspace.is_ignored(root / "build" / "x.py")
    assert not workspace.is_ignored(root / "a.log", respect_git_ignore=False)
    assert workspace.is_ignored(root / "secret.md", respect_git_ignore=False)
    all_files = {found.rel for found in workspace.scan(root, respect_git_ignore=False)}
    assert "a.log" in all_files and "node_modules/m.js" not in all_files


def test_sniffing() -> None:
    assert sniff_bytes("a.png", b"\x89PNG") is FileType.image
    assert sniff_bytes("a.pdf", b"%PDF-1.4") is FileType.pdf
    assert sniff_bytes("a.bin", b"abc\x00def") is FileType.binary
    assert sniff_bytes("a.txt", "héllo".encode()) is FileType.text
    assert sniff_bytes("a.txt", b"\xff\xfeh\x00i\x00") is FileType.text


@pytest.mark.parametrize(
    "raw",
    [b"a\r\nb\r\n", b"a\nb\n", b"\xef\xbb\xbfa\r\nb", "caf\u00e9\n".encode("cp1252"), "x\ny".encode("utf-16"),
     b"mixed\r\nends\n"],
)
def test_text_round_trip_keeps_bytes(raw: bytes) -> None:
    assert encode_text(decode_text(raw).content, decode_text(raw)) == raw


def test_write_keeps_mode_and_follows_symlink(root: Path) -> None:
    target = root / "real.sh"
    target.write_bytes(b"echo 1\r\n")
    target.chmod(0o755)
    (root / "link.sh").symlink_to(target)
    like = read_text(root / "link.sh")
    write_text(root / "link.sh", like.content + "echo 2\n", like, root=root)
    assert (root / "link.sh").is_symlink()
    assert target.read_bytes() == b"echo 1\r\necho 2\r\n"
    assert os.stat(target).st_mode & 0o777 == 0o755
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


_PATTERNS = ["*.log", "build/", "/top", "a/b", "**/x", "foo", "!keep.log", "doc/**/*.md", "a/**", "*.py[co]",
             "!foo", "x?z", "*~", ".env", "dist", "!dist/", "b/*.txt", "**/c/**", "c", "*.tmp", "!important.tmp",
             "lib*", "ba[rz]/", "**/a/*.log", "foo/bar/", "a/*/c", "**/b/foo", "\\#x", "*", "!*/", "*/", "**/",
             "!*.md", "/*", "!/doc", "/**/", "doc/**/"]
_NAMES = ["a", "b", "c", "x", "foo", "keep.log", "y.log", "top", "doc", "z.md", "build", "dist", "q.pyc", "xyz",
          "t~", ".env", "lib2", "bar", "baz", "important.tmp", "w.tmp", "u.txt", "#x"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git as the reference")
@pytest.mark.parametrize("seed", range(12))
def test_ignore_rules_agree_with_git(seed: int, tmp_path: Path) -> None:
    """Random rule sets and trees: scan() yields exactly the files `git status` shows as untracked."""
    rng = random.Random(seed)
    for trial in range(8):
        repo = tmp_path / f"repo{trial}"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        lines = rng.sample(_PATTERNS, rng.randint(1, 9))
        (repo / ".gitignore").write_text("\n".join(lines) + "\n")
        for _ in range(30):
            path = repo.joinpath(*(rng.choice(_NAMES) for _ in range(rng.randint(1, 4))))
            try:
                if rng.random() < 0.3:
                    path.mkdir(parents=True, exist_ok=True)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.touch()
            except OSError:
                continue
        out = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "-z", "--untracked-files=all"],
                             capture_output=True, text=True, check=True).stdout
        shown_by_git = {entry[3:] for entry in out.split("\0") if entry.startswith("?? ")}
        workspace = Workspace(repo)
        assert {found.rel for found in workspace.scan(repo)} == shown_by_git, lines
        for path in repo.rglob("*"):
            rel = path.relative_to(repo).as_posix()
            if path.is_file() and not rel.startswith(".git/"):
                assert workspace.is_ignored(path) == (rel not in shown_by_git), (lines, rel)


def test_scan_symlinks_filter_and_abort(workspace: Workspace, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.txt").write_text("x")
    for name in ("a/one.py", "a/two.txt", "b/three.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    (root / "inner_link.py").symlink_to(root / "a" / "one.py")
    (root / "outer_link.txt").symlink_to(outside / "o.txt")
    (root / "dir_link").symlink_to(root / "a")
    os.mkfifo(root / "pipe")
    # a directory's files come before its subdirectories; links out of the root, dir links and pipes never
    assert [f.rel for f in workspace.scan(root)] == ["inner_link.py", "a/one.py", "a/two.txt", "b/three.py"]
    only_py = [f.rel for f in workspace.scan(root, wanted=lambda name, rel: name.endswith(".py"))]
    assert only_py == ["inner_link.py", "a/one.py", "b/three.py"]
    signal = AbortSignal()
    seen = []
    for found in workspace.scan(root / "a", abort_signal=signal):
        seen.append(found.rel)
        signal.abort()
    assert seen == ["one.py", "two.txt"]  # the directory being read is finished, no further one is opened
    (root / "a" / "sub").mkdir()
    (root / "a" / "sub" / "deep.py").write_text("x")
    seen = [found.rel for found in workspace.scan(root / "a", abort_signal=signal)]
    assert seen == []


def test_rules_follow_edits_of_ignore_files(workspace: Workspace, root: Path) -> None:
    (root / "a.log").write_text("x")
    (root / "b.txt").write_text("x")
    assert {f.rel for f in workspace.scan(root)} == {"a.log", "b.txt"}
    (root / ".gitignore").write_text("*.log\n")
    assert {f.rel for f in workspace.scan(root)} == {".gitignore", "b.txt"}
    (root / ".gitignore").write_text("*.txt\n# now the text files\n")
    assert {f.rel for f in workspace.scan(root)} == {".gitignore", "a.log"}
    (root / ".gitignore").unlink()
    assert {f.rel for f in workspace.scan(root)} == {"a.log", "b.txt"}


def test_nested_geminiignore_and_entry_filter(workspace: Workspace, root: Path) -> None:
    (root / "pkg" / "build").mkdir(parents=True)
    (root / "pkg" / ".geminiignore").write_text("secret.*\n/build/\n")
    for name in ("pkg/secret.key", "pkg/ok.py", "pkg/build/x.py", "secret.key"):
        (root / name).write_text("x")
    assert workspace.is_ignored(root / "pkg" / "secret.key", respect_git_ignore=False)
    assert not workspace.is_ignored(root / "secret.key")
    assert workspace.is_ignored(root / "pkg" / "build" / "x.py")
    ignored = workspace.entry_filter(root / "pkg")
    assert [ignored("secret.key", False), ignored("ok.py", False), ignored("build", True)] == [True, False, True]
    assert ignored(".git", True) and not workspace.entry_filter(root / "pkg", default_excludes=False)(".git", True)
