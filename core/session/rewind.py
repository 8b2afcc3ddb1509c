"""Going back: checkpoints taken before each file-changing call, and `/restore`, `/undo` and `/rewind` from them."""

from __future__ import annotations

from gemini_tui.core.ground.events import ToolCallInfo
from gemini_tui.core.ground.parts import TextPart
from gemini_tui.core.persistence.checkpoints import Checkpointer, RestoreOutcome
from gemini_tui.core.persistence.records import CheckpointRecord
from gemini_tui.core.persistence.shadow_repo import RestorePlan
from gemini_tui.core.session.scheduler import Scheduler
from gemini_tui.core.session.state import SessionState


class Rewind:
    """Checkpoints (through the scheduler's before/after-change hooks) and the ways back to one of them."""

    def __init__(self, state: SessionState) -> None:
        self.state = state

    def enable(self, checkpointer: Checkpointer, scheduler: Scheduler) -> None:
        """Snapshots before every call that can change files (the wiring gives the shadow repository)."""
        self.state.checkpointer = checkpointer
        scheduler.before_change = self._before
        scheduler.after_change = self._after

    async def _before(self, call: ToolCallInfo) -> None:
        state = self.state
        assert state.checkpointer is not None
        marks = state.prompt_marks
        position = marks[-1].position if marks else len(state.conversation)
        record = await state.checkpointer.before(call, state.session_id, position, max(0, len(marks) - 1))
        if record is not None and state.recorder is not None:
            state.record({"kind": "checkpoint", "id": record.id, "tool": record.tool,
                          "description": record.description, "created": record.created,
                          "position": record.position, "prompt_index": record.prompt_index})
            state.autosave()

    async def _after(self, call: ToolCallInfo) -> None:
        assert self.state.checkpointer is not None
        await self.state.checkpointer.after()
        self._record_agent_state()

    def _record_agent_state(self) -> None:
        """Kept in the session so that, resumed, a restore still knows which changes were made by hand."""
        checkpointer = self.state.checkpointer
        if checkpointer is not None and checkpointer.agent_state is not None:
            self.state.record({"kind": "agent_state", "tree": checkpointer.agent_state})

    def list(self) -> list[CheckpointRecord]:
        return list(self.state.checkpointer.records) if self.state.checkpointer is not None else []

    def _checkpoints(self) -> Checkpointer:
        checkpointer = self.state.checkpointer
        if checkpointer is None:
            raise LookupError("Checkpoints are off (general.checkpointing.enabled is false).")
        if checkpointer.disabled and not checkpointer.records:
            raise LookupError(f"No checkpoints: {checkpointer.disabled}")
        if self.state.is_running:
            raise RuntimeError("A turn is running: wait for it to end (or press Esc to cancel it), then restore.")
        return checkpointer

    async def plan_restore(self, which: str) -> tuple[CheckpointRecord, RestorePlan]:
        """What `/restore <which>` would change (nothing is written yet)."""
        checkpoints = self._checkpoints()
        record = checkpoints.find(which)
        return record, await checkpoints.plan(record)

    async def restore(self, record: CheckpointRecord, plan: RestorePlan, *,
                      conversation: bool = True) -> RestoreOutcome:
        """Puts the files of `plan` back and (with `conversation`) rewinds to the prompt that led to the call."""
        outcome = await self._checkpoints().restore(plan)
        self._record_agent_state()
        if conversation:
            self.rewind_conversation(record.prompt_index, fallback_position=record.position)
        return outcome

    async def plan_undo(self) -> tuple[CheckpointRecord, RestorePlan]:
        checkpoints = self._checkpoints()
        if not checkpoints.records:
            raise LookupError("Nothing to undo: no file-changing call has run in this session.")
        record = checkpoints.records[-1]
        return record, await checkpoints.plan(record)

    async def undo(self, record: CheckpointRecord, plan: RestorePlan) -> RestoreOutcome:
        """`/undo`: the files changed by the last file-changing call go back; the model is told with the next
        prompt. The checkpoint is used up, so another `/undo` goes one further back."""
        checkpoints = self._checkpoints()
        outcome = await checkpoints.restore(plan)
        self._record_agent_state()
        checkpoints.records = [r for r in checkpoints.records if r.id != record.id]
        self.state.conversation.append_user([TextPart(
            f"[The user undid the last change: {record.tool} ({record.description}). Files back as before it: "
            f"{', '.join(c.path for c in plan.changes) or 'none changed'}.]")])
        if self.state.recorder is not None:
            self.state.record({"kind": "uncheckpoint", "id": record.id})
            self.state.autosave()
        return outcome

    def rewind_conversation(self, prompt_index: int, *, fallback_position: int | None = None) -> str:
        """Drops prompt number `prompt_index` (0-based) and everything after it; returns its text."""
        state = self.state
        if state.is_running:
            raise RuntimeError("A turn is running: wait for it to end (or press Esc to cancel it), then rewind.")
        if prompt_index < len(state.prompt_marks):
            mark = state.prompt_marks[prompt_index]
            position, text = mark.position, mark.text
        elif fallback_position is not None:
            position, text = fallback_position, ""
        else:
            raise LookupError(f"No prompt {prompt_index + 1} in this session.")
        state.conversation.truncate_to(min(position, len(state.conversation)))
        del state.prompt_marks[prompt_index:]
        if state.checkpointer is not None:
            state.checkpointer.forget_from(prompt_index)
        if state.recorder is not None:
            state.recorder.prompts = min(state.recorder.prompts, prompt_index)
            state.record({"kind": "rewind", "prompt": prompt_index})
            state.autosave()
        return text

    async def plan_rewind_files(self, prompt_index: int) -> tuple[CheckpointRecord, RestorePlan] | None:
        """The files as they were before prompt `prompt_index` changed anything (None: it changed nothing)."""
        checkpoints = self._checkpoints()
        later = [r for r in checkpoints.records if r.prompt_index >= prompt_index]
        if not later:
            return None
        return later[0], await checkpoints.plan(later[0])
