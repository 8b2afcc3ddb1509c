"""The rewind part, through the real Session, tools and git: restore, undo and rewind bring files back byte for byte."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
from pathlib import Path

import pytest

from gemini_tui.cli.assemble import build_session
from gemini_tui.core.persistence.shadow_repo import CheckpointError
from tests.fakes.gemini_server import FakeGeminiServer, call, reply, text


def server_env(server: FakeGeminiServer) -> dict[str, str]:
    return {"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": server.base_url, "PATH": os.environ["PATH"]}


def state(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under root (but .git) with its bytes and permission bits."""
    found = {}
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts or path.is_dir():
            continue
        found[str(path.relative_to(root))] = (path.read_bytes(), stat.S_IMODE(path.lstat().st_mode))
    return found


def make_workspace(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_bytes(b"build/\n")
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\nworld\n")
    (root / "secret.txt").write_bytes(b"keep me private\n")
    (root / "secret.txt").chmod(0o600)
    (root / "run.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "doomed.txt").write_bytes(b"about to be deleted\n")
    (root / "sub").mkdir()
    (root / "sub" / "deep.py").write_bytes(b"x = 1\n")
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_bytes(b"ignored build output\n")


def session_for(server: FakeGeminiServer, root: Path, home: Path):
    return build_session(root, env=server_env(server), home=home, approval_mode="yolo", interactive=False)


async def agent_changes_everything(server: FakeGeminiServer, session, root: Path) -> None:
    """One prompt: an edit, a new file, and shell commands that delete, rewrite, chmod and add files."""
    server.script(
        reply(call("replace", file_path=str(root / "crlf.txt"), old_string="two", new_string="TWO")),
        reply(call("write_file", file_path=str(root / "new.txt"), content="brand new\n")),
        reply(call("run_shell_command", command="rm doomed.txt && printf 'shell wrote' > bom.txt && "
                                                "chmod 644 secret.txt && chmod -x run.sh && echo made > sub/made.txt")),
        reply(text("Done.")),
    )
    await session.send("change things")


async def test_restore_brings_every_file_back_byte_for_byte(gemini_server, root: Path, home: Path) -> None:
    make_workspace(root)
    before = state(root)
    session = session_for(gemini_server, root, home)
    await agent_changes_everything(gemini_server, session, root)
    after = state(root)
    assert after != before and "new.txt" in after and "doomed.txt" not in after
    checkpoints = session.rewind.list()
    assert [c.tool for c in checkpoints] == ["replace", "write_file", "run_shell_command"]
    # the user's own .git is untouched by the shadow repository
    assert subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout.count(
        "??") >= 1
    assert not (root / ".git" / "refs" / "heads" / "checkpoints").exists()

    record, plan = await session.rewind.plan_restore("1")
    assert {c.path: c.status for c in plan.changes} == {
        "crlf.txt": "modified", "new.txt": "added", "doomed.txt": "deleted", "bom.txt": "modified",
        "secret.txt": "modified", "run.sh": "modified", "sub/made.txt": "added"}
    assert plan.changed_by_hand == ()
    outcome = await session.rewind.restore(record, plan)
    assert outcome.failed == ()
    assert state(root) == before  # bytes and modes, ignored files untouched
    assert len(session.history) == 0  # the conversation went back to before the prompt
    assert session.rewind.list() == []


async def test_undo_reverts_only_the_last_change(gemini_server, root: Path, home: Path) -> None:
    make_workspace(root)
    session = session_for(gemini_server, root, home)
    await agent_changes_everything(gemini_server, session, root)
    after_write = state(root)
    record, plan = await session.rewind.plan_undo()
    assert record.tool == "run_shell_command"
    await session.rewind.undo(record, plan)
    now = state(root)
    assert now["crlf.txt"][0] == b"one\r\nTWO\r\n" and now["new.txt"][0] == b"brand new\n"  # earlier calls stay
    assert now["doomed.txt"] == (b"about to be deleted\n", 0o644) and "sub/made.txt" not in now
    assert now["secret.txt"] == (b"keep me private\n", 0o600) and now["run.sh"][1] == 0o755
    assert now["bom.txt"][0] == b"\xef\xbb\xbfhello\nworld\n"
    assert now != after_write
    record, plan = await session.rewind.plan_undo()  # the next /undo goes one further back
    assert record.tool == "write_file"
    await session.rewind.undo(record, plan)
    assert not (root / "new.txt").exists()
    # the model hears of it with the next prompt
    gemini_server.script(reply(text("Noted.")))
    await session.send("ok")
    sent = gemini_server.requests[-1].contents[-1]["parts"]
    assert "undid the last change" in sent[0]["text"] and sent[-1]["text"] == "ok"


async def test_a_file_changed_by_hand_is_shown_before_restoring(gemini_server, root: Path, home: Path) -> None:
    make_workspace(root)
    session = session_for(gemini_server, root, home)
    await agent_changes_everything(gemini_server, session, root)
    (root / "crlf.txt").write_bytes(b"one\r\nmy own fix\r\n")
    _record, plan = await session.rewind.plan_restore("1")
    assert plan.changed_by_hand == ("crlf.txt",)
    assert "+my own fix" in plan.hand_diff and "-TWO" in plan.hand_diff


async def test_rewind_files_only_and_conversation_only(gemini_server, root: Path, home: Path) -> None:
    make_workspace(root)
    before = state(root)
    session = session_for(gemini_server, root, home)
    gemini_server.script(reply(text("Hello.")))
    await session.send("first, just talk")
    await agent_changes_everything(gemini_server, session, root)
    changed = state(root)
    found = await session.rewind.plan_rewind_files(1)
    assert found is not None
    record, plan = found
    await session.rewind.restore(record, plan, conversation=False)
    assert state(root) == before and len(session.history) > 2  # files only
    text_back = session.rewind.rewind_conversation(1)  # conversation only
    assert text_back == "change things" and len(session.history) == 2
    assert await session.rewind.plan_rewind_files(0) is None  # the first prompt changed no file
    assert state(root) == before != changed


async def test_restore_while_a_turn_runs_is_refused(gemini_server, root: Path, home: Path) -> None:
    make_workspace(root)
    session = session_for(gemini_server, root, home)
    await agent_changes_everything(gemini_server, session, root)
    gemini_server.script(reply(text("slow"), delay_s=0.5))
    turn = asyncio.ensure_future(session.send("slow one"))
    await asyncio.sleep(0.2)
    with pytest.raises(RuntimeError, match="A turn is running"):
        await session.rewind.plan_restore("1")
    await turn


async def test_a_damaged_shadow_repository_is_set_aside(gemini_server, root: Path, home: Path) -> None:
    make_workspace(root)
    session = session_for(gemini_server, root, home)
    await agent_changes_everything(gemini_server, session, root)
    git_dir = session.state.checkpointer.repo.git_dir
    (git_dir / "HEAD").write_text("garbage")
    with pytest.raises(CheckpointError, match="no longer in the shadow repository"):
        await session.rewind.plan_restore("1")
    # the next change re-creates it (the damaged one is kept aside, never deleted) and restores work again
    gemini_server.script(reply(call("write_file", file_path=str(root / "again.txt"), content="x")), reply(text("ok")))
    await session.send("again")
    assert list(git_dir.parent.glob(f"{git_dir.name}.damaged-*"))
    record, plan = await session.rewind.plan_undo()
    await session.rewind.undo(record, plan)
    assert not (root / "again.txt").exists()


async def test_no_git_on_path_is_reported_and_calls_still_run(gemini_server, root: Path, home: Path,
                                                             monkeypatch) -> None:
    (root / "a.txt").write_text("a")
    monkeypatch.setenv("PATH", str(root / "nothing-here"))
    session = session_for(gemini_server, root, home)
    assert any("git was not found" in n.message for n in session.notices)
    gemini_server.script(reply(call("write_file", file_path=str(root / "a.txt"), content="b")), reply(text("ok")))
    await session.send("write")
    assert (root / "a.txt").read_text() == "b"
    with pytest.raises(LookupError, match="git was not found"):
        await session.rewind.plan_undo()


async def test_checkpointing_can_be_turned_off(gemini_server, root: Path, home: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text('{"general": {"checkpointing": {"enabled": false}}}')
    session = session_for(gemini_server, root, home)
    assert session.state.checkpointer is None and not any("ignored" in n.message for n in session.notices)
    with pytest.raises(LookupError, match=r"general\.checkpointing\.enabled"):
        await session.rewind.plan_undo()


async def test_a_hand_change_is_still_seen_after_a_resume(gemini_server, root: Path, home: Path) -> None:
    make_workspace(root)
    session = session_for(gemini_server, root, home)
    await agent_changes_everything(gemini_server, session, root)
    (root / "new.txt").write_bytes(b"edited by hand\n")
    resumed = session_for(gemini_server, root, home)
    resumed.saved.resume("latest")
    assert len(resumed.rewind.list()) == 3
    _record, plan = await resumed.rewind.plan_restore("1")
    assert plan.changed_by_hand == ("new.txt",) and "+edited by hand" in plan.hand_diff
