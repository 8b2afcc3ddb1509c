"""The offline demo model: each phrase becomes the right call; anything else gets the help text."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.model_api import CallChunk, Content, FunctionResponse, ModelRequest, TextChunk
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.models.offline import HELP_TEXT, OfflineModel, summarize

ROOT = Path("/work/project")


@pytest.mark.parametrize(("prompt", "name", "args"), [
    ("list", "list_directory", {"path": str(ROOT)}),
    ("list src", "list_directory", {"path": str(ROOT / "src")}),
    ("list .", "list_directory", {"path": str(ROOT)}),
    ("ls /tmp", "list_directory", {"path": "/tmp"}),
    ("read README.md", "read_file", {"path": str(ROOT / "README.md")}),
    ("read ~/notes.md", "read_file", {"path": str(Path("~/notes.md").expanduser())}),
    ('read "my notes.txt"', "read_file", {"path": str(ROOT / "my notes.txt")}),
    ("find **/*.py", "glob", {"pattern": "**/*.py"}),
    ("search TODO", "search_file_content", {"pattern": "TODO"}),
    ("search 'def \\w+' in *.py", "search_file_content", {"pattern": "def \\w+", "include": "*.py"}),
    ("replace foo with bar in a.txt", "replace",
     {"file_path": str(ROOT / "a.txt"), "old_string": "foo", "new_string": "bar"}),
    ('replace "old text" with "new text" in docs/x.md', "replace",
     {"file_path": str(ROOT / "docs/x.md"), "old_string": "old text", "new_string": "new text"}),
    ("write notes.md: hello world.", "write_file", {"file_path": str(ROOT / "notes.md"), "content": "hello world."}),
    ("run git status", "run_shell_command", {"command": "git status"}),
    ("remember that I like tabs", "save_memory", {"fact": "I like tabs"}),
    ("Remember the build uses make", "save_memory", {"fact": "the build uses make"}),
])
def test_each_rule(prompt: str, name: str, args: dict) -> None:
    assert OfflineModel(ROOT).interpret(prompt) == (name, args)


@pytest.mark.parametrize("prompt", ["hello", "what is this project?", "replace x in y", "", "help"])
def test_anything_else_is_help(prompt: str) -> None:
    assert OfflineModel(ROOT).interpret(prompt) is None


async def collect(model: OfflineModel, contents: list[Content]) -> list:
    return [chunk async for chunk in model.stream(ModelRequest(tuple(contents)), AbortSignal())]


async def test_streams_a_call_then_summarizes_the_result() -> None:
    model = OfflineModel(ROOT)
    assert model.model_name == "offline" and model.is_offline
    chunks = await collect(model, [Content("user", [TextPart("read a.txt")])])
    [call] = [c.call for c in chunks if isinstance(c, CallChunk)]
    assert call.name == "read_file"
    output = "\n".join(f"line {i}" for i in range(20))
    response = FunctionResponse(call.id, call.name, {"output": output})
    chunks = await collect(model, [Content("user", [response])])
    text = "".join(c.text for c in chunks if isinstance(c, TextChunk))
    assert "line 7" in text and "line 8" not in text and "(12 more lines)" in text
    # every line of the output, the first too, stays a line when shown as Markdown: all in one fenced block
    assert text.startswith("read_file returned:\n```\nline 0\nline 1\n") and text.endswith("(12 more lines)\n```\n")
    assert not any(isinstance(c, CallChunk) for c in chunks)
    failed = FunctionResponse("2", "replace", {"error": "Failed to edit, 0 occurrences found"})
    text = "".join(c.text for c in await collect(model, [Content("user", [failed])]) if isinstance(c, TextChunk))
    assert text == "replace failed: Failed to edit, 0 occurrences found\n"


@pytest.mark.parametrize(("output", "said"), [
    ("one line", "x returned:\n```\none line\n```\n"),
    ("  indented\nsecond", "x returned:\n```\n  indented\nsecond\n```\n"),
    ("has ``` fence", "x returned:\n````\nhas ``` fence\n````\n"),
    ("", "x returned no output.\n"),
    ("\n\n", "x returned no output.\n"),
])
def test_a_tool_output_is_shown_whole_in_its_block(output: str, said: str) -> None:
    """The first line of the output is never part of the sentence, where Markdown would run it into prose."""
    assert summarize([FunctionResponse("1", "x", {"output": output})]) == said


async def test_help_says_it_is_not_gemini() -> None:
    chunks = await collect(OfflineModel(ROOT), [Content("user", [TextPart("hi")])])
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == HELP_TEXT
    assert "offline demo model" in HELP_TEXT and "not Gemini" in HELP_TEXT


SHELL_NOTE = "I ran the following shell command:\n```sh\nls\n```\n\nThis produced the following result:\n```\na\n```\n"


@pytest.mark.parametrize(("parts", "expected"), [
    # a cancelled call's response, then the new prompt in the same entry (roles alternate)
    ([FunctionResponse("1", "run_shell_command", {"error": "cancelled"}), TextPart("list src")], "list_directory"),
    # a `!command`'s note, then the new prompt
    ([TextPart(SHELL_NOTE), TextPart("read a.txt")], "read_file"),
    ([FunctionResponse("1", "glob", {"output": "x"}), TextPart(SHELL_NOTE), TextPart("find *.md")], "glob"),
    # the prompt, then the files an @mention read
    ([TextPart("read notes.md"), TextPart("--- notes.md ---\nhello\n")], "read_file"),
])
async def test_the_newest_prompt_is_answered_not_an_older_result(parts: list, expected: str) -> None:
    chunks = await collect(OfflineModel(ROOT), [Content("user", parts)])
    [call] = [c.call for c in chunks if isinstance(c, CallChunk)]
    assert call.name == expected
