"""Generated model turns for counting approval decisions, and the oracle that says what each call's decision
must be: read-only, edit and shell calls, unknown tools and bad arguments, a denied command, under every
approval mode, answered yes / always / no / modified, cancelled while asked or while running.

The oracle is written from the rule, not from the scheduler: `auto_accept` when nobody was asked, the user's
answer when asked (`accept`, `reject`, `modify`), nothing when the call ended before any decision (bad call,
refused by a rule or mode, cancelled before or while asked); a call cancelled while it ran keeps its decision."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# the command settings forbid (tools.exclude), so one kind of call is refused by a rule
EXCLUDED = "run_shell_command(rm)"
KINDS = ("read", "read_missing", "write", "shell", "shell_pair", "long_shell", "unknown", "invalid", "denied")
WEIGHTS = (18, 6, 22, 18, 8, 2, 4, 4, 4)
ANSWERS = ("once", "always", "reject", "modify", "abort")
ANSWER_WEIGHTS = (45, 3, 30, 17, 5)  # "always" is rare: one grant silences the rest
MODES = ("default", "default", "default", "default", "auto_edit", "yolo", "plan")
KEY = re.compile(r"K(\d+)X")


@dataclass
class Planned:
    kind: str
    key: int
    answer: str  # what the user answers if asked (modify only for edits)
    expected: str | None = None  # filled by the oracle
    asked: bool = False

    @property
    def roots(self) -> frozenset[str]:
        return frozenset({"echo"} if self.kind == "shell" else {"true", "echo"} if self.kind == "shell_pair"
                         else {"sleep", "echo"} if self.kind == "long_shell" else set())

    def call(self, root: Path) -> tuple[str, dict[str, Any]]:
        k = f"K{self.key}X"
        match self.kind:
            case "read":
                return "read_file", {"file_path": str(root / "present.txt")} | {"limit": 5 + self.key}
            case "read_missing":
                return "read_file", {"file_path": str(root / f"missing-{k}.txt")}
            case "write":
                return "write_file", {"file_path": str(root / f"w-{k}.txt"), "content": f"{k}\n"}
            case "shell":
                return "run_shell_command", {"command": f"echo {k}"}
            case "shell_pair":
                return "run_shell_command", {"command": f"true && echo {k}"}
            case "long_shell":
                return "run_shell_command", {"command": f"sleep 5 && echo {k}"}
            case "unknown":
                return "delete_everything", {"target": k}
            case "invalid":
                return "write_file", {"file_path": str(root / f"bad-{k}.txt")}  # no content
            case _:
                return "run_shell_command", {"command": f"rm -f gone-{k}.tmp"}


def key_of(args: dict[str, Any]) -> int | None:
    """The planned call's key, found in its arguments (read_file's `limit` carries it for present.txt)."""
    found = KEY.search(json.dumps(args))
    if found:
        return int(found.group(1))
    if "limit" in args:
        return int(args["limit"]) - 5
    return None


@dataclass
class Turn:
    mode: str
    calls: list[Planned]
    user_runs: list[str] = field(default_factory=list)  # "shell", "memory", "mention": the user's own calls

    @property
    def cancelled(self) -> bool:
        return any(c.asked and c.answer == "abort" for c in self.calls) or any(
            c.kind == "long_shell" and c.expected in ("accept", "auto_accept") for c in self.calls)


def generate(rng: random.Random, turns: int, max_calls: int = 5, *, modes: tuple[str, ...] = MODES,
             long_calls: bool = True, user_runs: bool = True) -> list[Turn]:
    plan: list[Turn] = []
    key = 0
    for _ in range(turns):
        calls = []
        for _ in range(rng.randint(1, max_calls)):
            kind = rng.choices(KINDS, WEIGHTS)[0]
            if kind == "long_shell" and not long_calls:
                kind = "shell"
            answer = rng.choices(ANSWERS, ANSWER_WEIGHTS)[0]
            if answer == "modify" and kind != "write":
                answer = "once"
            calls.append(Planned(kind, key, answer))
            key += 1
        runs = [rng.choice(("shell", "memory", "mention")) for _ in range(rng.random() < 0.25)] if user_runs else []
        plan.append(Turn(rng.choice(modes), calls, runs))
    return plan


def decide(plan: list[Turn], interactive: bool = True) -> dict[str, int]:
    """Fills each call's expected decision (and whether it is asked); returns the expected totals."""
    grants: set[str] = set()
    totals = dict.fromkeys(("accept", "reject", "modify", "auto_accept"), 0)
    for turn in plan:
        stopped = False  # the turn was cancelled: nothing after that point gets a decision
        for c in turn.calls:
            c.expected, c.asked = None, False
            if stopped or c.kind in ("unknown", "invalid", "denied"):
                continue
            if c.kind in ("read", "read_missing"):
                c.expected = "auto_accept"
            elif turn.mode == "plan":
                continue  # plan mode refuses what is not read-only: no decision
            elif (turn.mode in ("auto_edit", "yolo") or "edit" in grants if c.kind == "write"
                  else turn.mode == "yolo" or c.roots <= grants):
                c.expected = "auto_accept"  # a mode or a grant let it run
            elif not interactive:
                continue  # headless refuses what it would have to ask: no decision
            else:
                c.asked = True
                match c.answer:
                    case "once":
                        c.expected = "accept"
                    case "always":
                        c.expected = "accept"
                        grants |= {"edit"} if c.kind == "write" else c.roots
                    case "reject":
                        c.expected = "reject"
                    case "modify":
                        c.expected = "modify"
                    case _:
                        stopped = True  # cancelled while asked: nobody answered
            if c.kind == "long_shell" and c.expected in ("accept", "auto_accept"):
                stopped = True  # cancelled while it runs: it keeps its decision, the rest of the turn has none
        for c in turn.calls:
            if c.expected is not None:
                totals[c.expected] += 1
    return totals


def by_key(plan: list[Turn]) -> dict[int, Planned]:
    return {c.key: c for turn in plan for c in turn.calls}


def replies_for(turn: Turn, root: Path) -> list[Any]:
    """The fake Gemini server's replies for one turn: the calls, then (unless the turn is cancelled) an answer."""
    from tests.fakes.gemini_server import call, reply, text

    first = reply(*(call(*c.call(root)) for c in turn.calls))
    return [first] if turn.cancelled else [first, reply(text("Done."))]
