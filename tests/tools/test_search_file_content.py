"""search_file_content: the output format, errors, and byte-identical output from ripgrep, git grep and Python."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.display import SearchMatches
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.tools.search_file_content.engines import SearchCancelled, find_ripgrep, run_process, widen_for_bytes
from gemini_tui.tools.search_file_content.pattern import MAX_LINE_CHARS, GrepPattern, IncludeGlob
from gemini_tui.tools.search_file_content.tool import MAX_MATCHES, SearchFileContentTool
from gemini_tui.tools.workspace import Workspace
from gemini_tui.tools.workspace.glob_pattern import expand_braces

ENGINES = ("rg", "git", "python")


async def search(workspace: Workspace, engine: str | None = None, **raw: object) -> ToolResult:
    tool = SearchFileContentTool(workspace, engine=engine)  # type: ignore[arg-type]
    params = tool.validate_params(raw)
    if isinstance(params, ToolError):
        return ToolResult.failure(params.kind, params.message)
    return await tool.execute(params, AbortSignal())


FIXTURE: dict[str, bytes] = {
    ".gitignore": b"*.log\nbuild/\n",
    ".geminiignore": b"secret.md\n",
    "src/utils.ts": b"export function myFunction() {\n  return 1;\n}\n\nfunction other() {\n  myFunction.call();\n}\n",
    "src/index.ts": b"import { myFunction } from './utils';\nconsole.log(myFunction());\n",
    "src/comp/view.tsx": b"export const View = () => <div>{myFunction()}</div>;\n// TODO: style 12px\n",
    "src/deep/a/b.ts": b"// FIXME myfunction lower case\n",
    "src/styles.css": b".a { width: 10px; }\n.b { height: 200px; }\n",
    "crlf.txt": b"first line end\r\nsecond myFunction end\r\nthird\r\n",
    "mixed.txt": b"lf line end\ncrlf line end\r\nlast end",
    "unicode.txt": "café myFunction — ünïcödé\nΣίσυφος xxx end\n日本語 myFunction\n".encode(),
    "latin1.txt": "caf\xe9 myFunction\n".encode("cp1252"),
    "utf16.txt": "first\r\nutf-16 myFunction end\r\n".encode("utf-16"),
    "binary.dat": b"\x00\x01myFunction\x00\x02",
    "image.png": b"\x89PNG\r\n\x1a\nmyFunction",
    "nul_late.txt": b"myFunction early\n" + b"a" * 5000 + b"\x00\nmyFunction after nul\n",
    "minified.js": b"var a=1;" * 200 + b"myFunction();" + b"var b=2;" * 200 + b"\n",
    "a.log": b"myFunction in an ignored log\n",
    "sub/.gitignore": b"!keep.log\nlocal.txt\n",
    "sub/keep.log": b"myFunction kept by negation\n",
    "sub/local.txt": b"myFunction ignored locally\n",
    "build/out.ts": b"myFunction in build\n",
    "secret.md": b"myFunction secret\n",
    "node_modules/pkg/index.ts": b"myFunction in node_modules\n",
    ".hidden/h.ts": b"export const myFunction = 1;\n",
    "docs/readme.md": b"Call myFunction() once. xxxx\n",
    "empty.txt": b"",
}


@pytest.fixture
def tree(root: Path) -> Path:
    for name, data in FIXTURE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "link_to_utils.ts").symlink_to(root / "src" / "utils.ts")
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "src", "crlf.txt", "build/out.ts", "-f"], cwd=root, check=True, env=env)
    return root


CROSS_ENGINE = [
    {"pattern": "myFunction"},
    {"pattern": "myfunction", "include": "*.ts"},
    {"pattern": "myFunction", "include": "src/**/*.{ts,tsx}"},
    {"pattern": "^export"},
    {"pattern": "end$"},
    {"pattern": "TODO|FIXME"},
    {"pattern": "x{3,}"},
    {"pattern": "[0-9]+px", "path": "src"},
    {"pattern": "caf"},
    {"pattern": "function\\s+\\w+"},
    {"pattern": "myFunction", "include": "*.log"},
    {"pattern": "no_such_text_anywhere"},
    {"pattern": "myFunction", "path": "sub"},
    {"pattern": "(?<=my)Function\\("},
    {"pattern": "caf. myfunction"},
    {"pattern": "CAFÉ"},
    {"pattern": "caf[^x]\\s"},
    {"pattern": "\\bcaf\\w"},
    {"pattern": "[^\\x00-\\x7f]+ myFunction"},
]


@pytest.mark.parametrize("raw", CROSS_ENGINE, ids=[str(r) for r in CROSS_ENGINE])
async def test_engines_give_byte_identical_output(tree: Path, raw: dict[str, str]) -> None:
    workspace = Workspace(tree)
    outputs = {}
    for engine in ENGINES:
        if engine == "git" and not GrepPattern.compile(raw["pattern"]).bytes_safe:
            continue
        result = await search(workspace, engine, **raw)
        assert result.ok, (engine, result.llm_content)
        outputs[engine] = result.llm_content
    assert len(set(outputs.values())) == 1, outputs
    assert len(outputs) >= 2
    if "caf" in raw["pattern"].lower():
        assert "File: latin1.txt" in outputs["rg"]  # cp1252 text found by every engine


GITIGNORE_ONLY: dict[str, bytes] = {
    ".gitignore": b"/anchored.txt\n*.tmp\n!keep.tmp\nlogs/\n**/deep/*.gen\ndoc/*.md\n",
    "anchored.txt": b"hit anchored\n",
    "sub/anchored.txt": b"hit anchored below\n",
    "a.tmp": b"hit tmp\n",
    "keep.tmp": b"hit keep\n",
    "logs/x.txt": b"hit logs\n",
    "sub/logs/y.txt": b"hit logs below\n",
    "x/deep/a.gen": b"hit gen\n",
    "x/deep/more/b.gen": b"hit gen deeper\n",
    "doc/a.md": b"hit doc\n",
    "doc/sub/b.md": b"hit doc sub\n",
    "nested/.gitignore": b"!a.tmp\n*.txt\n!important.txt\n",
    "nested/a.tmp": b"hit re-included\n",
    "nested/plain.txt": b"hit nested txt\n",
    "nested/important.txt": b"hit important\n",
    ".DS_Store": b"hit ds store\n",
    "__pycache__/m.py": b"hit cache\n",
    "Mixed.CASE": b"HIT upper\r\nhIt\r\r\nend\n",
}


@pytest.mark.parametrize("pattern", ["hit", "hit [a-z]+", "^hit$", "e$"])
async def test_engines_agree_on_gitignore_rules_without_geminiignore(root: Path, pattern: str) -> None:
    for name, data in GITIGNORE_ONLY.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    outputs = {engine: (await search(Workspace(root), engine, pattern=pattern)).llm_content for engine in ENGINES}
    assert len(set(outputs.values())) == 1, outputs
    files = {line[6:] for line in outputs["python"].splitlines() if line.startswith("File: ")}
    if pattern == "hit":
        assert files == {"sub/anchored.txt", "keep.tmp", "doc/sub/b.md", "nested/a.tmp", "nested/important.txt",
                         "x/deep/more/b.gen",
                         "Mixed.CASE"}


@pytest.mark.parametrize("include", ["*.tmp", "*", "**/*.gen", "*.txt", "nested/*"])
async def test_include_never_brings_back_ignored_files(root: Path, include: str) -> None:
    """ripgrep lets an include glob override .gitignore; the engines still print only what the walk finds."""
    for name, data in GITIGNORE_ONLY.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    outputs = {engine: (await search(Workspace(root), engine, pattern="hit", include=include)).llm_content
               for engine in ENGINES}
    assert len(set(outputs.values())) == 1, outputs
    assert "File: a.tmp\n" not in outputs["rg"] and ".git/" not in outputs["rg"] and "logs/" not in outputs["rg"]


def test_ascii_fast_path_agrees_with_the_text_path() -> None:
    samples = [b"abc Needle x\r\nno\r\nNEEDLE\r\r\nneedle", b"needle\n\nneedle\n", b"x\n" * 3 + b"needles",
               b"\r\nneedle\r", b"needle_marker and needle\n"]
    for source in ("needle", "needle$", "needle\\b", "needl[e]", "needle_?marker", "needle (and)?", "x?needle",
                   "[a-z]+ needle", "\\bne{2}dle", "(a|ne)edle", "needle|abc", "no|needle$", "(?i)NEEDLE|nEEdlex"):
        pattern = GrepPattern.compile(source)
        for data in samples:
            expected = pattern.search_lines(data.decode(), 100)
            if pattern.literals:
                assert pattern.search_ascii(data, 100) == expected, (source, data)
    assert GrepPattern.compile("needle").literals == (b"needle",)
    assert GrepPattern.compile("Ab?c").literals == () and GrepPattern.compile("abc+").literals == (b"ab",)
    assert GrepPattern.compile("TODO|fixme").literals == (b"todo", b"fixme")
    assert GrepPattern.compile("ab|c").literals == () and GrepPattern.compile("def\\s+x").literals == (b"def",)
    assert GrepPattern.compile("de\\s+Needle_\\w").literals == (b"needle_",)
    assert GrepPattern.compile("(ab|cd)xyz").literals == (b"xyz",) and GrepPattern.compile("é1").literals == ()


INCLUDE_TREE = ["a/x.ts", "b/a/x.ts", "c/d/e.ts", "top.ts", "a/.h.ts", "dir.ts/inner.js", "src/app.tsx",
                "src/lib/util.ts", "lib/src/other.ts", "[x].md", "sp ace/f.md"]


@pytest.mark.parametrize("include", ["a/*.ts", "/a/*.ts", "**/a/*.ts", "c/**", "*", "?op.ts", "[ab]/*.ts",
                                     "[!a]/*.ts", "a/", "**/*.ts", "*.ts", "src/**/*.{ts,tsx}", "{a,c}/**",
                                     "\\[x].md", "sp ace/*", "*.{md,js}"])
async def test_include_globs_agree_across_engines(root: Path, include: str) -> None:
    for name in INCLUDE_TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"hit {name}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    outputs = {engine: (await search(Workspace(root), engine, pattern="hit", include=include)).llm_content
               for engine in ENGINES}
    assert len(set(outputs.values())) == 1, outputs
    listed = {line[6:] for line in outputs["rg"].splitlines() if line.startswith("File: ")}
    assert listed == {name for name in INCLUDE_TREE if IncludeGlob.compile(include).matches(name)}


async def test_output_format_and_file_set(tree: Path) -> None:
    result = await search(Workspace(tree), None, pattern="myFunction")
    expected = """Found 19 match(es) for pattern "myFunction" in path ".":
