"""read_many_files (ReadManyFiles): paths and globs, include/exclude, default excludes, binaries, the size cap."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import FileList
from gemini_tui.core.ground.parts import InlineDataPart, TextPart
from gemini_tui.core.ground.tool_result import ToolErrorKind, ToolResult
from gemini_tui.tools import read_many_files
from gemini_tui.tools.read_many_files import ReadManyFilesTool
from gemini_tui.tools.workspace import Workspace


async def run(tool: ReadManyFilesTool, **raw: Any) -> ToolResult:
    params = tool.validate_params(raw)
    if not isinstance(params, tool.Params):
        return ToolResult.failure(params.kind, params.message)  # type: ignore[union-attr]
    return await tool.execute(params, AbortSignal())


def make(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


async def test_sections_for_paths_dirs_and_globs(workspace: Workspace, root: Path) -> None:
    make(root, {"README.md": "# hi\n", "src/a.py": "a = 1\n", "src/pkg/b.py": "b = 2\n", "src/c.txt": "c\n"})
    tool = ReadManyFilesTool(workspace)
    result = await run(tool, paths=["README.md", "src/**/*.py"])
    assert result.ok
    assert result.llm_content == (f"--- {root}/README.md ---\n# hi\n\n"
                                  f"--- {root}/src/a.py ---\na = 1\n\n"
                                  f"--- {root}/src/pkg/b.py ---\nb = 2\n\n--- End of content ---")
    assert result.return_display == FileList("Read 3 file(s)", ("README.md", "src/a.py", "src/pkg/b.py"))
    directory = await run(tool, paths=[str(root / "src")], exclude=["*.txt"])
    assert str(directory.llm_content).count("--- ") == 3 and "c.txt" not in str(directory.llm_content)
    shallow = await run(tool, paths=["src"], recursive=False)
    assert f"{root}/src/pkg/b.py" not in str(shallow.llm_content) and f"{root}/src/c.txt" in str(shallow.llm_content)
    included = await run(tool, paths=["README.md"], include=["*.txt"])
    assert isinstance(included.return_display, FileList)
    assert included.return_display.paths == ("README.md", "src/c.txt")


async def test_default_excludes_and_gitignore(workspace: Workspace, root: Path) -> None:
    make(root, {"app.py": "ok\n", "node_modules/m/i.py": "dep\n", "dist/out.py": "built\n", ".env": "KEY=1\n",
                "gen.py": "generated\n", "debug.log": "log\n"})
    (root / ".gitignore").write_text("gen.py\n")
    tool = ReadManyFilesTool(workspace)
    result = await run(tool, paths=["**/*"])
    assert isinstance(result.return_display, FileList)
    assert result.return_display.paths == (".gitignore", "app.py")
    everything = await run(tool, paths=["**/*"], useDefaultExcludes=False)
    assert isinstance(everything.return_display, FileList)
    assert set(everything.return_display.paths) == {".gitignore", "app.py", "node_modules/m/i.py", "dist/out.py",
                                                    ".env", "debug.log"}
    named = await run(tool, paths=["debug.log", "gen.py"])
    assert isinstance(named.return_display, FileList) and named.return_display.paths == ("debug.log", "gen.py")


async def test_binaries_skipped_images_only_when_named(workspace: Workspace, root: Path) -> None:
    png = b"\x89PNG\r\n\x1a\nrest"
    make(root, {"a.txt": "text\n", "logo.png": png, "blob.dat": b"\x00\x01\x02", "doc.pdf": b"%PDF-1.7\n"})
    tool = ReadManyFilesTool(workspace)
    broad = await run(tool, paths=["*"])
    assert broad.llm_content == f"--- {root}/a.txt ---\ntext\n\n--- End of content ---"
    assert isinstance(broad.return_display, FileList)
    assert set(broad.return_display.skipped) == {"blob.dat (binary file)", "doc.pdf (image or PDF not named "
                                                 "explicitly)", "logo.png (image or PDF not named explicitly)"}
    named = await run(tool, paths=["logo.png", "*.pdf", "a.txt"])
    assert named.llm_content == [
        TextPart(f"--- {root}/logo.png ---\n"), InlineDataPart("image/png", base64.b64encode(png).decode()),
        TextPart(f"--- {root}/a.txt ---\ntext\n\n--- {root}/doc.pdf ---\n"),
        InlineDataPart("application/pdf", base64.b64encode(b"%PDF-1.7\n").decode()),
        TextPart("--- End of content ---"),
    ]


async def test_total_size_cap(workspace: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_many_files, "MAX_TOTAL_CHARS", 250)
    make(root, {f"f{i}.txt": f"{i}" * 100 + "\n" for i in range(5)})
    result = await run(ReadManyFilesTool(workspace), paths=["*.txt"])
    text = str(result.llm_content)
    assert text.count("--- /") == 2
    assert "[read_many_files stopped at its limit of 250 characters; 3 more file(s) were not read: f2.txt, " \
           "f3.txt, f4.txt." in text
    assert isinstance(result.return_display, FileList) and len(result.return_display.skipped) == 3


async def test_long_file_keeps_read_file_notice(workspace: Workspace, root: Path) -> None:
    make(root, {"long.txt": "".join(f"{i}\n" for i in range(2100))})
    result = await run(ReadManyFilesTool(workspace), paths=["long.txt"])
    assert "[File content truncated: showing lines 1-2000 of 2100 total lines." in str(result.llm_content)


async def test_nothing_found_and_failures(workspace: Workspace, root: Path) -> None:
    tool = ReadManyFilesTool(workspace)
    result = await run(tool, paths=["missing.txt", "*.rs", "../up.txt", "/etc/*.conf"])
    assert result.ok
    assert str(result.llm_content).startswith("No files matching the criteria were found or all were skipped.")
    assert "missing.txt (not found)" in str(result.llm_content)
    assert "../up.txt (outside the root)" in str(result.llm_content)
    assert "/etc/*.conf (outside the root)" in str(result.llm_content)
    empty = await run(tool, paths=[])
    assert empty.error and empty.error.kind is ToolErrorKind.invalid_params
    blank = await run(tool, paths=["  "])
    assert blank.error and blank.error.kind is ToolErrorKind.invalid_params
    assert tool.get_description(tool.Params(paths=["src/*.py"], exclude=["x.py"])) == (
        "Read files matching: src/*.py (excluding: x.py)")


async def test_fifo_named_explicitly_is_skipped(workspace: Workspace, root: Path) -> None:
    os.mkfifo(root / "pipe")
    make(root, {"a.txt": "a\n"})
    result = await run(ReadManyFilesTool(workspace), paths=["pipe", "a.txt"])
    assert result.llm_content == f"--- {root}/a.txt ---\na\n\n--- End of content ---"
    assert isinstance(result.return_display, FileList)
    assert result.return_display.skipped == ("pipe (not a regular file)",)


async def test_a_file_whose_name_looks_like_a_glob_is_read_as_named(workspace: Workspace, root: Path) -> None:
    # `a[1].txt` as a glob means `a1.txt`: a name that exists is taken literally, as the user wrote it
    make(root, {"a[1].txt": "bracket\n", "a1.txt": "one\n", "notes/x*y.md": "star\n"})
    result = await run(ReadManyFilesTool(workspace), paths=["a[1].txt", str(root / "notes/x*y.md")])
    assert result.ok, result.llm_content
    text = str(result.llm_content)
    assert "bracket" in text and "star" in text
    assert "one" not in text
    globbed = await run(ReadManyFilesTool(workspace), paths=["a[0-9].txt"])
    assert "one" in str(globbed.llm_content) and "bracket" not in str(globbed.llm_content)


@pytest.mark.parametrize("raw", [{"paths": ["file1.txt", ""]}, {"paths": [""]}, {"paths": ["a.txt"], "include": [""]},
                                 {"paths": ["*.ts", 123]}, {"paths": ["a.txt"], "exclude": ["*.log", {}]}])
async def test_an_empty_or_non_string_path_is_refused(workspace: Workspace, root: Path, raw: dict) -> None:
    # Gemini CLI's read_many_files tests: an empty string among the paths (or a non-string) fails validation,
    # naming the field, before anything is read
    make(root, {"file1.txt": "one\n", "a.txt": "a\n"})
    params = ReadManyFilesTool(workspace).validate_params(raw)
    assert not isinstance(params, ReadManyFilesTool.Params)
    assert params.kind is ToolErrorKind.invalid_params
    field = next(name for name in ("paths", "include", "exclude") if name in raw and raw[name] != ["a.txt"])
    assert field in params.message
