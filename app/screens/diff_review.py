"""The diff-review modal: the user allows, rejects, edits or picks hunks of a proposed file change.

It dismisses with a `Decision` that always refers to the diff it last showed (`shown_diff`), and while it is
open it watches the file: once the file changes on disk (or is deleted, or can no longer be read), approval is
off until the user re-reads it with `u`, so a diff the user has not looked at again can never be approved."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import shlex
import tempfile
from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, Static, TextArea

from gemini_tui.app import decision_keys as keys
from gemini_tui.app.diff.hunks import Hunk, apply_hunks, hunks_of, rejection_feedback
from gemini_tui.app.diff.view import DiffView, fit_parts, hint_texts
from gemini_tui.app.external_editor import run_editor
from gemini_tui.app.typing_guard import GRACE_PERIOD, TypingGuard, bound_keys
from gemini_tui.app.widgets.key_bar import KeyBar
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, EditConfirmation, EditUnavailable
from gemini_tui.core.ground.display import FileDiff
from gemini_tui.core.ground.terminal_text import clean_terminal_text, has_terminal_controls
from gemini_tui.styles import stylesheet

log = logging.getLogger(__name__)

# what the notice says once a change is seen (approval is off until `u`); {path} is the reviewed file
CHANGED_NOTICE = ("{path} changed on disk: approval is off. The diff now shows the file as it is; u re-reads it "
                  "and turns approval back on, r or Esc rejects (the model is told file_changed).")
DELETED_NOTICE = ("{path} was deleted on disk: approval is off (applying would create it anew). u re-reads it, "
                  "and approval comes back only if the file is there again; r or Esc rejects (the model is told "
                  "file_changed).")
# the edit can no longer be made ({reason}: what happened, in words that follow the file's name)
UNAVAILABLE_NOTICE = ("{path} {reason}: approval is off. u re-reads it, and approval comes back once the edit can be "
                      "made again; r or Esc rejects (the model is told file_changed).")
EDITOR_IN_PAGE = ("$EDITOR is not available in a browser page: it would open on the server, where nobody sees it. "
                  "Press e to edit the proposal here.")
EDITED_NOTICE = ("File changed on disk while you edited, so approval is off. Your text is kept: Esc shows the new "
                 "diff, u re-reads the file and turns approval back on, then e and Ctrl+S apply your text.")
REREAD_NOTICE = ("Re-read {path}: the diff shows the file as it is on disk now, and approval is back on (y allows "
                 "this diff).")
# the user's $EDITOR version is never dropped for the model's when the file changes: it is diffed again
EDITED_CHANGED_NOTICE = ("{path} changed on disk: approval is off. Your edited version is kept and now compared with "
                         "the file as it is (what changed there and is not in your version shows as removed); u "
                         "re-reads it and turns approval back on, r or Esc rejects (the model is told file_changed).")
EDITED_REREAD_NOTICE = ("Re-read {path}: your edited version is compared with the file as it is on disk now, and "
                        "approval is back on (y applies your version).")
# what the model is told on a rejection, by what happened to the file
CHANGE_WORDS = {"changed": "changed on disk", "deleted": "was deleted"}  # else `EditUnavailable.reason`
# what Esc does, by mode: the key bar says so (it rejects the edit in the review, the model is told)
ESCAPE_LABELS = {"review": "Reject", "reason": "Reject without reason", "edit": "Back to the diff"}
APPROVE_KEYS = frozenset({keys.ALLOW_ONCE, keys.ALLOW_SESSION, keys.ALLOW_ALWAYS})  # they allow (Ctrl+S in the editor)
SIDE_BY_SIDE_MIN_WIDTH = 140
LABEL_GAP = 2  # cells after each label of the summary line (its margin in diff_review.tcss)
PATH_MIN = 12  # cells of the path kept before the summary's status shortens
SAY_SECONDS = 4.0  # how long a passing message stays on the notice line


class ProposalEditor(TextArea):
    """The proposed content, editable. Esc goes back to the diff instead of moving focus."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.prevent_default()  # skip TextArea's own handler; the key bubbles to the screen's binding
            return
        await super()._on_key(event)


