"""Generated ways a file can be read-only, and what the writing tools make of each (shared by the tests, and run
as a script by another user or under a read-only mount: `python -m tests.tools.read_only_cases BASE`).

Each case is a folder under BASE holding `target` (or not: a new file) set up by the test as root. `check` asks
both writing tools about it as whoever runs it, and compares with the truth found by trying: can this user
append to the file (or make a file in its folder)? A tool must refuse before review exactly when the attempt
fails, or when the file's bits let nobody write it (the user locked it: refused even for root)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.write_file import WriteFileTool

NOBODY = 65534
CONTENT = "value = 1\n"


@dataclass(frozen=True)
class Case:
    name: str
    file_mode: int | None  # None: no file yet (a new file in the folder)
    folder_mode: int
    owner: int = 0  # of the file


def cases() -> list[Case]:
    """File modes x owners in a writable folder, existing and new files in folders of several modes."""
    generated = [Case(f"file-{mode:o}-owner-{owner}", mode, 0o777, owner)
                 for mode in (0o444, 0o400, 0o644, 0o600, 0o664, 0o666, 0o646, 0o755, 0o555)
                 for owner in (0, NOBODY)]
    generated += [Case(f"new-in-{mode:o}", None, mode) for mode in (0o555, 0o755, 0o775, 0o777, 0o1777)]
    generated += [Case(f"file-666-in-{mode:o}", 0o666, mode) for mode in (0o555, 0o755, 0o777)]
    return generated


def set_up(base: Path, case: Case) -> Path:
    """The case's folder under `base` (made by root; `base` itself must let every user through)."""
    folder = base / case.name
    folder.mkdir()
    target = folder / "target.py"
    if case.file_mode is not None:
        target.write_text(CONTENT)
        os.chown(target, case.owner, case.owner)
        target.chmod(case.file_mode)
    folder.chmod(case.folder_mode)
    return target


def writable_by_trying(target: Path) -> bool:
    """What this user can really do: append to the file, or make a file in its folder; nothing is left changed."""
    if target.exists():
        try:
            with open(target, "a"):
                pass
        except OSError:
            return False
        probe = target.parent / ".probe"
    else:
        probe = target
    try:
        probe.write_text("")
        probe.unlink()
    except OSError:
        return False
    return True


async def check_one(target: Path) -> dict[str, object]:
    workspace = Workspace(target.parent)
    exists = target.exists()
    locked = exists and not os.stat(target).st_mode & 0o222
    replace = ReplaceTool(workspace)
    params = replace.validate_params({"file_path": str(target), "old_string": "value = 1" if exists else "",
                                      "new_string": "value = 2" if exists else CONTENT})
    write = WriteFileTool(workspace)
    write_params = write.validate_params({"file_path": str(target), "content": "value = 3\n"})
    answers = {}
    for name, tool, tool_params in (("replace", replace, params), ("write_file", write, write_params)):
        assert isinstance(tool_params, tool.Params)
        review = await tool.should_confirm_execute(tool_params, AbortSignal())  # type: ignore[arg-type]
        if review is None:  # refused before asking: the run says why
            result = await tool.execute(tool_params, AbortSignal())  # type: ignore[arg-type]
            assert result.error is not None, result
            answers[name] = {"refused": True, "kind": result.error.kind.value, "message": result.error.message}
        else:
            assert isinstance(review, EditConfirmation)
            answers[name] = {"refused": False}
    return {"truth": writable_by_trying(target), "locked": locked, "existed": exists, "euid": os.geteuid(),
            **answers}


def unchanged(base: Path, results: dict[str, dict[str, object]]) -> list[str]:
    """The cases whose file is not as it was set up (read by root: the user may not read it)."""
    return [name for name, result in results.items()
            if (base / name / "target.py").exists() != result["existed"]
            or (result["existed"] and (base / name / "target.py").read_text() != CONTENT)]


def check(base: Path) -> dict[str, dict[str, object]]:
    """Every case folder under `base`, as whoever runs this."""
    async def run() -> dict[str, dict[str, object]]:
        return {folder.name: await check_one(folder / "target.py") for folder in sorted(base.iterdir())
                if stat.S_ISDIR(folder.lstat().st_mode)}
    return asyncio.run(run())


if __name__ == "__main__":
    print(json.dumps(check(Path(sys.argv[1]))))
