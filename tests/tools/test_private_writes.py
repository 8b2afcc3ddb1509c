"""What a sandboxed command writes into the sandbox's private /tmp, /var/tmp or hidden home is gone when it ends:
it is said after the command, by name, and when the command named what it wrote there (it was run to make it),
running it outside is offered; /tmp stays writable (tools keep caches there). Run for real in bubblewrap."""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.processes.sandbox import Sandbox, build_sandbox, sandbox_request
from gemini_tui.core.tooling.tool import CallContext
from gemini_tui.tools.shell import ShellTool
from gemini_tui.tools.workspace import Workspace

BOX_WORKS = build_sandbox(sandbox_request(True, {}, None), [Path("/")]).problem is None
OFFER = "outside_sandbox: true"
TOLD = "which is discarded when the command ends"


@dataclass(frozen=True)
class Write:
    command: str  # {U}: a name of this run (no two tests share a path in /tmp); {P}: the root's parent
    files: tuple[str, ...]  # what is said (as the command sees it; ~ for the home, {P} for the root's parent)
    offered: bool  # the command named what it wrote there: running it outside is offered


WRITES = [
    Write("touch /tmp/{U}.txt", ("/tmp/{U}.txt",), True),
    Write("echo report > /tmp/{U}-report.txt", ("/tmp/{U}-report.txt",), True),
    Write("date >>/var/tmp/{U}.log", ("/var/tmp/{U}.log",), True),
    Write("sort -o /tmp/{U}.sorted README", ("/tmp/{U}.sorted",), True),
    Write("tar -cf '/tmp/{U}.tar' README", ("/tmp/{U}.tar",), True),
    Write("cp README /tmp/{U}-copy && ls /tmp", ("/tmp/{U}-copy",), True),
    Write("mkdir -p /tmp/{U}/out && cd /tmp/{U} && touch out/a out/b", ("/tmp/{U}/out/a", "/tmp/{U}/out/b"), True),
    Write("cd .. && touch {U}", ("{P}/{U}",), True),
    Write("git init -q ../{U}", ("{P}/{U}/.git/HEAD",), True),
    Write("echo x > ~/{U}.txt", ("~/{U}.txt",), True),
    Write("mkdir -p $HOME/notes && date > $HOME/notes/{U}", ("~/notes/{U}",), False),  # $HOME: not read
    Write("ln -s /etc/hostname /tmp/{U}-link", ("/tmp/{U}-link",), True),
    # made on the way by a tool: said, not offered
    Write("f=$(mktemp) && echo x > $f && echo made", ("/tmp/tmp.",), False),
    Write("python3 -c 'import tempfile; tempfile.NamedTemporaryFile(delete=False)'", ("/tmp/tmp",), False),
    Write("git config --global user.name x", ("~/.gitconfig",), False),
]
NOTHING = ["ls /tmp ~", "echo x > /tmp/{U} && rm /tmp/{U}", "mkdir -p /tmp/{U}/empty", "cat README > /dev/null",
           "echo x > made-in-root.txt"]


def run(tool: ShellTool, command: str) -> tuple[str, str]:
    params = tool.validate_params({"command": command})
    assert not hasattr(params, "message"), params
    result = asyncio.run(tool.execute(params, AbortSignal(), CallContext()))  # type: ignore[arg-type]
    assert isinstance(result.llm_content, str)
    display = result.return_display
    return result.llm_content, getattr(display, "output", "")


def place(tmp_path: Path, boxed: bool = True) -> tuple[ShellTool, Path, Path, Path]:
    root, home, kept = tmp_path / "root", tmp_path / "home", tmp_path / "kept"
    root.mkdir()
    home.mkdir()
    kept.mkdir()
    (root / "README").write_text("hello\n")
    env = {**os.environ, "HOME": str(home)}
    sandbox = build_sandbox(sandbox_request(True, env, None), [root], env) if boxed else Sandbox()
    sandbox.private_parent = kept
    return ShellTool(Workspace(root), sandbox=sandbox, env=env), root, home, kept


@pytest.mark.skipif(not BOX_WORKS, reason="bubblewrap cannot start here")
@pytest.mark.parametrize("write", WRITES, ids=[w.command for w in WRITES])
def test_a_write_into_a_private_place_is_said_and_offered_when_it_was_the_point(tmp_path: Path, write: Write) -> None:
    tool, _, home, kept = place(tmp_path)
    unique = f"gt-{uuid.uuid4().hex[:10]}"
    command = write.command.replace("{U}", unique)
    llm, shown = run(tool, command)
    for text in (llm, shown):  # the model and the user are told the same
        assert TOLD in text, text
        for file in write.files:
            name = file.replace("{U}", unique).replace("{P}", str(tmp_path)).replace("~", str(home))
            assert name in text, (name, text)
        assert (OFFER in text) is write.offered, text
    for file in write.files:  # nothing landed on this machine, and the private folders are gone
        name = file.replace("{U}", unique).replace("{P}", str(tmp_path)).replace("~", str(home))
        if unique in name:
            assert not os.path.lexists(name)
    assert list(kept.iterdir()) == []
    assert not (tmp_path / unique).exists() and list(home.iterdir()) == []


@pytest.mark.skipif(not BOX_WORKS, reason="bubblewrap cannot start here")
@pytest.mark.parametrize("command", NOTHING)
def test_a_command_that_leaves_nothing_there_says_nothing(tmp_path: Path, command: str) -> None:
    tool, _, _, kept = place(tmp_path)
    llm, _ = run(tool, command.replace("{U}", f"gt-{uuid.uuid4().hex[:10]}"))
    assert TOLD not in llm and OFFER not in llm, llm
    assert list(kept.iterdir()) == []


@pytest.mark.skipif(not BOX_WORKS, reason="bubblewrap cannot start here")
def test_tmp_stays_writable_and_private_for_the_length_of_a_command(tmp_path: Path) -> None:
    tool, _, _, _ = place(tmp_path)
    llm, _ = run(tool, "echo cache > /tmp/c && cat /tmp/c")
    assert "Exit Code: 0" in llm and "cache" in llm
    llm, _ = run(tool, "test -e /tmp/c && echo still there || echo gone")  # the next command's /tmp is new
    assert "Output: gone" in llm, llm


def test_outside_the_sandbox_a_write_there_is_real_and_not_said(tmp_path: Path) -> None:
    tool, _, _, _ = place(tmp_path, boxed=False)
    llm, _ = run(tool, "cd .. && touch made-outside")
    assert (tmp_path / "made-outside").exists()
    assert TOLD not in llm and OFFER not in llm
