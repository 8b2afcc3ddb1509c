"""Plan mode's section of the system instruction: the plans folder named, and how the plan ends told as it is
in this run (a user who approves, or nobody)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemini_tui.core.session.plan_instruction import plan_mode_section


@pytest.mark.parametrize(("interactive", "said", "not_said"), [
    (True, ["The user reads the plan and approves it", "`ask_user`"], ["Nobody reviews it"]),
    (False, ["Nobody reviews it in this run"], ["`ask_user`", "The user reads the plan"]),
])
def test_the_section_names_the_folder_and_how_the_plan_ends(tmp_path: Path, interactive: bool, said: list[str],
                                                            not_said: list[str]) -> None:
    section = plan_mode_section(tmp_path / "plans", interactive)
    assert f"`{tmp_path / 'plans'}/`" in section and "`exit_plan_mode`" in section
    assert all(words in section for words in said)
    assert not any(words in section for words in not_said)
