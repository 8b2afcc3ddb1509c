"""The offline model after `@path` mentions: it answers from what the session attached (the very parts Gemini is
sent), never taking `@path` as words or as a file name. The spellings are generated: files, folders, names with
spaces (escaped or quoted), several mentions, missing files, punctuation after a mention, an escaped `\\@`."""

from __future__ import annotations

import io
import itertools
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.cli.headless import HeadlessPrinter
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.mentions import AttachedPrompt, read_back
from gemini_tui.core.ground.model_api import ModelChunk, ModelRequest
from gemini_tui.core.ground.parts import InlineDataPart, Part, TextPart
from gemini_tui.core.models.offline import HELP_TEXT, OfflineModel
from tests.fakes.gemini_server import FakeGeminiServer
from tests.fakes.scripted_model import scripted_session

FILES = {"src/foo.py": "def foo():\n    return 42\n", "src/bar.py": "class Bar:\n    pass\n",
         "my dir/a b.txt": "spaced content\n", "README.md": "# Title\nhi there\n", "@odd.txt": "odd one\n"}
# what a mention of each target attaches
TARGETS = {"src/foo.py": ["src/foo.py"], "src": ["src/bar.py", "src/foo.py"], "my dir/a b.txt": ["my dir/a b.txt"],
           "my dir": ["my dir/a b.txt"], "README.md": ["README.md"], "src/*.py": ["src/bar.py", "src/foo.py"],
           "*/a b.txt": ["my dir/a b.txt"]}
TEMPLATES = ["{m} explain", "what does {m} do?", "explain {m}.", "read {m}", "tell me about {m}, please", "{m}",
             "compare {m} with {n}", "{m} {n} what changed?"]
MISSING = ["nope.py", "gone/away.txt"]


def spellings(path: str) -> list[str]:
    """Every way to write a mention of `path`: bare (no space in it), with `\\ ` escapes, in double quotes."""
    return list(dict.fromkeys(["@" + path.replace(" ", "\\ "), f'@"{path}"']))


@dataclass
class Case:
    prompt: str
    attached: list[str]
    missing: list[str] = field(default_factory=list)


def generated_cases(seed: int = 22) -> list[Case]:
    rng = random.Random(seed)
    written = [(target, spelling) for target in TARGETS for spelling in spellings(target)]
    cases = []
    for index, (target, spelling) in enumerate(written):
        other, other_spelling = rng.choice(written)
        template = TEMPLATES[index % len(TEMPLATES)]
        cases.append(Case(template.format(m=spelling, n=other_spelling),
                          sorted({*TARGETS[target], *(TARGETS[other] if "{n}" in template else [])})))
    for missing, (target, spelling) in zip(MISSING, rng.sample(written, len(MISSING)), strict=True):
        cases.append(Case(f"explain @{missing}", [], [missing]))
        cases.append(Case(f"{spelling} and @{missing}, what?", TARGETS[target], [missing]))
    return cases


def make_root(root: Path) -> Path:
    for name, content in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    return root


async def ask(root: Path, home: Path, prompt: str, model: Any = None) -> tuple[str, list[tuple[str, dict]]]:
    """One headless prompt (stream-json, in process): the answer, and the calls made (by the session and model)."""
    session = scripted_session(root, model or OfflineModel(root), home, interactive=False)
    out, err = io.StringIO(), io.StringIO()
    assert await HeadlessPrinter("stream-json", out, err).run(session, prompt) == 0, err.getvalue()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    answer = "".join(line["content"] for line in lines if line["type"] == "message" and line["role"] == "assistant")
    return answer, [(line["tool_name"], line["parameters"]) for line in lines if line["type"] == "tool_use"]