class DiffReviewScreen(ModalScreen[Decision]):
    """Review one `EditConfirmation`. It takes keys once `grace_period` seconds have passed since it opened (or
    the diff changed) with no key pressed in between; a key sooner re-arms the wait and goes to `on_typed` (the
    prompt), so typed-ahead keys cannot approve a change the user has not seen."""

    CSS_PATH = str(stylesheet("diff_review.tcss"))
    AUTO_FOCUS = ""  # keys go to the screen's bindings until the reason or the editor is opened

    # in order of importance: a narrow key bar keeps the first ones
    BINDINGS: ClassVar[list[BindingType]] = [
        # shown (first) only while approval is off: it takes the allow keys' place in the key bar
        Binding("u", "re_review_required", "Re-review (approval is off)"),
        Binding(keys.ALLOW_ONCE, "approve", "Allow once"),
        Binding(keys.ALLOW_SESSION, "approve_always", "Allow for session"),
        Binding(keys.REJECT_ESC, "back", "Reject"),  # labelled by what it does in each mode (`ESCAPE_LABELS`)
        Binding(keys.REJECT, "reject_now", "Reject", show=False),  # Esc shows it in the key bar
        Binding(keys.REJECT_WITH_REASON, "reject", "Reject with reason…"),
        Binding(keys.NEXT_CHANGE, "next_change", "Next change", key_display="]"),
        Binding(keys.PREVIOUS_CHANGE, "previous_change", "Prev change", key_display="["),
        Binding(keys.ALLOW_ALWAYS, "approve_saved", "Allow always (this folder)"),
        Binding("ctrl+s", "apply_edit", "Apply edit"),
        Binding("space", "toggle_hunk", "Accept/reject hunk"),
        Binding("ctrl+e", "external_edit", "$EDITOR"),
        Binding("e", "edit", "Edit"),
        Binding("w", "toggle_wrap", "Wrap"),
        Binding("u", "re_review", "Re-review", show=False),
        Binding("v", "toggle_view", "Split"),
        Binding(f"{keys.NEXT_HUNK},down", "next_hunk", "Next hunk", show=False),
        Binding(f"{keys.PREVIOUS_HUNK},up", "previous_hunk", "Previous hunk", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("left", "scroll_sideways(-1)", "Scroll left", show=False),
        Binding("right", "scroll_sideways(1)", "Scroll right", show=False),
    ]

    _REVIEW_ACTIONS: ClassVar[set[str]] = {
        "approve", "approve_always", "approve_saved", "reject", "reject_now", "edit", "toggle_hunk", "next_hunk",
        "previous_hunk", "toggle_view", "page", "next_change", "previous_change", "toggle_wrap", "external_edit",
        "scroll_sideways", "re_review", "re_review_required",
    }
    _APPROVE_ACTIONS: ClassVar[set[str]] = {"approve", "approve_always", "approve_saved", "apply_edit"}

    def __init__(self, details: EditConfirmation, *, grace_period: float = GRACE_PERIOD,
                 on_interrupt: Callable[[], None] | None = None,
                 on_typed: Callable[[events.Key], None] | None = None, allow_saving: bool = True) -> None:
        """`on_interrupt` runs on Ctrl+C after the review is dismissed (the app cancels the turn); `on_typed`
        takes keys typed before the review listens (the prompt's)."""
        super().__init__()
        self._on_interrupt = on_interrupt
        self.details = details
        self.grace_period = grace_period
        self.guard = TypingGuard(grace_period)
        self.on_typed = on_typed
        self.allow_saving = allow_saving  # "allow always" offered (security.disableAlwaysAllow turns it off)
        self.shown_diff: FileDiff = details.file_diff
        self.base_diff: FileDiff = details.file_diff  # the model's proposal as last re-read (shown_diff may be edited)
        self.edited = False  # shown_diff is the user's own version from $EDITOR
        self.file_changed = False  # the file changed on disk while this review was open
        # why approval is off ("changed", "deleted", "unavailable"), until `u` re-reads the file; None: allowed
        self.approval_off: str | None = None
        self._off_reason = ""  # what happened, as the model is told it ("was deleted", "is now a directory", ...)
        self._off_notice = ""
        self.hunks: tuple[Hunk, ...] = ()
        self.rejected: frozenset[int] = frozenset()
        self.current = 0
        self.change = 0  # index into the view's changes (runs of changed lines)
        self._anchor: tuple[int, ...] = ()  # what the current change shows (found again after a new layout)
        self.mode = "review"  # review | reason | edit
        self._draft: str | None = None  # edited text kept when the file changed during editing
        self._edit_base: FileDiff | None = None
        self._stop_watch = asyncio.Event()
        self._busy = False
        self._standing = ""  # the notice that holds; passing messages (`_say`) show above it for a while
        self._said: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="review"):
            yield Label(clean_terminal_text(self.details.title or "Review edit"), id="review-title")
            with Horizontal(id="review-summary"):
                yield Label("", id="review-path")
                yield Label("", id="review-added", classes="added")
                yield Label("", id="review-removed", classes="removed")
                yield Label("", id="review-mode")
            yield Static("", id="review-notice")
            yield DiffView(id="review-diff")
            yield Static("No changes: the proposed content equals the file on disk.", id="review-empty")
            yield Input(placeholder="Why reject? (optional, goes to the model) Enter sends, Esc for no reason",
                        id="review-reason")
            yield ProposalEditor(id="review-editor", soft_wrap=False, show_line_numbers=True,
                                 tab_behavior="indent")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#review-notice").display = False
        self.query_one("#review-reason").display = False
        self.query_one("#review-editor").display = False
        self.view.split = self.app.size.width >= SIDE_BY_SIDE_MIN_WIDTH
        self._show(self.details.file_diff)
        self._arm()
        if self.details.file_path:
            self._watch_file()

    def on_unmount(self) -> None:
        self._stop_watch.set()

    @property
    def view(self) -> DiffView:
        return self.query_one("#review-diff", DiffView)

    # --- state -----------------------------------------------------------------------------------------

    def _arm(self) -> None:
        self.guard.arm()

    def _ready(self) -> bool:
        return self.guard.ready() and not self._busy

    def on_key(self, event: events.Key) -> None:
        if event.key == "ctrl+e" and self.app.is_web and self.mode == "review":
            event.stop()  # (its binding is off the key bar in a page)
            self._say(EDITOR_IN_PAGE)
            return
        if self.mode == "review" and not self.guard.key(event.key in bound_keys(self.BINDINGS), event.time):
            event.stop()
            event.prevent_default()  # no binding: the key was typed for the prompt, and goes there
            if self.on_typed is not None:
                self.on_typed(event)
            return
        approving = event.key in APPROVE_KEYS if self.mode == "review" else event.key == "ctrl+s"
        if self.approval_off is not None and approving and self.mode != "reason":
            # approval is off: the key does nothing but say why again (its binding is disabled anyway)
            event.stop()
            event.prevent_default()
            self._remind()

    def _show_latest(self, latest: FileDiff, *, changed: bool = False) -> None:
        """Show a re-read of the model's proposal; when the user's own version is shown, it stays the proposal,
        diffed against the file as it is now (never silently swapped for the model's)."""
        if not self.edited:
            self._show(latest, changed=changed)
            return
        mine = self.shown_diff.new_content
        self._show(FileDiff.between(latest.file_path, latest.original_content, mine, display_name=latest.file_name,
                                    is_new_file=latest.is_new_file), edited=True)
        self.base_diff = latest
        if changed:
            self._turn_approval_off("changed", EDITED_CHANGED_NOTICE.format(path=self._path()))

    def _show(self, diff: FileDiff, *, changed: bool = False, edited: bool = False) -> None:
        self.shown_diff = diff
        self.edited = edited
        if not edited:
            self.base_diff = diff
        self.hunks = hunks_of(diff.original_content, diff.new_content, diff.diff)
        self.rejected = frozenset()
        self.current = 0
        view = self.view
        view.set_diff(self.hunks, diff.file_path or diff.file_name, original=diff.original_content,
                      new=diff.new_content)
        view.set_rejected(self.rejected)
        view.current = 0
        self.change = 0
        view.scroll_to(y=0, x=0, animate=False, immediate=True)
        view.display = self.mode != "edit" and bool(self.hunks)
        self.query_one("#review-empty").display = self.mode != "edit" and not self.hunks
        # opened at the first change (its column too, when not wrapping), once the view has a width to measure
        if view.view_width > 0:
            self._go_to_change(0)
        else:
            self.call_after_refresh(self._go_to_change, 0)
        if changed:
            self._turn_approval_off("changed", CHANGED_NOTICE.format(path=self._path()))
        self._update_summary()

    def _path(self) -> str:
        return clean_terminal_text(self.details.file_diff.file_name or self.details.file_path)

    def _gone(self, latest: FileDiff | Exception) -> str | None:
        """"deleted" when a re-read finds the reviewed file gone, "unavailable" when the edit can no longer be
        made for another reason (the tool's `EditUnavailable` names it), else None."""
        existed = not self.details.file_diff.is_new_file
        if isinstance(latest, Exception):
            path = self.details.file_path
            if isinstance(latest, EditUnavailable):
                return "deleted" if latest.kind == "deleted" and existed else "unavailable"
            missing = isinstance(latest, FileNotFoundError) or bool(path and not os.path.lexists(path))
            return "deleted" if missing and existed else "unavailable"
        # write_file's re-read of a missing file is a "new file" diff: the file that was reviewed is gone
        return "deleted" if latest.is_new_file and existed else None

    def _off_for(self, why: str, latest: FileDiff | Exception) -> None:
        if why == "deleted":
            self._off_reason = CHANGE_WORDS["deleted"]
            self._turn_approval_off(why, DELETED_NOTICE.format(path=self._path()))
            return
        if isinstance(latest, EditUnavailable):
            reason = clean_terminal_text(latest.reason)
        else:  # (a tool that does not say why: what the error says)
            reason = f"can no longer be read or edited ({clean_terminal_text(str(latest) or type(latest).__name__)})"
        self._off_reason = reason
        self._turn_approval_off(why, UNAVAILABLE_NOTICE.format(path=self._path(), reason=reason))

    def _turn_approval_off(self, why: str, notice: str) -> None:
        """A change on disk was seen: nothing can be approved until `u` re-reads the file."""
        self.file_changed = True
        self.approval_off = why
        if self.mode == "edit" and why == "changed":  # `u` would type into the editor: say how to get there
            notice = EDITED_NOTICE
        self._off_notice = notice
        self._notice(notice)
        self._arm()
        self.refresh_bindings()

    def _remind(self) -> None:
        self._notice(self._off_notice)
        self.app.bell()

    def _seen_on_disk(self, latest: FileDiff | Exception) -> bool:
        """What a re-read found: True when the reviewed diff still stands; otherwise approval is turned off
        (a changed file's new diff is shown)."""
        if (why := self._gone(latest)) is not None:
            self._off_for(why, latest)
            return False
        assert isinstance(latest, FileDiff)
        if _same(latest, self.base_diff):
            return True
        self._show_latest(latest, changed=True)
        return False

    async def _read_again(self) -> FileDiff | Exception:
        assert self.details.refresh is not None
        self._busy = True
        try:
            return await self.details.refresh()
        except Exception as exc:  # the edit may no longer apply, or the file cannot be read: said, not raised
            log.warning("refresh of %s failed: %s", self.details.file_path, exc)
            return exc
        finally:
            self._busy = False

    def _notice(self, text: str) -> None:
        """The standing notice: what holds until something changes (approval off, the edited version shown)."""
        self._standing = text
        self._draw_notice(text)

    def _say(self, text: str, seconds: float = SAY_SECONDS) -> None:
        """A passing message, on the review's notice line above the standing notice for a few seconds: a toast
        would be drawn over the diff under review."""
        self._draw_notice(f"{text}\n{self._standing}" if self._standing else text)
        self._said = self.set_timer(seconds, lambda: self._draw_notice(self._standing))

    def _draw_notice(self, text: str) -> None:
        if self._said is not None:
            self._said.stop()
            self._said = None
        notice = self.query_one("#review-notice", Static)
        notice.update(text)
        notice.display = bool(text)

    def _update_summary(self) -> None:
        """The line under the title: path, counts, then where the review is, fitted to the width (shorter words,
        then the least important parts given way, the path last of all: the title names the file too)."""
        diff = self.shown_diff
        path = clean_terminal_text(f"{diff.file_path or diff.file_name}{' (new file)' if diff.is_new_file else ''}")
        added = f"+{sum(h.added for h in self.hunks)}"
        removed = f"-{sum(h.removed for h in self.hunks)}"
        self.query_one("#review-added", Label).update(added)
        self.query_one("#review-removed", Label).update(removed)
        width = self.query_one("#review-summary").content_size.width or 10_000  # not laid out yet: all of it
        counts = cell_len(added) + cell_len(removed) + 2 * LABEL_GAP
        room = width - counts - LABEL_GAP - min(cell_len(path), PATH_MIN)
        status = "  ".join(part for part in fit_parts(self._status_parts(), room) if part)
        self.query_one("#review-mode", Label).update(status)
        self.query_one("#review-path", Label).update(_tail(path, width - counts - LABEL_GAP - cell_len(status)))

    def _status_parts(self) -> list[tuple[str, ...]]:
        """Where the review is, most important first, each part's wordings longest first ("" lets it go)."""
        view = self.view
        parts: list[tuple[str, ...]] = []
        if view.changes:
            parts.append((f"change {self.change + 1}/{len(view.changes)}",))
        if (hidden := view.hidden_change(self.current)) is not None:
            *_, where, short = hint_texts(*hidden)
            parts.append((f"{where}, beyond the visible width", where, short))
        if self.hunks:
            hunk = f"hunk {self.current + 1}/{len(self.hunks)}"
            parts.append((f"{hunk}, {len(self.rejected)} rejected", hunk, "") if self.rejected else (hunk, ""))
        else:
            parts.append(("no hunks",))
        layout = "side by side" if view.showing_split else "unified"
        wrap = "wrapped" if view.wrap else "not wrapped"
        fallback = " (side by side would hide changes)" if view.split and not view.showing_split else ""
        parts.append((f"{layout}{fallback}, {wrap}", f"{layout}, {wrap}", "" if view.wrap else "no wrap", ""))
        return parts

    def on_resize(self) -> None:
        self.call_after_refresh(self._update_summary)

    def _set_mode(self, mode: str) -> None:
        self.mode = mode
        bindings = self._bindings.key_to_bindings
        # a new list for this screen alone (the binding maps of screens share their lists)
        bindings["escape"] = [dataclasses.replace(b, description=ESCAPE_LABELS[mode]) if b.action == "back" else b
                              for b in bindings.get("escape", [])]
        self.query_one("#review-reason").display = mode == "reason"
        self.query_one("#review-editor").display = mode == "edit"
        self.view.display = mode != "edit" and bool(self.hunks)
        self.query_one("#review-empty").display = mode != "edit" and not self.hunks
        if mode == "review":
            self.set_focus(None)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "approve_saved" and not self.allow_saving:
            return False
        if action == "re_review_required":
            return self.mode == "review" and self.approval_off is not None
        if action in self._APPROVE_ACTIONS and self.approval_off is not None:
            return None  # disabled: off the key bar (`u` takes its place), and on_key says why when pressed
        if action == "external_edit" and self.app.is_web:
            return False  # $EDITOR would open on the server, out of the page's sight: on_key explains
        if action in self._REVIEW_ACTIONS:
            return self.mode == "review"
        if action == "apply_edit":
            return self.mode == "edit"
        return True

    # --- the answer ------------------------------------------------------------------------------------

    def _decision(self, outcome: ConfirmationOutcome) -> Decision:
        """Allow the shown diff, applying only the accepted hunks."""
        diff = self.shown_diff
        if not self.rejected and self.edited:
            return Decision(ConfirmationOutcome.modify, new_content=diff.new_content, file_diff=diff)
        if not self.rejected:
            return Decision(outcome, file_diff=diff)
        feedback = rejection_feedback(self.hunks, self.rejected, diff.file_path)
        if len(self.rejected) == len(self.hunks):
            return Decision(ConfirmationOutcome.cancel, feedback=feedback, file_diff=diff)
        accepted = {h.index for h in self.hunks} - self.rejected
        content = apply_hunks(diff.original_content, diff.new_content, self.hunks, accepted)
        return Decision(ConfirmationOutcome.modify, new_content=content, feedback=feedback, file_diff=diff)

    async def _still_current(self) -> bool:
        """Last check before allowing: approval is on, and a re-read of the file finds what the diff was made
        from (if not, approval goes off and the user is told why)."""
        if self.approval_off is not None:
            self._remind()
            return False
        if self.details.refresh is None:
            return True
        return self._seen_on_disk(await self._read_again())

    async def action_approve(self) -> None:
        if self._ready() and await self._still_current():
            self.dismiss(self._decision(ConfirmationOutcome.proceed_once))

    async def action_approve_always(self) -> None:
        if self._ready() and await self._still_current():
            # a partial approval is a one-off modification; "always" only applies to the whole change
            outcome = ConfirmationOutcome.proceed_always if not self.rejected else ConfirmationOutcome.proceed_once
            self.dismiss(self._decision(outcome))

    def _rejection(self, reason: str | None = None) -> Decision:
        """A rejection; when the file changed under the review, the model is told so (file_changed), since
        its edit was made against content that is no longer there."""
        note = None
        if self.file_changed:
            path = self.details.file_path or self.shown_diff.file_name
            what = self._off_reason if self.approval_off in ("deleted", "unavailable") else CHANGE_WORDS["changed"]
            note = (f"file_changed: {path} {what} while the user reviewed this edit; read it again "
                    "before proposing a change.")
        return Decision(ConfirmationOutcome.cancel, feedback=reason, file_diff=self.shown_diff, note=note)

    async def action_re_review(self) -> None:
        """`u`: read the file again now and show the diff against what is on disk; after a change on disk,
        this is what turns approval back on (once the grace period has passed)."""
        if self.details.refresh is None or self.mode != "review" or self._busy:
            return
        latest = await self._read_again()
        if (why := self._gone(latest)) is not None:
            self._off_for(why, latest)  # (still) deleted or unreadable: approval stays off, the notice says so
            return
        assert isinstance(latest, FileDiff)
        same = _same(latest, self.base_diff)
        if self.approval_off is None and same:
            self._say("The file on disk is what this diff was made from.")
            return
        if not same:  # the user asked to see it: the new diff, and approval stays theirs to give
            self.file_changed = True
            self._show_latest(latest)
        self.approval_off = None
        self._notice((EDITED_REREAD_NOTICE if self.edited else REREAD_NOTICE).format(path=self._path()))
        self._arm()
        self.refresh_bindings()

    async def action_re_review_required(self) -> None:
        await self.action_re_review()

    def interrupt(self) -> bool:
        """Ctrl+C, as everywhere: cancel what is in front (this review and the turn it belongs to)."""
        if self._on_interrupt is not None:  # the turn first: the core then takes the review's close as no answer
            self._on_interrupt()
        self.dismiss(self._rejection())
        self.app.notify("Review cancelled.", timeout=2)
        return True

    async def action_approve_saved(self) -> None:
        if self._ready() and await self._still_current():
            # a partial approval is a one-off modification; "always" only applies to the whole change
            saved = ConfirmationOutcome.proceed_always_and_save
            outcome = saved if not self.rejected else ConfirmationOutcome.proceed_once
            self.dismiss(self._decision(outcome))

    def action_reject(self) -> None:
        if self._ready():
            self._set_mode("reason")
            self.query_one("#review-reason", Input).focus()

    @on(Input.Submitted, "#review-reason")
    def _reason_given(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(self._rejection(event.value.strip() or None))

    def action_back(self) -> None:
        if self.mode == "reason":
            self.dismiss(self._rejection())
        elif self.mode == "edit":
            self._draft = self.query_one(ProposalEditor).text
            self._set_mode("review")
        elif self._ready():
            self.dismiss(self._rejection())

    def action_reject_now(self) -> None:
        """`n`, as in every confirmation: reject, no reason asked (`r` asks one)."""
        if self._ready():
            self.dismiss(self._rejection())

    def action_edit(self) -> None:
        if not self._ready():
            return
        accepted = {h.index for h in self.hunks} - self.rejected
        proposal = apply_hunks(self.shown_diff.original_content, self.shown_diff.new_content, self.hunks, accepted)
        text = self._draft if self._draft is not None else proposal
        if has_terminal_controls(text.replace("\r", "")):
            # the editor would draw them raw (to the terminal), and cleaning them would change what is written
            self._say("This content holds terminal control characters: edit it in $EDITOR (Ctrl+E) instead.")
            return
        editor = self.query_one(ProposalEditor)
        editor.load_text(text)
        self._edit_base = self.shown_diff
        self._set_mode("edit")
        editor.focus()

    async def action_external_edit(self) -> None:
        """The proposal (accepted hunks) in $VISUAL/$EDITOR; what the editor saves is then reviewed as a diff."""
        if not self._ready():
            return
        command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not command:
            self._say("Set $VISUAL or $EDITOR to edit the proposal in your editor (e edits it here).")
            return
        accepted = {h.index for h in self.hunks} - self.rejected
        proposal = apply_hunks(self.shown_diff.original_content, self.shown_diff.new_content, self.hunks, accepted)
        base = self.base_diff
        suffix = os.path.splitext(base.file_path or base.file_name)[1]
        handle, name = tempfile.mkstemp(prefix="gemini-tui-", suffix=suffix)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
                file.write(proposal)
            code = await self._run_editor([*shlex.split(command), name])
            with open(name, encoding="utf-8", newline="") as file:
                text = file.read()
        except (OSError, ValueError) as exc:
            self._say(f"Could not run the editor ({clean_terminal_text(command)}): {clean_terminal_text(str(exc))}",
                      seconds=8)
            return
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name)
        if code != 0:
            self._say(f"The editor exited with status {code}: the proposal is unchanged.")
            return
        if text == proposal:
            self._say("No change made in the editor.")
            return
        edited = FileDiff.between(base.file_path, base.original_content, text, display_name=base.file_name,
                                  is_new_file=base.is_new_file)
        self._show(edited, edited=True)
        self._notice("Your edited version is shown: y applies it (the model is told), Esc rejects.")
        self._arm()

    async def _run_editor(self, argv: list[str]) -> int:
        """Run the editor in the terminal (the app steps aside), or in the background when it cannot."""
        return await run_editor(self.app, argv)

    async def action_apply_edit(self) -> None:
        if self.mode != "edit" or not self._ready():
            return
        text = self.query_one(ProposalEditor).text
        if self.approval_off is not None or self._edit_base is not self.shown_diff or not await self._still_current():
            self._draft = text
            self._edit_base = self.shown_diff
            self._notice(EDITED_NOTICE)
            self._off_notice = EDITED_NOTICE
            return
        if text == self.shown_diff.new_content:
            self.dismiss(Decision(ConfirmationOutcome.proceed_once, file_diff=self.shown_diff))
        else:
            self.dismiss(Decision(ConfirmationOutcome.modify, new_content=text,
                                  file_diff=self.shown_diff))

    # --- hunks and view --------------------------------------------------------------------------------

    def _move(self, delta: int) -> None:
        if self.hunks and self._ready():
            self.current = max(0, min(len(self.hunks) - 1, self.current + delta))
            self.view.current = self.current
            self.view.scroll_to_hunk(self.current)
            self.change = next((i for i, c in enumerate(self.view.changes) if c.hunk == self.current), 0)
            self._anchor = self.view.anchor_of(self.change)
            self._update_summary()

    def action_next_hunk(self) -> None:
        self._move(1)

    def action_previous_hunk(self) -> None:
        self._move(-1)

    def action_toggle_hunk(self) -> None:
        if self.hunks and self._ready():
            self.rejected = self.rejected ^ {self.current}
            self.view.set_rejected(self.rejected)
            self._update_summary()

    def action_toggle_view(self) -> None:
        if self._ready():
            anchor = self.view.anchor_of(self.change)
            self.view.split = not self.view.split
            self._go_to_change(self.view.change_holding(anchor))  # the same change, laid out anew
            if self.view.split and not self.view.showing_split:
                self._say("Side by side would hide changes at this width: shown unified.")
            self._update_summary()

    def action_toggle_wrap(self) -> None:
        anchor = self.view.anchor_of(self.change)
        self.view.wrap = not self.view.wrap
        self._go_to_change(self.view.change_holding(anchor))
        self._update_summary()

    def _go_to_change(self, index: int) -> None:
        view = self.view
        view.lay_out()  # a toggled wrap or a new diff: `changes` is measured now, not at the next frame
        if not view.changes:
            self._update_summary()
            return
        self.change = max(0, min(len(view.changes) - 1, index))
        self._anchor = view.anchor_of(self.change)
        view.scroll_to_change(self.change)
        self.current = view.changes[self.change].hunk
        view.current = self.current
        self._update_summary()

    def action_next_change(self) -> None:
        if self._ready():
            self._go_to_change(self.change + 1)

    def action_previous_change(self) -> None:
        if self._ready():
            self._go_to_change(self.change - 1)

    def action_scroll_sideways(self, direction: int) -> None:
        view = self.view
        view.scroll_to(x=max(0, view.scroll_x + direction * max(8, view.size.width // 3)), animate=False)
        self._update_summary()  # a change may now lie beyond the visible width, or no longer

    def action_page(self, direction: int) -> None:
        view = self.view
        view.scroll_to(y=view.scroll_y + direction * max(1, view.size.height - 2), animate=False)

    @on(DiffView.Relaid)
    def _relaid(self) -> None:
        """The width changed (the first layout, a resize): the current change is brought back into view."""
        self._go_to_change(self.view.change_holding(self._anchor))

    @on(DiffView.HunkClicked)
    def _hunk_clicked(self, event: DiffView.HunkClicked) -> None:
        if self.mode == "review":
            self.current = event.hunk
            self.view.current = event.hunk
            self._update_summary()

    # --- watching the file -----------------------------------------------------------------------------

    @work(exclusive=True, group="diff-review-watch")
    async def _watch_file(self) -> None:
        from watchfiles import awatch

        # the real file: edits write through symlinks, so that is where a change would show
        target = os.path.realpath(self.details.file_path)
        directory = os.path.dirname(target)
        while not os.path.isdir(directory) and os.path.dirname(directory) != directory:
            directory = os.path.dirname(directory)

        def concerns_target(_change: object, path: str) -> bool:
            return path == target or target.startswith(path + os.sep)

        try:
            async for _changes in awatch(directory, watch_filter=concerns_target, stop_event=self._stop_watch,
                                         debounce=100, step=20, recursive=False):
                await self._file_changed()
        except Exception as exc:  # watching is a safety net; approval still re-reads the file
            log.warning("cannot watch %s: %s", directory, exc)

    async def _file_changed(self) -> None:
        if self.details.refresh is None:
            self._turn_approval_off("changed", "File changed on disk; this diff may be out of date, so approval "
                                    "is off. r or Esc rejects (the model is told file_changed).")
            return
        self._seen_on_disk(await self._read_again())


def _tail(text: str, width: int) -> str:
    """`text` in `width` cells: its end kept after an ellipsis (a path's file name), or nothing below 4 cells."""
    if cell_len(text) <= width:
        return text
    if width < 4:
        return ""
    while cell_len(text) > width - 1:
        text = text[1:]
    return "…" + text


def _same(a: FileDiff, b: FileDiff) -> bool:
    return a.original_content == b.original_content and a.new_content == b.new_content
