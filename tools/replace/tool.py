"""The `replace` tool (Edit): replace exact text in a file, with a deterministic correction ladder and a diff."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import EditConfirmation, EditUnavailable
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.models.edit_fixer import EditFix, EditFixer
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams
from gemini_tui.tools.replace.correction import EditMiss, EditPlan, plan_edit
from gemini_tui.tools.replace.model_tier import accept_fix, fix_request
from gemini_tui.tools.workspace import FileType, Workspace, WorkspaceError, sniff_file
from gemini_tui.tools.workspace.confined import OutsideRootError
from gemini_tui.tools.workspace.text_file import TextFile, read_text, write_text
from gemini_tui.tools.workspace.writable import after_approval, led_out, read_only_reason, unavailable


class ReplaceParams(ToolParams):
    # Gemini CLI's smart edit sends a one-line `instruction`; its own bookkeeping fields ride along too
    gemini_cli_names: ClassVar[dict[str, str | None]] = {
        "instruction": None, "modified_by_user": None, "ai_proposed_content": None, "absolute_path": "file_path"}
    file_path: str = Field(description="The absolute path of the file to modify (a path relative to the root "
                                       "directory also works).")
    old_string: str = Field(
        description="The exact literal text to replace, including whitespace and indentation. It must identify "
        "the place uniquely: include at least 3 lines of context before and after the target. Empty to create "
        "a new file.")
    new_string: str = Field(description="The exact literal text to replace old_string with.")
    expected_replacements: int = Field(
        default=1, ge=1, description="How many occurrences to replace (default 1); every one is replaced.")


@dataclass(frozen=True)
class _Outcome:
    """What an edit would do: the file before and after, or the error that stops it."""

    path: Path
    before: TextFile | None
    after: str = ""
    occurrences: int = 0
    correction: str | None = None
    error: ToolError | None = None
    miss: EditMiss | None = None  # why the ladder found no place (the model tier may still)

    @property
    def is_new_file(self) -> bool:
        return self.before is None


class ReplaceTool(BaseTool[ReplaceParams]):
    name = "replace"
    display_name = "Edit"
    kind = ToolKind.edit
    Params = ReplaceParams
    description = (
        "Replaces text within a file. By default replaces a single occurrence; set expected_replacements to "
        "replace several. Read the file first (read_file) and copy old_string exactly, with at least 3 lines of "
        "context around the change, so it matches one place only. An empty old_string creates a new file "
        "whose content is new_string. The user reviews the change as a diff before it is written."
    )

    def __init__(self, workspace: Workspace, fixer: EditFixer | None = None) -> None:
        self.workspace = workspace
        self.fixer = fixer  # the model tier (set by the session; None: off, offline model, disableLLMCorrection)
        self._fixes: dict[tuple[str, str, str, int], EditFix | None] = {}  # one model request per edit

    async def _planned(self, params: ReplaceParams, explain: bool = True) -> _Outcome:
        """The ladder's plan; when it finds no place, the model tier's."""
        outcome = await asyncio.to_thread(self._plan, params, explain)
        if outcome.miss is None or outcome.before is None or self.fixer is None:
            return outcome
        return await self._model_fix(params, outcome)

    async def _model_fix(self, params: ReplaceParams, outcome: _Outcome) -> _Outcome:
        assert outcome.before is not None and self.fixer is not None
        content = outcome.before.content
        key = (hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest(), params.old_string,
               params.new_string, params.expected_replacements)
        if key in self._fixes:
            fix = self._fixes[key]
        else:
            request = await asyncio.to_thread(fix_request, str(outcome.path), content, params.old_string,
                                              params.new_string, params.expected_replacements, outcome.miss)
            fix = await self.fixer(request)
            if len(self._fixes) >= 64:
                self._fixes.pop(next(iter(self._fixes)))
            self._fixes[key] = fix
        if fix is None:
            return outcome
        new_content = accept_fix(content, fix, params.old_string, params.new_string, params.expected_replacements)
        if new_content is None:
            return outcome
        how = f"was corrected by the model ({fix.explanation or 'no explanation'})"
        return _Outcome(outcome.path, outcome.before, new_content, params.expected_replacements, how)

    def check_params(self, params: ReplaceParams) -> ToolError | None:
        try:
            self.workspace.resolve(params.file_path)
        except WorkspaceError as exc:
            return exc.as_tool_error()
        return None

    def needs(self, params: ReplaceParams) -> CallNeeds:
        try:
            path = str(self.workspace.resolve(params.file_path))
        except WorkspaceError:
            path = params.file_path
        return CallNeeds(edit=True, writes=(path,))

    def get_description(self, params: ReplaceParams) -> str:
        try:
            shown = self.workspace.relative(self.workspace.resolve(params.file_path))
        except WorkspaceError:
            shown = params.file_path
        if not params.old_string:
            return f"Create {shown}"
        first = params.old_string.strip().split("\n", 1)[0][:40]
        target = params.new_string.strip().split("\n", 1)[0][:40]
        return f"{shown}: {first} => {target}"

    def _plan(self, params: ReplaceParams, explain: bool = True) -> _Outcome:
        """Everything short of writing; runs in a worker thread (files may be large). `explain`: look for the
        closest region when old_string is not found (only the model reads it)."""
        try:
            path = self.workspace.resolve(params.file_path)
        except WorkspaceError as exc:
            return _Outcome(Path(params.file_path), None, error=exc.as_tool_error())
        shown = str(path)
        if path.is_dir():
            return _Outcome(path, None, error=ToolError(
                ToolErrorKind.is_a_directory, f"Path is a directory, not a file: {shown}. Give a file path."))
        if not path.exists():
            if params.old_string:
                return _Outcome(path, None, error=ToolError(
                    ToolErrorKind.file_not_found,
                    f"File not found: {shown}. Use an empty old_string to create a new file."))
            if (reason := read_only_reason(path)) is not None:
                return _Outcome(path, None, error=_read_only_error("create", shown, reason))
            return _Outcome(path, None, params.new_string, 1)
        if not params.old_string:
            return _Outcome(path, None, error=ToolError(
                ToolErrorKind.file_exists,
                f"Failed to edit. Attempted to create a file that already exists: {shown}. "
                "Give a non-empty old_string to change it, or use write_file to replace it entirely."))
        # known before the user is asked: a review of an edit that cannot be written would end in a refusal
        if (reason := read_only_reason(path)) is not None:
            return _Outcome(path, None, error=_read_only_error("edit", shown, reason))
        if sniff_file(path) is not FileType.text:
            return _Outcome(path, None, error=ToolError(
                ToolErrorKind.binary_file, f"Cannot edit {shown}: it is not a text file."))
        if params.old_string == params.new_string:
            return _Outcome(path, None, error=ToolError(
                ToolErrorKind.edit_no_change,
                f"No changes to apply. The old_string and new_string are identical in file: {shown}"))
        before = read_text(path, root=self.workspace.root_for(path))
        plan = plan_edit(before.content, params.old_string, params.new_string, params.expected_replacements,
                         explain=explain)
        if isinstance(plan, EditMiss):
            return _Outcome(path, before, error=_miss_error(plan, shown, params.expected_replacements), miss=plan)
        assert isinstance(plan, EditPlan)
        if plan.new_content == before.content:
            return _Outcome(path, before, error=ToolError(
                ToolErrorKind.edit_no_change,
                f"No changes to apply. The new content is identical to the current content of {shown}."))
        return _Outcome(path, before, plan.new_content, plan.occurrences, plan.correction)

    def _diff(self, outcome: _Outcome) -> FileDiff:
        original = outcome.before.content if outcome.before else ""
        return FileDiff.between(str(outcome.path), original, outcome.after,
                                display_name=self.workspace.relative(outcome.path), is_new_file=outcome.is_new_file)

    async def should_confirm_execute(self, params: ReplaceParams, abort_signal: AbortSignal) -> EditConfirmation | None:
        outcome = await self._planned(params, False)
        if outcome.error is not None:
            return None  # execute reports the error; there is nothing to review

        root = self.workspace.root_for(outcome.path)

        async def refresh() -> FileDiff:
            # what happened to the file, named: gone, a directory, read-only, ... or its text changed
            if problem := await asyncio.to_thread(unavailable, outcome.path, root, existed=not outcome.is_new_file):
                raise problem
            fresh = await self._planned(params, False)
            if fresh.error is not None:
                raise _unavailable_for(fresh.error)
            return self._diff(fresh)

        title = f"Confirm Edit: {self.workspace.relative(outcome.path)}"
        if outcome.correction:  # the review says the edit is not the one the model wrote, and how it changed
            title += f" (old_string did not match exactly; the edit {outcome.correction})"
        return EditConfirmation(title, str(outcome.path), self._diff(outcome), refresh)

    def with_new_content(self, params: ReplaceParams, new_content: str, original: str) -> ReplaceParams | None:
        return ReplaceParams(file_path=params.file_path, old_string=original, new_string=new_content)

    def describe_modified(self, params: ReplaceParams, applied: FileDiff) -> str:
        """As `get_description` does for the model's edit, from the first change the user's version makes."""
        old, new = (line.strip()[:40] for line in applied.first_change())
        if applied.is_new_file:
            return f"Create {applied.file_name} (your edit)"
        return f"{applied.file_name} (your edit): {old} => {new}"

    async def _execute(self, params: ReplaceParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        if context.reviewed_content is not None:  # approved: what stops it now is said as what happened since
            try:
                path = self.workspace.resolve(params.file_path)
            except WorkspaceError as exc:
                if exc.kind is ToolErrorKind.path_outside_root:  # it resolved inside when it was reviewed
                    return after_approval(params.file_path, led_out(self.workspace.root))
                return ToolResult.failure(exc.kind, exc.message)
            existed = context.reviewed_existed if context.reviewed_existed is not None else \
                context.reviewed_content != ""
            top = self.workspace.root_for(path)
            if problem := await asyncio.to_thread(unavailable, path, top, existed=existed):
                return after_approval(path, problem)
        outcome = await self._planned(params)
        if context.reviewed_content is not None:
            current = outcome.before.content if outcome.before else ""
            if outcome.before is None and outcome.path.exists():
                top = self.workspace.root_for(outcome.path)
                current = await asyncio.to_thread(lambda: read_text(outcome.path, root=top).content)
            if current != context.reviewed_content:
                return ToolResult.failure(
                    ToolErrorKind.file_changed,
                    f"The file {outcome.path} changed on disk after the user reviewed the edit; nothing was "
                    "written. Read the file again and redo the edit.")
        if outcome.error is not None:
            if context.reviewed_content is not None:
                return after_approval(outcome.path, _unavailable_for(outcome.error))
            return ToolResult.failure(outcome.error.kind, outcome.error.message)
        if abort_signal.aborted:
            return ToolResult.failure(ToolErrorKind.cancelled, f"Edit of {outcome.path} was cancelled.")
        try:
            written = await asyncio.to_thread(_write_unless_changed, outcome, self.workspace.root_for(outcome.path))
        except OutsideRootError as exc:
            return ToolResult.failure(ToolErrorKind.path_outside_root,
                                      f"Nothing was written to {outcome.path}: {exc.strerror}. Use a path inside "
                                      "the root directory whose folders are not links.")
        if not written:
            return ToolResult.failure(
                ToolErrorKind.file_changed,
                f"The file {outcome.path} changed on disk while the edit was prepared; nothing was written. Read "
                "the file again and redo the edit.")
        if outcome.is_new_file:
            message = f"Created new file: {outcome.path} with provided content."
        else:
            message = f"Successfully modified file: {outcome.path} ({outcome.occurrences} replacements)."
            if outcome.correction:
                message += f" Note: old_string did not match exactly; the edit {outcome.correction}."
        return ToolResult(message, self._diff(outcome))


def _write_unless_changed(outcome: _Outcome, root: Path) -> bool:
    """Write the edit, unless the file no longer holds what the edit was computed from (a change in between)."""
    if outcome.before is None:
        if outcome.path.exists():
            return False
    elif read_text(outcome.path, root=root) != outcome.before:
        return False
    write_text(outcome.path, outcome.after, outcome.before, root=root)
    return True


_CHANGED = "changed on disk and the edit no longer applies"
# what each error of the re-read plan means for an edit under review: (kind, the words the review and model get)
_UNAVAILABLE: dict[ToolErrorKind, tuple[str, str]] = {
    ToolErrorKind.edit_no_occurrence: ("changed", f"{_CHANGED} (the text it replaces is no longer there)"),
    ToolErrorKind.edit_occurrence_mismatch: ("changed", f"{_CHANGED} (the text it replaces is now found a different "
                                                        "number of times)"),
    ToolErrorKind.edit_no_change: ("changed", "changed on disk and already holds what the edit would write"),
    ToolErrorKind.binary_file: ("not_text", "is no longer a text file"),
    ToolErrorKind.file_not_found: ("deleted", "was deleted"),
    ToolErrorKind.file_exists: ("created", "was created on disk meanwhile"),
    ToolErrorKind.is_a_directory: ("directory", "is now a directory"),
    ToolErrorKind.permission_denied: ("read_only", "became read-only"),
}


def _unavailable_for(error: ToolError) -> EditUnavailable:
    """Why a re-read edit can no longer be made, from the error its plan now ends in (the review says it)."""
    kind, words = _UNAVAILABLE.get(error.kind, ("unreadable", f"can no longer be edited ({error.message})"))
    return EditUnavailable(kind, words)


def _read_only_error(verb: str, shown: str, reason: str) -> ToolError:
    return ToolError(ToolErrorKind.permission_denied,
                     f"Cannot {verb} {shown}: {reason}. Nothing was changed and the user was not asked. Tell the "
                     "user; they can make it writable if they want this change.")


def _miss_error(miss: EditMiss, shown: str, expected: int) -> ToolError:
    if miss.found:
        return ToolError(
            ToolErrorKind.edit_occurrence_mismatch,
            f"Failed to edit, expected {expected} occurrences but found {miss.found} for old_string in file: "
            f"{shown}. Add more surrounding context to old_string so it matches exactly {expected}, or set "
            f"expected_replacements to {miss.found} to replace them all.")
    message = (f"Failed to edit, 0 occurrences found for old_string in {shown}. No edits made. The exact text "
               "was not found, and no correction (line endings, escaping, trailing whitespace, indentation) "
               f"matched it {'exactly once' if expected == 1 else f'exactly {expected} times'}.")
    if miss.unclear:
        message = (f"Failed to edit, 0 occurrences found for old_string in {shown}. No edits made. The exact text "
                   f"was not found, and {miss.unclear[0].lower()}{miss.unclear[1:]}.")
    if miss.ambiguous:
        message += f" A corrected form matched {miss.ambiguous} places; add context to make it unique."
    if miss.closest:
        first, last, text = miss.closest
        message += (f" The closest region is lines {first}-{last}:\n{text}\n"
                    "Use read_file to see the current content and copy old_string exactly.")
    else:
        message += " Use read_file to see the current content and copy old_string exactly."
    return ToolError(ToolErrorKind.edit_no_occurrence, message)
