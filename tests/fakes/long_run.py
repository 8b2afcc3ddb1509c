"""A scripted run of many model steps over every kind of built-in tool (reads, searches, edits, commands, failures),
for the fake Gemini server: the trajectory tests and the fleet benchmark drive headless runs with it. Standard
library only (tests/harbor imports it from Harbor's own environment)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.gemini_server import Reply, call, reply, text, thought

# One row per step: (what the model says first, the calls it makes); `{n}` is the step number
STEPS: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    ("Looking around.", [("list_directory", {"dir_path": "."})]),
    ("", [("read_file", {"file_path": "a.txt"})]),
    ("Searching.", [("glob", {"pattern": "**/*.txt"}), ("search_file_content", {"pattern": "line [0-9]+"})]),
    ("", [("write_file", {"file_path": "notes/step{n}.txt", "content": "written at step {n}\n"})]),
    ("Editing.", [("replace", {"file_path": "a.txt", "old_string": "line 1\n", "new_string": "line 1 (step {n})\n"})]),
    ("", [("run_shell_command", {"command": "echo step-{n}; ls notes | wc -l"})]),
    ("Reading more.", [("read_many_files", {"paths": ["a.txt", "b.txt"]})]),
    ("", [("read_file", {"file_path": "missing-{n}.txt"})]),
]
ROWS = len(STEPS)


def make_workspace(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 6)))
    (root / "b.txt").write_text("beta\n")
    (root / "notes").mkdir(exist_ok=True)


def _args(args: dict[str, Any], n: int, root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str):
            value = value.format(n=n)
            if key in ("file_path", "dir_path"):
                value = str(root / value)
        out[key] = value
    return out


def script(root: Path, steps: int = 20, final: str = "All done.") -> list[Reply]:
    """`steps` model responses with calls (the table's rows in turn, the edits made unique per step), then a last
    answer. Every other response thinks first; each carries its own token counts."""
    replies: list[Reply] = []
    for n in range(1, steps + 1):
        said, calls = STEPS[(n - 1) % ROWS]
        if calls[0][0] == "replace" and n > ROWS:  # the line was already changed: change the new text again
            calls = [("replace", {"file_path": "a.txt", "old_string": f"(step {n - ROWS})",
                                  "new_string": "(step {n})"})]
        parts = [thought(f"Step {n}: planning.")] if n % 2 else []
        if said:
            parts.append(text(said))
        parts += [call(name, _args(args, n, root)) for name, args in calls]
        replies.append(reply(*parts, usage={"promptTokenCount": 1000 + 10 * n, "candidatesTokenCount": 5 + n,
                                            "cachedContentTokenCount": 100, "thoughtsTokenCount": 2 if n % 2 else 0,
                                            "totalTokenCount": 1005 + 11 * n}))
    replies.append(reply(text(final), usage={"promptTokenCount": 2000, "candidatesTokenCount": 3,
                                             "totalTokenCount": 2003}))
    return replies
