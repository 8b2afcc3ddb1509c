"""The offline model's answer to a compression request: a state snapshot made from the history alone, so the same
history always gives the same snapshot."""

from __future__ import annotations

from collections.abc import Sequence

from gemini_tui.core.ground.compression_request import FINAL_ASK
from gemini_tui.core.ground.model_api import Content, FunctionCall, FunctionResponse
from gemini_tui.core.ground.parts import TextPart


def _is_prompt(content: Content) -> bool:
    return content.role == "user" and not any(isinstance(p, FunctionResponse) for p in content.parts)


def deterministic_snapshot(contents: Sequence[Content]) -> str:
    """The offline model's summary: the same history always gives the same snapshot."""
    prompts = [" ".join(p.text for p in c.parts if isinstance(p, TextPart)).strip()
               for c in contents if _is_prompt(c)]
    prompts = [p for p in prompts if p and p != FINAL_ASK and not p.endswith(FINAL_ASK)]
    calls = [p for c in contents for p in c.parts if isinstance(p, FunctionCall)]
    paths = sorted({str(v) for call in calls for k, v in call.args.items()
                    if k in ("path", "file_path", "absolute_path", "dir_path") and isinstance(v, str)})
    answers = [" ".join(p.text for p in c.parts if isinstance(p, TextPart)).strip()
               for c in contents if c.role == "model"]
    answers = [a for a in answers if a]
    goal = prompts[0] if prompts else "(no prompt yet)"
    lines = ["<state_snapshot>", f"<overall_goal>{goal}</overall_goal>", "<key_knowledge>"]
    lines += [f"- the user asked: {p[:200]}" for p in prompts[-10:]]
    lines += ["</key_knowledge>", "<file_system_state>"]
    lines += [f"- {p}" for p in paths[:50]]
    lines += ["</file_system_state>", "<recent_actions>"]
    lines += [f"- {c.name}({', '.join(f'{k}={str(v)[:60]}' for k, v in c.args.items())})" for c in calls[-10:]]
    lines += ["</recent_actions>", "<current_plan>"]
    lines += [f"- [DONE] {a[:200]}" for a in answers[-3:]]
    lines += ["</current_plan>", "</state_snapshot>"]
    return "\n".join(lines)
