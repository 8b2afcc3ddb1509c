"""A session's checkpoints: taken before every call that can change files, listed, planned and restored."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gemini_tui.core.ground.events import ToolCallInfo
from gemini_tui.core.persistence.records import CheckpointRecord
from gemini_tui.core.persistence.shadow_repo import CheckpointError, FileRestorer, RestorePlan, ShadowRepo

log = logging.getLogger(__name__)


def shadow_dir(gemini_dir: Path, root: Path) -> Path:
    """`~/.gemini/history/<project hash>`, where Gemini CLI keeps its shadow repositories too."""
    return gemini_dir / "history" / hashlib.sha256(str(root).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RestoreOutcome:
    restored: tuple[str, ...]
    failed: tuple[str, ...]

    @property
    def text(self) -> str:
        parts = [f"Restored {len(self.restored)} file(s)."]
        if self.failed:
            parts.append("Not restored: " + "; ".join(self.failed))
        return " ".join(parts)


class Checkpointer:
    """Snapshots before file-changing calls, for one session. A failure to snapshot is reported once and the
    call still runs (checkpoints are a way back, not a permission)."""

    def __init__(self, repo: ShadowRepo, files: FileRestorer, report: Callable[[str], None]) -> None:
        self.repo = repo
        self.files = files
        self.report = report
        self.records: list[CheckpointRecord] = []
        self.agent_state: str | None = None  # the workspace tree after the agent's last change
        self.disabled: str | None = ShadowRepo.git_missing()
        if self.disabled:
            report(f"Checkpoints are off: {self.disabled}")

    async def before(self, call: ToolCallInfo, session_id: str, position: int, prompt_index: int,
                     ) -> CheckpointRecord | None:
        if self.disabled:
            return None
        message = {"tool": call.name, "description": call.description, "session": session_id,
                   "position": position, "prompt": prompt_index}
        try:
            commit = await asyncio.to_thread(self.repo.snapshot, message)
        except (CheckpointError, OSError) as exc:
            self.disabled = str(exc)
            self.report(f"Checkpoints are off for this session: {exc}")
            return None
        record = CheckpointRecord(commit, call.name, call.description, time.time(), position, prompt_index,
                                  session_id)
        self.records.append(record)
        return record

    async def after(self) -> None:
        if self.disabled:
            return
        try:
            self.agent_state = await asyncio.to_thread(self.repo.tree_now)
        except (CheckpointError, OSError) as exc:
            log.warning("could not record the state after a change: %s", exc)

    def find(self, which: str) -> CheckpointRecord:
        """A checkpoint by its number in `/restore`'s list (1 = oldest) or the start of its id."""
        which = which.strip()
        if not self.records:
            raise LookupError("No checkpoints in this session yet (one is taken before each edit or command).")
        if which.isdigit() and 0 < int(which) <= len(self.records) and len(which) < 4:
            return self.records[int(which) - 1]
        matches = [r for r in self.records if r.id.startswith(which)] if len(which) >= 4 else []
        if len(matches) == 1:
            return matches[0]
        raise LookupError(f"No checkpoint {which!r}: /restore lists them (1 to {len(self.records)}).")

    async def plan(self, record: CheckpointRecord) -> RestorePlan:
        return await asyncio.to_thread(self.repo.plan, record.id, self.agent_state)

    async def restore(self, plan: RestorePlan) -> RestoreOutcome:
        failed = await asyncio.to_thread(self.repo.restore, plan, self.files)
        bad = {f.split(":", 1)[0] for f in failed}
        done = tuple(c.path for c in plan.changes if c.path not in bad)
        try:
            self.agent_state = await asyncio.to_thread(self.repo.tree_now)
        except CheckpointError:
            self.agent_state = None
        return RestoreOutcome(done, tuple(failed))

    def forget_from(self, prompt_index: int) -> None:
        """Checkpoints of prompts that a rewind removed."""
        self.records = [r for r in self.records if r.prompt_index < prompt_index]
