"""The one key map of every confirmation (the inline one, the diff review, the trust question, the rewind and loop
questions): a decision key means the same on each, and the keys that move (between changes, hunks) are never
decision keys. The screens bind these; the help and tests/app/test_key_map.py read them."""

from __future__ import annotations

ALLOW_ONCE = "y"
ALLOW_SESSION = "a"
ALLOW_ALWAYS = "A"  # saved: this folder, every later session
ALLOW_SERVER = "s"  # every tool of an MCP server (only where an MCP tool asks)
REJECT = "n"
REJECT_ESC = "escape"  # rejects too (in a text field: leaves it without a reason)
REJECT_WITH_REASON = "r"
EDIT_PLAN = "ctrl+x"  # a plan waiting for approval, in $VISUAL/$EDITOR (Gemini CLI's key)

# key -> what it decides, on every confirmation that offers it
DECISIONS: dict[str, str] = {
    ALLOW_ONCE: "allow once",
    ALLOW_SESSION: "allow for the session",
    ALLOW_ALWAYS: "allow always",
    ALLOW_SERVER: "allow every tool of the server",
    REJECT: "reject",
    REJECT_ESC: "reject",
    REJECT_WITH_REASON: "reject with a reason",
}

# moving keys: next/previous hunk and next/previous change in the diff review
NEXT_HUNK, PREVIOUS_HUNK = "j", "k"
NEXT_CHANGE, PREVIOUS_CHANGE = "right_square_bracket", "left_square_bracket"  # ] and [
MOVES = frozenset({NEXT_HUNK, PREVIOUS_HUNK, NEXT_CHANGE, PREVIOUS_CHANGE})
