"""Path escapes across all seven file-system tools: nothing outside the root is read, listed or written.

Every attempt runs the whole call as if the user had approved it (validation, confirmation, execution) and
then checks that no sentinel from outside the root leaked into what the model or the user sees, and that the
tree outside the root (including a fake home directory) is byte-for-byte unchanged, with nothing new in it."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolParams
from gemini_tui.tools.glob import GlobTool
from gemini_tui.tools.list_directory import ListDirectoryTool
from gemini_tui.tools.read_file import ReadFileTool
from gemini_tui.tools.read_many_files import ReadManyFilesTool
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.search_file_content.tool import SearchFileContentTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.write_file import WriteFileTool

SECRET = "SENTINEL-SECRET-31337"
HIDDEN_NAME = "only_outside_name_7f3a.txt"  # a file name that exists only outside the root
PNG_SECRET = b"\x89PNG\r\n\x1a\n" + SECRET.encode()
LEAKS = (SECRET, HIDDEN_NAME, base64.b64encode(PNG_SECRET).decode()[12:40], "sibling_only_9c1e")


@dataclass
class Layout:
    base: Path
    root: Path
    outside: Path
    sibling: Path
    home: Path

    def fill(self, text: str) -> str:
        return text.format(root=self.root, outside=self.outside, sibling=self.sibling, base=self.base)


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    base = tmp_path.resolve()
    outside, root, sibling, home = base / "outside", base / "root", base / "root_sibling", base / "home"
    for directory in (outside / "sub", root / "sub" / "deeper", sibling, home):
        directory.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text(f"{SECRET}\n")
    (outside / HIDDEN_NAME).write_text(f"{SECRET} again\n")
    (outside / "sub" / "deep.txt").write_text(f"{SECRET} deep\n")
    (outside / "secret.png").write_bytes(PNG_SECRET)
    (sibling / "sibling_only_9c1e.txt").write_text(f"{SECRET} sibling\n")
    (sibling / "sib.txt").write_text(f"{SECRET} sibling\n")
    (home / "notes.txt").write_text(f"{SECRET} home\n")
    (root / "inside.txt").write_text("harmless\n")
    (root / "link_dir").symlink_to(outside)
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "link_png.png").symlink_to(outside / "secret.png")
    (root / "rel_link").symlink_to("../outside/secret.txt")
    (root / "dangling").symlink_to(outside / "nowhere.txt")
    (root / "dangling_dir").symlink_to(outside / "newdir")
    (root / "sub" / "link_up").symlink_to("../..")
    (root / "sub" / "deeper" / "link_base").symlink_to(base)
    monkeypatch.setenv("HOME", str(home))
    return Layout(base, root, outside, sibling, home)


# Paths a model might use to get out: parent segments, absolute paths elsewhere, a sibling sharing the root's
# name as a prefix, symlinked directories and files pointing out, dangling links, `~`, NUL bytes. All of them
# land inside the temporary base (HOME points there too), so even a broken gate could not harm the machine.
ESCAPES = [
    "..", "../outside", "../outside/secret.txt", "sub/../../outside/secret.txt", "./../outside/secret.txt",
    "sub/deeper/../../../outside", "{outside}", "{outside}/secret.txt", "{outside}/secret.png", "{sibling}",
    "{sibling}/sib.txt", "{root}/../outside/secret.txt", "{root}/../root_sibling", "{base}", "//{base}/outside",
    "~", "~/notes.txt", "link_dir", "link_dir/secret.txt", "link_dir/sub", "link_file", "link_png.png",
    "rel_link", "dangling", "dangling_dir", "dangling_dir/new.txt", "sub/link_up", "sub/link_up/outside/secret.txt",
    "sub/deeper/link_base/outside", "inside.txt\x00../outside/secret.txt", "\x00", "link_dir/../outside/secret.txt",
]
# Real system paths, tried only with tools that cannot write.
SYSTEM_PATHS = ["/etc/passwd", "/", "//etc", "/proc/self/root/etc/passwd", "~root"]
GLOB_ESCAPES = ["../outside/*", "../**/*.txt", "{outside}/*", "{base}/**", "link_dir/*", "**/*", "**/secret*",
                "sub/link_up/**", "*.png", "~/*"]

ToolFactory = Callable[[Workspace], BaseTool[Any]]


def attempts() -> list[tuple[str, ToolFactory, dict[str, Any]]]:
    cases: list[tuple[str, ToolFactory, dict[str, Any]]] = []
    for path in ESCAPES:
        cases += [
            ("list_directory", ListDirectoryTool, {"path": path}),
            ("read_file", ReadFileTool, {"path": path}),
            ("write_file", WriteFileTool, {"file_path": path, "content": "PWNED\n"}),
            ("write_file", WriteFileTool, {"file_path": f"{path}/PWNED.txt", "content": "PWNED\n"}),
            ("glob", GlobTool, {"pattern": "**/*", "path": path}),
            ("read_many_files", ReadManyFilesTool, {"paths": [path]}),
            ("search_rg", lambda ws: SearchFileContentTool(ws, engine="rg"), {"pattern": "SENTINEL", "path": path}),
            ("search_py", lambda ws: SearchFileContentTool(ws, engine="python"),
             {"pattern": "SENTINEL", "path": path}),
            ("replace", ReplaceTool, {"file_path": path, "old_string": SECRET, "new_string": "PWNED"}),
            ("replace", ReplaceTool, {"file_path": f"{path}/PWNED.txt", "old_string": "", "new_string": "PWNED"}),
        ]
    for path in SYSTEM_PATHS:
        cases += [
            ("list_directory", ListDirectoryTool, {"path": path}),
            ("read_file", ReadFileTool, {"path": path}),
            ("read_many_files", ReadManyFilesTool, {"paths": [path]}),
        ]
    for pattern in GLOB_ESCAPES:
        cases += [
            ("glob", GlobTool, {"pattern": pattern}),
            ("glob", GlobTool, {"pattern": pattern, "respect_git_ignore": False}),
            ("read_many_files", ReadManyFilesTool, {"paths": [pattern], "useDefaultExcludes": False}),
            ("read_many_files", ReadManyFilesTool, {"paths": ["inside.txt"], "include": [pattern]}),
            ("search_rg", lambda ws: SearchFileContentTool(ws, engine="rg"), {"pattern": "SENTINEL",
                                                                             "include": pattern}),
            ("search_py", lambda ws: SearchFileContentTool(ws, engine="python"), {"pattern": "SENTINEL",
                                                                                 "include": pattern}),
        ]
    cases += [
        ("list_directory", ListDirectoryTool, {"path": ".", "respect_git_ignore": False}),
        ("list_directory", ListDirectoryTool, {"dir_path": "sub/deeper"}),
        ("read_file", ReadFileTool, {"absolute_path": "{outside}/secret.txt"}),
        ("read_file", ReadFileTool, {"path": "link_file", "offset": 0, "limit": 5}),
        ("search_rg", lambda ws: SearchFileContentTool(ws, engine="rg"), {"pattern": "SENTINEL"}),
        ("search_py", lambda ws: SearchFileContentTool(ws, engine="python"), {"pattern": "SENTINEL"}),
    ]
    return cases


ATTEMPTS = attempts()


def test_enough_attempts_across_all_seven_tools() -> None:
    assert len(ATTEMPTS) >= 100
    names = {name.removeprefix("search_").replace("rg", "search").replace("py", "search") for name, *_ in ATTEMPTS}
    assert names == {"list_directory", "read_file", "write_file", "glob", "read_many_files", "search", "replace"}


def snapshot(layout: Layout) -> dict[str, bytes | str]:
    """Everything under the temporary base except the root: file bytes, link targets, directories."""
    seen: dict[str, bytes | str] = {}
    for directory, dirs, files in os.walk(layout.base):
        if Path(directory) == layout.root:
            dirs[:] = []
            continue
        for name in dirs + files:
            path = Path(directory) / name
            key = str(path.relative_to(layout.base))
            if path.is_symlink():
                seen[key] = "link:" + os.readlink(path)
            elif path.is_dir():
                seen[key] = "dir"
            else:
                seen[key] = path.read_bytes()
    return seen


def visible_text(value: object) -> str:
    """All the text the model and the user get from a result, including inline data."""
    return repr(value)


def fill(layout: Layout, raw: Any) -> Any:
    if isinstance(raw, str):
        return layout.fill(raw)
    if isinstance(raw, list):
        return [fill(layout, item) for item in raw]
    if isinstance(raw, dict):
        return {key: fill(layout, value) for key, value in raw.items()}
    return raw


@pytest.mark.parametrize(("tool_name", "factory", "raw"), ATTEMPTS,
                         ids=[f"{i}-{name}" for i, (name, _, _) in enumerate(ATTEMPTS)])
async def test_escape_attempt(layout: Layout, tool_name: str, factory: ToolFactory, raw: dict[str, Any]) -> None:
    before = snapshot(layout)
    tool = factory(Workspace(layout.root))
    raw = fill(layout, raw)
    if tool.kind.value == "edit":  # a guard of the test itself: a write may only ever aim into the base
        target = str(raw["file_path"]).split("\x00")[0]
        aimed = os.path.abspath(os.path.join(layout.root, os.path.expanduser(target)))
        assert aimed.startswith(str(layout.base)), aimed
    params = tool.validate_params(raw)
    outputs: list[object] = [params]
    if isinstance(params, ToolParams):
        details = await tool.should_confirm_execute(params, AbortSignal())
        outputs.append(details)
        reviewed = details.file_diff.original_content if isinstance(details, EditConfirmation) else None
        result = await tool.execute(params, AbortSignal(), CallContext(reviewed_content=reviewed))
        outputs += [result.llm_content, result.return_display]
        outputs.append(tool.get_description(params))
    text = visible_text(outputs)
    for leak in LEAKS:
        assert leak not in text, f"{tool_name} leaked {leak!r} for {raw}"
    assert snapshot(layout) == before, f"{tool_name} changed something outside the root for {raw}"