---
File: .hidden/h.ts
L1: export const myFunction = 1;
---
File: crlf.txt
L2: second myFunction end
---
File: docs/readme.md
L1: Call myFunction() once. xxxx
---
File: latin1.txt
L1: café myFunction
---
File: link_to_utils.ts
L1: export function myFunction() {
L6:   myFunction.call();
---
File: minified.js
L1: """
    assert isinstance(result.llm_content, str)
    assert result.llm_content.startswith(expected), result.llm_content
    minified = FIXTURE["minified.js"].decode().rstrip("\n")
    assert f"L1: ...{minified[1500:2000]}... [line truncated: 3213 characters]\n---" in result.llm_content
    rest = result.llm_content.split("[line truncated: 3213 characters]\n", 1)[1]
    assert rest == """---
File: nul_late.txt
L1: myFunction early
L3: myFunction after nul
---
File: src/comp/view.tsx
L1: export const View = () => <div>{myFunction()}</div>;
---
File: src/deep/a/b.ts
L1: // FIXME myfunction lower case
---
File: src/index.ts
L1: import { myFunction } from './utils';
L2: console.log(myFunction());
---
File: src/utils.ts
L1: export function myFunction() {
L6:   myFunction.call();
---
File: sub/keep.log
L1: myFunction kept by negation
---
File: unicode.txt
L1: café myFunction — ünïcödé
L3: 日本語 myFunction
---
File: utf16.txt
L2: utf-16 myFunction end
---"""
    display = result.return_display
    assert isinstance(display, SearchMatches)
    assert len(display.matches) == 19 and display.matches[0].file == ".hidden/h.ts"


async def test_filter_in_header_and_relative_paths(tree: Path) -> None:
    result = await search(Workspace(tree), None, pattern="myFunction", path=str(tree / "src"),
                          include="src/**/*.{ts,tsx}")
    assert result.llm_content.startswith("No matches found")  # anchored globs are relative to the searched dir
    result = await search(Workspace(tree), None, pattern="myFunction", path=str(tree / "src"), include="*.{ts,tsx}")
    header = f'Found 6 match(es) for pattern "myFunction" in path "{tree / "src"}" (filter: "*.{{ts,tsx}}"):'
    assert result.llm_content == header + """
---
File: comp/view.tsx
L1: export const View = () => <div>{myFunction()}</div>;
---
File: deep/a/b.ts
L1: // FIXME myfunction lower case
---
File: index.ts
L1: import { myFunction } from './utils';
L2: console.log(myFunction());
---
File: utils.ts
L1: export function myFunction() {
L6:   myFunction.call();
---"""


@pytest.mark.parametrize("engine", ENGINES)
async def test_no_match_message(tree: Path, engine: str) -> None:
    result = await search(Workspace(tree), engine, pattern="zzz_nothing", include="*.ts")
    assert result.ok
    assert result.llm_content == 'No matches found for pattern "zzz_nothing" in path "." (filter: "*.ts").'


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("pattern", "kind", "text"), [
    ("foo(", ToolErrorKind.invalid_regex, "Invalid regular expression pattern: 'foo(': missing ), unterminated"),
    ("[a-", ToolErrorKind.invalid_regex, "Invalid regular expression pattern"),
    ("a\\nb", ToolErrorKind.invalid_regex, "contains a line break"),
    ("", ToolErrorKind.invalid_regex, "The pattern must not be empty."),
])
async def test_invalid_patterns(tree: Path, engine: str, pattern: str, kind: ToolErrorKind, text: str) -> None:
    result = await search(Workspace(tree), engine, pattern=pattern)
    assert result.error is not None and result.error.kind is kind
    assert text in result.llm_content


async def test_path_errors(tree: Path) -> None:
    workspace = Workspace(tree)
    result = await search(workspace, None, pattern="x", path="/etc")
    assert result.error and result.error.kind is ToolErrorKind.path_outside_root
    result = await search(workspace, None, pattern="x", path=str(tree / "crlf.txt"))
    assert result.error and result.error.kind is ToolErrorKind.not_a_directory
    result = await search(workspace, None, pattern="x", path=str(tree / "missing"))
    assert result.error and result.error.kind is ToolErrorKind.file_not_found
    result = await search(workspace, None, pattern="x", include="!*.ts")
    assert result.error and result.error.kind is ToolErrorKind.invalid_params


async def test_git_engine_refuses_unicode_classes_and_auto_falls_back(tree: Path) -> None:
    result = await search(Workspace(tree), "git", pattern="caf\\w")
    assert result.error and "git grep -P reads" in result.llm_content
    rg = await search(Workspace(tree), "rg", pattern="caf\\w")
    auto = await search(Workspace(tree), None, pattern="caf\\w")
    python = await search(Workspace(tree), "python", pattern="caf\\w")
    assert auto.llm_content == python.llm_content == rg.llm_content
    assert "File: latin1.txt\nL1: café myFunction" in python.llm_content
    assert "File: unicode.txt\nL1: café" in python.llm_content


async def test_git_engine_outside_a_repository(root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    result = await search(Workspace(root), "git", pattern="hello")
    assert result.error and "not inside a git repository" in result.llm_content
    assert (await search(Workspace(root), None, pattern="hello")).llm_content.startswith("Found 1 match(es)")


async def test_git_engine_with_info_exclude_searches_more_and_filters(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git" / "info" / "exclude").write_text("# local\nexcluded.txt\n")
    (root / "excluded.txt").write_text("hit excluded only by git\n")
    (root / ".gitignore").write_text("ignored.txt\n")
    (root / "ignored.txt").write_text("hit ignored\n")
    (root / "target.txt").write_text("hit\n")
    (root / "link.txt").symlink_to(root / "target.txt")
    outputs = {engine: (await search(Workspace(root), engine, pattern="hit")).llm_content for engine in ENGINES}
    assert len(set(outputs.values())) == 1, outputs
    # .git/info/exclude is honoured like .gitignore (issue 11): every engine leaves excluded.txt out
    assert "excluded.txt" not in outputs["git"] and "File: link.txt" in outputs["git"]
    assert "ignored.txt" not in outputs["git"]


async def test_git_engine_refuses_nested_repositories(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "a.txt").write_text("hit\n")
    (root / "inner").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root / "inner", check=True)
    (root / "inner" / "b.txt").write_text("hit\n")
    result = await search(Workspace(root), "git", pattern="hit")
    assert result.error and "nested repository inner/" in result.llm_content
    auto = await search(Workspace(root), None, pattern="hit")
    assert auto.llm_content == (await search(Workspace(root), "python", pattern="hit")).llm_content
    assert "File: inner/b.txt" in auto.llm_content


@pytest.mark.parametrize("engine", ENGINES)
async def test_match_cap(root: Path, engine: str) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "a.txt").write_text("hit\n" * 300)
    (root / "b.txt").write_text("hit\n" * 300)
    (root / "c.txt").write_text("hit\n")
    result = await search(Workspace(root), engine, pattern="hit")
    assert isinstance(result.llm_content, str)
    assert result.llm_content.startswith(
        f'Found {MAX_MATCHES} match(es) for pattern "hit" in path "." (results limited to {MAX_MATCHES} matches;')
    assert result.llm_content.count("\nL") == MAX_MATCHES
    assert "File: c.txt" not in result.llm_content and "L200: hit\n---" in result.llm_content


def test_pattern_and_glob_units() -> None:
    assert expand_braces("src/**/*.{ts,tsx}") == ["src/**/*.ts", "src/**/*.tsx"]
    assert expand_braces("{a,b{c,d}}.x") == ["a.x", "bc.x", "bd.x"]
    assert expand_braces("{solo}.x") == ["{solo}.x"]
    glob = IncludeGlob.compile("src/**/*.{ts,tsx}")
    assert glob.matches("src/a.ts") and glob.matches("src/x/y.tsx") and not glob.matches("lib/src/a.ts")
    assert IncludeGlob.compile("*.ts").matches("deep/er/a.ts")
    assert not IncludeGlob.compile("*.ts").matches("dir.ts/a.js")  # a file glob, as ripgrep reads it
    assert IncludeGlob.compile("src/").matches("src/deep/a.js") and IncludeGlob.compile("src/").globs == ("src/**",)
    assert glob.git_pathspecs() == [":(glob)src/**/*.ts", ":(glob)src/**/*.tsx"]
    assert IncludeGlob.compile("*.ts").git_pathspecs() == [":(glob)**/*.ts"]
    pattern = GrepPattern.compile("end$")
    assert pattern.search_lines("a end\r\nb\nc end", 10) == [(1, "a end"), (3, "c end")]
    assert pattern.search_lines("x\n", 10) == []
    assert GrepPattern.compile("^$").search_lines("a\n\nb\n", 10) == [(2, "")]
    assert GrepPattern.compile("\\Aab").search_lines("ab\nab\n", 10) == [(1, "ab"), (2, "ab")]
    long = "x" * 1000 + "needle" + "y" * 1000
    shown = GrepPattern.compile("needle").search_lines(long, 1)[0][1]
    assert shown.startswith("...x") and "needle" in shown and shown.endswith("[line truncated: 2006 characters]")
    assert len(shown) < MAX_LINE_CHARS + 60
    assert GrepPattern.compile("a\\\\nb").regex.pattern == "a\\\\nb"  # an escaped backslash before n is fine
    assert not GrepPattern.compile("\\w+").bytes_safe and not GrepPattern.compile("a.b").bytes_safe
    assert GrepPattern.compile("a\\.b \\bx").bytes_safe and not GrepPattern.compile("[^a]").bytes_safe
    for pattern in ("\\Aab", "ab\\Z", "x{,3}", "[[:alpha:]]", "[a-z&&b]", "[a~~b]", "[a||b]"):
        assert not GrepPattern.compile(pattern).portable, pattern
    assert GrepPattern.compile("x{1,3}\\{,").portable and GrepPattern.compile("[a-z]\\\\A").portable
    assert GrepPattern.compile("(?<=a)b").needs_pcre and not GrepPattern.compile("(?P<x>a)").needs_pcre


def test_ripgrep_is_found_beside_the_interpreter() -> None:
    found = find_ripgrep()
    assert found is not None
    assert Path(found).parent == Path(sys.executable).parent or Path(found).name == "rg"


async def test_abort_kills_the_process(root: Path) -> None:
    signal = AbortSignal()
    started = time.monotonic()
    asyncio.get_running_loop().call_later(0.2, signal.abort)
    with pytest.raises(SearchCancelled):
        await run_process(["sleep", "10"], root, signal)
    assert time.monotonic() - started < 3


async def test_aborted_search_is_cancelled(tree: Path) -> None:
    tool = SearchFileContentTool(Workspace(tree), engine="python")
    params = tool.validate_params({"pattern": "x"})
    assert not isinstance(params, ToolError)
    signal = AbortSignal()
    signal.abort()
    result = await tool.execute(params, signal)
    assert result.error and result.error.kind is ToolErrorKind.cancelled


def test_declaration() -> None:
    tool = SearchFileContentTool(Workspace("."))
    declaration = tool.function_declaration()
    assert declaration["name"] == "search_file_content"
    assert declaration["parameters"]["required"] == ["pattern"]
    assert set(declaration["parameters"]["properties"]) == {"pattern", "path", "include"}


def test_widen_for_bytes() -> None:
    high = "(?-u:[\\x80-\\xFF])"
    assert widen_for_bytes("a.b") == f"a(?:.|{high})b"
    assert widen_for_bytes("x\\w+[^\\]]\\.") == f"x(?:\\w|{high})+(?:[^\\]]|{high})\\."
    assert widen_for_bytes("[a-z]é") == f"[a-z](?:é|{high})"
    assert widen_for_bytes("\\bx\\w") is None and widen_for_bytes("\\\\bx") == "\\\\bx"
    assert widen_for_bytes("caf\\u00e9\\x41") == f"caf(?:\\u00e9|{high})\\x41"
    assert widen_for_bytes("\\351") == f"(?:\\351|{high})"


_RULES = ["*.log", "build/", "/top.txt", "a/", "!keep.log", "**/gen/*.txt", "b/*.md", "*.md", "!b/ok.md", "c/**", "d",
          "/d/", "e/f/", "x?.txt", "[ab].txt", "!*.txt", "*.txt", "sub/", "!sub/", "**/deep", "deep/**/z.txt",
          "\\#hash.txt", "trail.txt ", "n/*", "!n/keep.txt", "*/one.txt", "a/**/b", ".hidden/", "*.TXT"]
_NAMES = ["top.txt", "a.txt", "b.txt", "x1.txt", "keep.log", "z.log", "readme.md", "ok.md", "#hash.txt", "trail.txt",
          "one.txt", "z.txt", "keep.txt", "UP.TXT"]
_DIRS = ["", "a", "b", "c", "d", "e/f", "gen", "x/gen", "sub", "sub/sub", "deep", "q/deep/r", "n", "a/q/b", ".hidden",
         "m/d"]


@pytest.mark.parametrize("seed", range(0, 120, 4))
async def test_engines_agree_on_random_ignore_trees(tmp_path: Path, seed: int) -> None:
    """Random .gitignore/.geminiignore rules at random levels, some files tracked by git: every engine that
    answers prints what the Python walk prints (an engine steps aside when a .geminiignore re-includes)."""
    import random

    rng = random.Random(seed)
    root = (tmp_path / "w").resolve()
    for directory in _DIRS:
        (root / directory).mkdir(parents=True, exist_ok=True)
        for name in rng.sample(_NAMES, 5):
            (root / directory / name).write_text(f"hit {directory}/{name}\n")
    for directory in rng.sample(_DIRS, 4):
        (root / directory / ".gitignore").write_text("\n".join(rng.sample(_RULES, rng.randint(1, 6))) + "\n")
    if seed % 3 == 0:
        (root / rng.choice(_DIRS) / ".geminiignore").write_text(rng.choice(_RULES) + "\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-f", "a", "sub"], cwd=root, check=True, capture_output=True)
    workspace = Workspace(root)
    python = (await search(workspace, "python", pattern="hit")).llm_content
    for engine in ("rg", "git"):
        result = await search(workspace, engine, pattern="hit")
        if result.ok:
            assert result.llm_content == python, engine
        else:
            assert "re-includes (!)" in result.llm_content


async def test_geminiignore_that_re_includes_moves_the_search_to_python(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_text("*.log\n")
    (root / "deep").mkdir()
    (root / "deep" / ".geminiignore").write_text("!app.log\n")
    (root / "deep" / "app.log").write_text("hit\n")
    (root / "other.log").write_text("hit\n")
    for engine in ("rg", "git"):
        result = await search(Workspace(root), engine, pattern="hit")
        assert result.error and "re-includes (!)" in result.llm_content
    auto = await search(Workspace(root), None, pattern="hit")
    assert auto.llm_content == 'Found 1 match(es) for pattern "hit" in path ".":\n---\nFile: deep/app.log\nL1: hit\n---'


_WORDS = ["[]", "a]", "b&&c", "foo", "Foo", "FOO", "bar", "café", "CAFÉ", "naïve", "日本", "x1", "42", "٣", "self",
          "end", "\t", " ", "  ", "(", ".", "*", "$", "\\", '"', "ſ", "K", "ß", "İ", "\xa0", "\x1c", "\u2028", "ǅ",
          "ﬁ"]
_PATTERNS = ["foo", "f.o", "caf.", "CAFÉ", "\\w+é", "\\d+", "\\s+bar", "^foo", "end$", "foo|bar", "[^a-z ]+",
             "\\bfoo\\b", "\\Bfoo", "ſelf", "k", "ss", "\\S+", "(?-i:Foo)", "fo{2}", "(foo|bar)+end", "a?b?c?",
             "\\u00e9", "^$", "\\W", "(?<=f)oo", "(\\w)\\1", "ǆ", "\\Afoo", "foo\\Z", "x{,3}", "[[:alpha:]]+",
             "[a-z&&[^aeiou]]", "[a~~b]", "(?x) foo  # c", "(?a)\\w+", "foo*+", "(?>fo+)o", "[]a]"]


@pytest.mark.parametrize("seed", range(4))
async def test_engines_agree_on_random_text(tmp_path: Path, seed: int) -> None:
    """Random lines in UTF-8 (with and without BOM), cp1252 and UTF-16, LF, CRLF and mixed endings, odd Unicode
    (case folding, digits, separators): every engine that answers prints what the Python walk prints."""
    import random

    rng = random.Random(seed)
    root = (tmp_path / "w").resolve()
    root.mkdir()
    for index in range(12):
        lines = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(1, 12))]
        newline = rng.choice(["\n", "\r\n", "\r\n\n"])
        text = newline.join(lines) + rng.choice(["", newline])
        encoding = rng.choice(["utf-8", "utf-8", "cp1252", "utf-16", "utf-8-sig"])
        try:
            data = text.encode(encoding)
        except UnicodeEncodeError:
            data = text.encode("utf-8")
        (root / f"f{index}.txt").write_bytes(data)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    workspace = Workspace(root)
    for pattern in _PATTERNS:
        python = (await search(workspace, "python", pattern=pattern)).llm_content
        for engine in ("rg", "git"):
            result = await search(workspace, engine, pattern=pattern)
            if result.ok:
                assert result.llm_content == python, (engine, pattern)
            else:
                assert result.llm_content.startswith(f"Search engine {engine} failed"), result.llm_content