@pytest.mark.parametrize("case", generated_cases(), ids=lambda case: case.prompt)
async def test_the_offline_model_answers_from_what_a_mention_attached(case: Case, root: Path, home: Path) -> None:
    answer, calls = await ask(make_root(root), home, case.prompt)
    # the session read the mentions; the model made no call of its own (no read_file of `@...`)
    assert [name for name, _ in calls] == ["read_many_files"]
    assert HELP_TEXT not in answer
    for name in case.attached:
        assert f"{name}: " in answer and FILES[name].splitlines()[0] in answer
    for name in set(FILES) - set(case.attached):
        assert FILES[name].splitlines()[0] not in answer
    for name in case.missing:
        assert f"Nothing was attached for @{name}." in answer
    assert ("Nothing was attached" in answer) == bool(case.missing)
    count = len(case.attached)
    first = answer.split("\n")[0]
    assert first.endswith(f" attached {count} file{'' if count == 1 else 's'}. I am the offline demo model, so I "
                          f"cannot explain {'it' if count == 1 else 'them'}; this is what "
                          f"{'it holds' if count == 1 else 'they hold'}.") if count else first.startswith("Nothing")


@pytest.mark.parametrize(("prompt", "name", "args"), [
    # a phrase acts on the path a mention names (quoted or escaped alike)
    ("list @src", "list_directory", {"path": "src"}),
    ('list @"my dir"', "list_directory", {"path": "my dir"}),
    ("list @my\\ dir", "list_directory", {"path": "my dir"}),
    ("search Bar in @src/bar.py", "search_file_content", {"pattern": "Bar", "include": "src/bar.py"}),
])
async def test_a_phrase_acts_on_the_mentioned_path(prompt: str, name: str, args: dict, root: Path,
                                                   home: Path) -> None:
    make_root(root)
    _, calls = await ask(root, home, prompt)
    expected = {k: str(root / v) if k == "path" else v for k, v in args.items()}
    assert calls[0][0] == "read_many_files" and calls[1:] == [(name, expected)]


async def test_an_escaped_at_attaches_nothing_and_means_the_character(root: Path, home: Path) -> None:
    make_root(root)
    answer, calls = await ask(root, home, "read \\@odd.txt")  # a file whose name starts with `@`
    assert calls == [("read_file", {"path": str(root / "@odd.txt")})]
    assert "odd one" in answer
    answer, calls = await ask(root, home, "\\@src/foo.py explain")
    assert calls == [] and answer == HELP_TEXT


class RecordingOffline(OfflineModel):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest, abort_signal: AbortSignal) -> AsyncIterator[ModelChunk]:
        self.requests.append(request)
        async for chunk in super().stream(request, abort_signal):
            yield chunk


def inline(data: dict[str, Any]) -> InlineDataPart:
    return InlineDataPart(data.get("mimeType") or data["mime_type"], data["data"])  # the client writes snake case


def as_parts(recorded: list[dict[str, Any]]) -> list[Part]:
    """The parts of a request body as the Gemini API received them."""
    return [TextPart(p["text"]) if "text" in p else inline(p["inlineData"])
            for p in recorded]


async def test_the_offline_model_reads_the_parts_gemini_is_sent(root: Path, home: Path,
                                                                gemini_server: FakeGeminiServer) -> None:
    from gemini_tui.core.models.gemini import GeminiModel

    make_root(root)
    (root / "pixel.png").write_bytes(bytes.fromhex("89504e470d0a1a0a") + b"\0" * 60)
    prompts = [case.prompt for case in generated_cases(seed=5)[::3]] + ["@pixel.png @README.md what is it?"]
    for prompt in prompts:
        offline = RecordingOffline(root)
        await ask(root, home, prompt, offline)
        gemini = GeminiModel("gemini-2.5-pro", "test-key", base_url=gemini_server.base_url)
        await ask(root, home, prompt, gemini)
        sent_to_gemini = read_back(as_parts(gemini_server.requests[-1].contents[-1]["parts"]))
        seen_offline = read_back(offline.requests[0].contents[-1].parts)
        assert isinstance(seen_offline, AttachedPrompt) and seen_offline == sent_to_gemini, prompt
        assert seen_offline.text == prompt
    image = next(a for a in seen_offline.attachments if a.mime_type)
    assert image.name == str(root / "pixel.png") and image.size == 68


def test_the_generated_cases_cover_every_spelling() -> None:
    prompts = [case.prompt for case in generated_cases()]
    assert any('@"my dir/a b.txt"' in p for p in prompts) and any("@my\\ dir/a\\ b.txt" in p for p in prompts)
    assert any(p.count("@") >= 2 for p in prompts) and any(case.missing for case in generated_cases())
    assert set(itertools.chain.from_iterable(case.attached for case in generated_cases())) == set(FILES) - {"@odd.txt"}
