"""The ACP front end's pure mappings, over every case of what they map."""

from __future__ import annotations

import itertools
from pathlib import Path

import acp
import pytest

from gemini_tui.cli.acp import updates
from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.confirmation import (
    ConfirmationOutcome,
    EditConfirmation,
    ExecConfirmation,
    InfoConfirmation,
    McpConfirmation,
)
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.events import CallState
from gemini_tui.core.ground.parts import InlineDataPart, TextPart

DETAILS = [
    EditConfirmation("Edit", "/r/a", FileDiff("a", "/r/a", "x\n", "y\n", "", 1, 1)),
    ExecConfirmation("Run", "git status && rm -f x", ("git", "rm")),
    McpConfirmation("Call", "srv", "tool", "Tool", '{"a": 1}'),
    InfoConfirmation("Fetch", "get it", ("https://example.com",)),
]


@pytest.mark.parametrize("details", DETAILS, ids=lambda d: type(d).__name__)
def test_every_question_offers_once_session_and_reject_as_core_outcomes(details: object) -> None:
    options = updates.permission_options(details)  # type: ignore[arg-type]
    kinds = [o.kind for o in options]
    assert kinds[0] == "allow_once" and kinds[-1] == "reject_once" and "allow_always" in kinds
    assert len({o.option_id for o in options}) == len(options)
    for option in options:  # each id is an outcome the core knows, and maps back to itself
        assert updates.outcome_for(option.option_id, options) is ConfirmationOutcome(option.option_id)
    offered = {o.option_id for o in options}
    for outcome in ConfirmationOutcome:  # what was not offered (or nothing) rejects
        if outcome.value not in offered:
            assert updates.outcome_for(outcome.value, options) is ConfirmationOutcome.cancel
    assert updates.outcome_for(None, options) is ConfirmationOutcome.cancel


def test_every_call_state_has_an_acp_status() -> None:
    assert {updates.STATUS[state] for state in CallState} <= {"pending", "in_progress", "completed", "failed"}
    assert all(updates.STATUS[state] in ("completed", "failed") for state in CallState if state.is_final)


def test_modes_are_gemini_clis_ids_for_every_approval_mode() -> None:
    for mode in ApprovalMode:
        state = updates.mode_state(mode)
        assert updates.MODES[state.current_mode_id][0] is mode
    assert [m.id for m in updates.mode_state(ApprovalMode.default, ["yolo"]).available_modes] == [
        "default", "autoEdit", "plan"]


@pytest.mark.parametrize("keys", [c for n in range(1, 3) for c in itertools.combinations(updates.PATH_KEYS, n)])
def test_locations_are_absolute_for_every_path_argument(keys: tuple[str, ...]) -> None:
    root = Path("/work/root")
    args = {key: f"sub/{key}.txt" for key in keys} | {"other": "x"}
    assert [loc.path for loc in updates.locations(args, root)] == [str(root / "sub" / f"{k}.txt") for k in keys]
    assert [loc.path for loc in updates.locations({k: "/abs/f" for k in keys}, root)] == ["/abs/f"] * len(keys)


def test_prompt_blocks_become_text_mentions_and_inline_data() -> None:
    root = Path("/work/root")
    link = acp.resource_link_block("my notes.md", (root / "my notes.md").as_uri())
    elsewhere = acp.resource_link_block("site", "https://example.com/page")
    embedded = acp.resource_block(acp.embedded_text_resource("file:///x.txt", "body"))
    text = updates.prompt_from_blocks([acp.text_block("see"), link, elsewhere, embedded], root)
    assert isinstance(text, str)
    assert "@my\\ notes.md" in text and "[site](https://example.com/page)" in text and "body" in text
    parts = updates.prompt_from_blocks([acp.text_block("and"), acp.image_block("aGVsbG8=", "image/png")], root)
    assert parts == [TextPart("and"), InlineDataPart("image/png", "aGVsbG8=")]
    with pytest.raises(ValueError):
        updates.prompt_from_blocks([acp.resource_block(acp.embedded_blob_resource("file:///b", "not base64!"))], root)
