"""replace's tiers beyond whitespace: look-alike punctuation, `...` elision, the approximate match (a typo, a
line left out) with its margin, and indentation that keeps the file's own lines. The corpus of generated slips
on real files runs in test_edit_model_tier.py (and the bench); these pin what each tier may and may not do."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.tool_result import ToolErrorKind
from gemini_tui.tools.replace.correction import EditMiss, EditPlan, one_slip, plan_edit
from gemini_tui.tools.replace.tool import ReplaceTool
from gemini_tui.tools.workspace import Workspace

CODE = ("def load(path):\n"
        "    name = 'config'\n"
        "    with open(path) as handle:\n"
        "        data = handle.read()\n"
        "    checked = validate(data)  # range 1-10\n"
        "    result = parse(checked)\n"
        "    log.info(\"loaded %s\", name)\n"
        "    return result\n")


def test_lookalikes_fold_on_both_sides_and_the_file_keeps_its_characters() -> None:
    old = "    name = ‘config’\n    with open(path) as handle:\n"
    new = "    name = ‘settings’\n    with open(path) as handle:\n"
    plan = plan_edit(CODE, old, new)
    assert isinstance(plan, EditPlan) and "look-alikes" in (plan.correction or "")
    assert plan.new_content == CODE.replace("'config'", "'settings'")  # the model's slip is not written
    dashes = plan_edit(CODE, "    checked = validate(data)  # range 1–10\n    result = parse(checked)",
                       "    checked = validate(data)  # range 1–10\n    result = parse(checked, strict=True)")
    assert isinstance(dashes, EditPlan)
    assert dashes.new_content == CODE.replace("parse(checked)", "parse(checked, strict=True)")
    assert "1-10" in dashes.new_content and "–" not in dashes.new_content


def test_a_file_with_typographic_characters_keeps_them() -> None:
    text = "title = “Hello”\nsubtitle = 'a – b'\nend = 1\n"
    plan = plan_edit(text, 'title = "Hello"\nsubtitle = \'a - b\'\n', 'title = "Hello"\nsubtitle = \'a - c\'\n')
    assert isinstance(plan, EditPlan)
    assert plan.new_content.startswith("title = “Hello”\n")  # the kept line as the file has it


@pytest.mark.parametrize("marker", ["    ...", "    # ...", "    // ... unchanged ...", "    …"])
def test_elision_keeps_the_elided_lines(marker: str) -> None:
    old = f"def load(path):\n{marker}\n    result = parse(checked)\n"
    new = f"def load(path):\n{marker}\n    result = parse(checked, strict=True)\n"
    plan = plan_edit(CODE, old, new)
    assert isinstance(plan, EditPlan) and "elision" in (plan.correction or "")
    assert plan.new_content == CODE.replace("parse(checked)", "parse(checked, strict=True)")


def test_elision_is_refused_when_unclear() -> None:
    twice = CODE + "\n" + CODE.replace("def load", "def load_again")
    old = "    name = 'config'\n    ...\n    return result\n"
    # the parts occur in order in two places
    assert isinstance(plan_edit(twice, old, "    name = 'x'\n    ...\n    return result\n"), EditMiss)
    # new_string drops the elision: were the elided lines meant to go? a guess either way
    assert isinstance(plan_edit(CODE, old, "    name = 'x'\n    return result\n"), EditMiss)
    # a change next to the elision, where the elided lines are: before or after them?
    assert isinstance(plan_edit(CODE, old, "    name = 'x'\n    added()\n    ...\n    return result\n"),
                      EditPlan)  # after `name`, before the elided lines: where new_string puts it
    inside = plan_edit(CODE, "    name = 'config'\n    ...\n    return result\n",
                       "    name = 'config'\n    ...\n    extra()\n    return result\n")
    assert isinstance(inside, EditPlan) and inside.new_content == CODE.replace(
        "    return result", "    extra()\n    return result")


def test_approximate_match_for_a_typo_names_the_region() -> None:
    tail = "    checked = validate(data)  # range 1-10\n"
    old = "    with open(path) as handle:\n        data = handle.raed()\n" + tail
    new = "    with open(path) as handle:\n        data = handle.read(4096)\n" + tail
    plan = plan_edit(CODE, old, new)
    assert isinstance(plan, EditPlan)
    assert (plan.correction or "").startswith("used an approximate match: lines 3-5 (similarity 0.9")
    assert plan.new_content == CODE.replace("handle.read()", "handle.read(4096)")


def test_approximate_match_keeps_a_line_left_out() -> None:
    old = "    with open(path) as handle:\n    checked = validate(data)  # range 1-10\n    result = parse(checked)\n"
    new = "    with open(path) as handle:\n    checked = validate(data)  # range 1-10\n    result = parse(data)\n"
    plan = plan_edit(CODE, old, new)
    assert isinstance(plan, EditPlan) and "approximate match: lines 3-6" in (plan.correction or "")
    assert plan.new_content == CODE.replace("parse(checked)", "parse(data)")  # `data = ...` still there


def test_approximate_match_needs_a_clear_margin() -> None:
    # two regions one slip away from old_string: neither is clearly the one
    text = "a = compute(1)\nb = compute(2)\n\nx = compute(1)\nb = compute(2)\n"
    miss = plan_edit(text, "q = compute(1)\nb = compute(2)\n", "q = compute(1)\nb = compute(3)\n")
    assert isinstance(miss, EditMiss) and miss.closest is not None
    # one line is never enough
    assert isinstance(plan_edit("x = compute(1)\n", "x = compote(1)\n", "x = compute(2)\n"), EditMiss)
    # a changed line of old_string that is not one slip away (another line, not a typo of it)
    assert isinstance(plan_edit(CODE, "def load(path):\n    nombre = 'config'\n", "def load(path):\n    n = 1\n"),
                      EditMiss)


def test_one_slip_is_exactly_one_character() -> None:
    rng = random.Random(3)
    for _ in range(300):
        word = "".join(rng.choice("abcdef") for _ in range(rng.randint(2, 12)))
        i = rng.randrange(len(word))
        for slipped in (word[:i] + word[i + 1:], word[:i] + "z" + word[i:], word[:i] + "z" + word[i + 1:],
                        word[:i] + word[i + 1:i + 2] + word[i] + word[i + 2:]):
            assert one_slip(slipped, word) and one_slip(word, slipped)
        assert not one_slip(word + "zz", word)


def test_shifted_indentation_writes_the_kept_lines_as_the_file_has_them() -> None:
    text = "class A:\n    def f(self):  \n        x = 1\n        return x\n"  # a kept line with trailing spaces
    plan = plan_edit(text, "def f(self):\n    x = 1\n    return x\n", "def f(self):\n    x = 2\n    return x\n")
    assert isinstance(plan, EditPlan) and "indentation" in (plan.correction or "")
    assert plan.new_content == text.replace("x = 1", "x = 2")


async def test_the_review_and_the_result_say_approximate_match(root: Path) -> None:
    target = root / "m.py"
    target.write_text(CODE)
    tool = ReplaceTool(Workspace(root))
    params = tool.validate_params({
        "file_path": str(target), "old_string": "    result = prase(checked)\n    log.info(\"loaded %s\", name)\n",
        "new_string": "    result = parse(checked)\n    log.info(\"loaded %s from %s\", name, path)\n"})
    details = await tool.should_confirm_execute(params, AbortSignal())  # type: ignore[arg-type]
    assert details is not None and "approximate match: lines 6-7" in details.title
    result = await tool.execute(params, AbortSignal())  # type: ignore[arg-type]
    assert result.ok and "approximate match: lines 6-7" in str(result.llm_content)
    assert target.read_text() == CODE.replace('"loaded %s", name', '"loaded %s from %s", name, path')
    # without a clear margin it fails as before, naming the closest region
    target.write_text(CODE + CODE.replace("def load", "def again"))
    failed = await tool.execute(params, AbortSignal())  # type: ignore[arg-type]
    assert failed.error is not None and failed.error.kind is ToolErrorKind.edit_no_occurrence
    assert "closest region" in str(failed.llm_content)


@pytest.mark.parametrize(("base", "theirs", "ours", "carried"), [
    # (old_string's line, the file's line, new_string's line made from old_string's) -> what is written
    ("data = handle.raed()", "data = handle.read()", "data = handle.raed()  # checked",
     "data = handle.read()  # checked"),  # the typo is not written
    ("x  =  f( a )", "x = f(a)", "x  =  f( a, b )", "x = f(a, b)"),  # the file's spacing
    ("say(\u201chi\u201d)", 'say("hi")', "say(\u201chi\u201d, loud)", 'say("hi", loud)'),  # its quotes
    ("value = 1", "value = 1  ", "value = 2", "value = 2  "),
    ("x   ", "x", "x     # note", "x  # note"),  # the model's trailing spaces, not its separator
    ("x  ", "x", "x  # note", "x  # note"),
    ("data = handle.raed()", "data = handle.read()", "data = handle.read(4096)", "data = handle.read(4096)"),
    ("retrun total", "return total", "retrun_v2 total", "return_v2 total"),
    ("retrun total", "return total", "yield total", None),  # both change the same characters
    ("count = 10", "count = 12", "count = 11", None),
    ("data = handle.raed()", "data = handle.read()", "data = handle.load()", None),  # one word, both change it
])
def test_a_changed_line_carries_the_files_differences(base: str, theirs: str, ours: str,
                                                      carried: str | None) -> None:
    from gemini_tui.tools.replace.three_way import carry

    assert carry(base, theirs, ours) == carried


def test_a_slip_in_the_changed_characters_is_refused_naming_the_lines() -> None:
    content = "def load(path):\n    total = retrieve(path)\n    return total\n"
    old = "def load(path):\n    total = retreive(path)\n    return total\n"
    plan = plan_edit(content, old, old.replace("retreive", "fetch"))
    assert isinstance(plan, EditMiss) and plan.closest is not None and plan.unclear is not None
    assert plan.closest[:2] == (1, 3) and "retrieve(path)" in plan.closest[2]
    assert "lines 1-3" in plan.unclear


STALE = CODE.replace("    result = parse(checked)\n", "    result = parse(checked, strict=True)\n")  # changed since
EXTRA = "    checked = validate(data)  # range 1-10\n    data = normalize(data)\n"  # a line the file never had


@pytest.mark.parametrize(("content", "old", "new", "after"), [
    # a line changed in the file since the model read it: kept as the file has it; the edit goes on around it
    (STALE, CODE[16:], CODE[16:].replace("return result", "return result or {}"),
     STALE.replace("return result", "return result or {}")),
    (STALE, CODE[16:], CODE[16:].replace("    return result\n", "    log.debug(name)\n    return result\n"),
     STALE.replace("    return result\n", "    log.debug(name)\n    return result\n")),
    (STALE, CODE[16:], CODE[16:].replace("parse(checked)", "parse(checked, strict=False)"), None),  # changes it
    (STALE, CODE[16:], CODE[16:].replace("    result = parse(checked)\n", ""), None),  # removes it
    # a line old_string has that the file lacks: dropped when new_string keeps it, refused when it changes it
    (CODE, CODE[16:].replace("    checked = validate(data)  # range 1-10\n", EXTRA),
     CODE[16:].replace("    checked = validate(data)  # range 1-10\n", EXTRA).replace("return result", "return 1"),
     CODE.replace("return result", "return 1")),
    (CODE, CODE[16:].replace("    checked = validate(data)  # range 1-10\n", EXTRA),
     CODE[16:].replace("    checked = validate(data)  # range 1-10\n", EXTRA).replace("normalize", "clean"), None),
], ids=["stale-kept", "stale-insert-elsewhere", "stale-changed", "stale-removed", "extra-kept", "extra-changed"])
def test_a_stale_or_extra_line_is_explained_or_refused(content: str, old: str, new: str,
                                                       after: str | None) -> None:
    plan = plan_edit(content, old, new)
    if after is None:
        assert isinstance(plan, EditMiss) and plan.closest is not None
    else:
        assert isinstance(plan, EditPlan), plan
        assert plan.new_content == after
        assert "approximate match" in (plan.correction or "")


def test_a_stale_line_in_a_duplicated_block_is_refused() -> None:
    block = CODE[16:]
    content = CODE + "\ndef reload(path):\n" + block
    old = block.replace("handle.read()", "handle.read_all(path)")  # a stale line: both copies are as alike
    plan = plan_edit(content, old, old.replace("return result", "return None"))
    assert isinstance(plan, EditMiss) and plan.closest is not None and plan.unclear is not None
    # the refusal names the closest lines and the other place as alike
    assert "is not clearly the one" in plan.unclear and "nearly as alike" in plan.unclear
    assert f"lines {plan.closest[0]}-{plan.closest[1]}" in plan.unclear


@pytest.mark.parametrize(("written", "applied"), [
    (CODE[16:].replace("parse(checked)", "parse(checked, strict=True)"), True),  # the elided lines as they are
    (CODE[16:].replace("parse(checked)", "parse(checked, strict=True)").replace("handle.read()", "handle.read(9)"),
     False),  # new_string changes a line old_string never showed
])
def test_elision_with_new_string_written_out(written: str, applied: bool) -> None:
    old = "    name = 'config'\n    # ... existing code ...\n    result = parse(checked)\n"
    lines = written.split("\n")
    new = "\n".join(lines[:lines.index("    result = parse(checked, strict=True)") + 1]) + "\n"
    plan = plan_edit(CODE, old, new)
    if applied:
        assert isinstance(plan, EditPlan) and "elision" in (plan.correction or "")
        assert plan.new_content == CODE.replace("parse(checked)", "parse(checked, strict=True)")
    else:
        assert isinstance(plan, EditMiss) and plan.unclear is not None
