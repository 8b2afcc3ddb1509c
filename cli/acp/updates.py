"""The ACP front end's words: core events, calls, results and saved transcripts as ACP session updates.

Pure functions (no connection, no session), so each mapping is tested on its own."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentPlanUpdate,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    PermissionOption,
    SessionMode,
    SessionModeState,
    ToolCallLocation,
    UnstructuredCommandInput,
)

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.ground.confirmation import (
    ConfirmationDetails,
    ConfirmationOutcome,
    EditConfirmation,
    ExecConfirmation,
    McpConfirmation,
    Question,
)
from gemini_tui.core.ground.display import AgentReport, FileDiff, McpResult, ShellOutput, TodoList
from gemini_tui.core.ground.events import CallState, ToolCallInfo
from gemini_tui.core.ground.parts import InlineDataPart, Part, TextPart
from gemini_tui.core.ground.tool_result import ToolResult

# -- modes: Gemini CLI's ids ----------------------------------------------------------------------------------------
MODES: dict[str, tuple[ApprovalMode, str, str]] = {
    "default": (ApprovalMode.default, "Default", "Asks before edits and commands"),
    "autoEdit": (ApprovalMode.auto_edit, "Auto Edit", "Edits run without asking; commands still ask"),
    "yolo": (ApprovalMode.yolo, "YOLO", "Nothing asks"),
    "plan": (ApprovalMode.plan, "Plan", "Read-only tools only; every change is refused"),
}
MODE_IDS = {mode: mode_id for mode_id, (mode, _, _) in MODES.items()}


def mode_state(current: ApprovalMode, disabled: Iterable[str] = ()) -> SessionModeState:
    """The session's modes (those the settings allow) and the one in force."""
    return SessionModeState(current_mode_id=MODE_IDS[current], available_modes=[
        SessionMode(id=mode_id, name=name, description=about)
        for mode_id, (_, name, about) in MODES.items() if mode_id not in disabled])


# -- models -----------------------------------------------------------------------------------------------------------
# Gemini CLI 0.61's model names: a client (Harbor's ACP runner) only selects a model the option lists
KNOWN_MODELS = ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-3-pro-preview",
                "gemini-3.1-pro-preview", "gemini-3-flash-preview", "gemini-3.5-flash", "gemini-3.8-flash",
                "gemini-3.1-flash-lite", "gemini-3.5-flash-lite")


def model_choices(current: str) -> list[str]:
    return [current, *(name for name in KNOWN_MODELS if name != current)]


# -- tool calls -------------------------------------------------------------------------------------------------------
# Our tool kinds are ACP's, except that ACP also knows delete and move (no built-in tool does either)
ACP_KINDS = {"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"}
PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path", "directory")


def tool_kind(name: str, kinds: Mapping[str, str]) -> str:
    kind = kinds.get(name, "other")
    return kind if kind in ACP_KINDS else "other"


def locations(args: Mapping[str, Any], root: Path) -> list[ToolCallLocation]:
    """The files a call touches, as absolute paths (relative arguments are taken from the root)."""
    found: list[ToolCallLocation] = []
    for key in PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            path = Path(value) if Path(value).is_absolute() else root / value
            found.append(ToolCallLocation(path=str(path)))
    paths = args.get("paths")
    if isinstance(paths, list):
        found += [ToolCallLocation(path=str(p if Path(p).is_absolute() else root / p))
                  for p in paths if isinstance(p, str) and p and "*" not in p]
    return found


def title(call: ToolCallInfo) -> str:
    shown = call.description or call.display_name or call.name
    return f"{call.agent}: {shown}" if call.agent else shown  # a subagent's call names its agent


STATUS = {
    CallState.validating: "pending", CallState.awaiting_approval: "pending", CallState.scheduled: "pending",
    CallState.executing: "in_progress", CallState.success: "completed", CallState.error: "failed",
    CallState.cancelled: "failed",
}


def call_started(call: ToolCallInfo, kind: str, root: Path) -> Any:
    started = start_tool_call(call.call_id, title(call), kind=kind, status=STATUS[call.state],  # type: ignore[arg-type]
                              locations=locations(call.args, root), raw_input=dict(call.args))
    if call.agent:  # which invoke_agent call it belongs to, in the protocol's place for extensions
        started.field_meta = {"geminiTui": {"agent": call.agent, "parentToolCallId": call.parent_call_id}}
    return started


def call_progress(call: ToolCallInfo) -> Any:
    return update_tool_call(call.call_id, status=STATUS[call.state])  # type: ignore[arg-type]


def result_content(result: ToolResult, sent: str, output: str = "") -> list[Any]:
    """What a finished call shows: the text the model received (`sent`), after an edit's diff. A harness such as
    Harbor records it as the step's observation; an editor shows it under the call. Before a `sent` text existed
    (a saved call replayed), a command's output or the display's text stands in."""
    display = result.return_display
    shown: list[Any] = []
    if isinstance(display, FileDiff):
        shown.append(tool_diff_content(display.file_path, display.new_content,
                                       None if display.is_new_file else display.original_content))
    text = sent or _display_text(result, output)
    if text:
        shown.append(tool_content(text_block(text)))
    return shown


def _display_text(result: ToolResult, output: str) -> str:
    display = result.return_display
    if result.error is not None:
        return result.error.message
    if isinstance(display, ShellOutput):
        return display.output or output
    if isinstance(display, McpResult | AgentReport):
        return display.text
    return display if isinstance(display, str) else ""


def call_finished(call: ToolCallInfo, result: ToolResult, sent: str, output: str = "") -> Any:
    return update_tool_call(call.call_id, status=STATUS[call.state],  # type: ignore[arg-type]
                            content=result_content(result, sent, output), raw_output=raw_output(result, sent, output))


def raw_output(result: ToolResult, sent: str, output: str = "") -> dict[str, Any]:
    """`output`: the text the model received; for a command also `stdout` (stdout and stderr share one pipe, so
    it holds both, interleaved as written) and `exit_code` (None when a signal ended it, named in `signal`); for a
    failure its `error` kind and message."""
    raw: dict[str, Any] = {"output": sent or _display_text(result, output)}
    display = result.return_display
    if isinstance(display, ShellOutput):
        raw.update(stdout=display.output or output, exit_code=display.exit_code)
        if display.signal:
            raw["signal"] = display.signal
        if display.timed_out:
            raw["timed_out"] = True
    if result.error is not None:
        raw["error"] = {"kind": result.error.kind.value, "message": result.error.message}
    return raw


def confirmation_content(details: ConfirmationDetails) -> list[Any]:
    """What the client shows beside the permission question: an edit's diff, a command's line."""
    match details:
        case EditConfirmation(file_diff=diff):
            return [tool_diff_content(diff.file_path, diff.new_content,
                                      None if diff.is_new_file else diff.original_content)]
        case ExecConfirmation(command=command):
            return [tool_content(text_block(command))]
        case McpConfirmation(arguments=arguments) if arguments:
            return [tool_content(text_block(arguments))]
    return []


# -- permission options ----------------------------------------------------------------------------------------------
def permission_options(details: ConfirmationDetails) -> list[PermissionOption]:
    """Allow once / for the session / always / reject; the ids are the core's outcomes (Gemini CLI's too)."""
    match details:
        case ExecConfirmation(root_commands=roots):
            what = ", ".join(roots) or "this command"
            session_label = f"Allow {what} for this session"
        case McpConfirmation(server_name=server, tool_display_name=tool):
            session_label = f"Allow {tool} of {server} for this session"
        case _:
            session_label = "Allow for this session"
    session_outcome = (ConfirmationOutcome.proceed_always_tool if isinstance(details, McpConfirmation)
                       else ConfirmationOutcome.proceed_always)
    options = [PermissionOption(option_id=ConfirmationOutcome.proceed_once.value, name="Allow once",
                                kind="allow_once"),
               PermissionOption(option_id=session_outcome.value, name=session_label, kind="allow_always")]
    if not isinstance(details, McpConfirmation):
        options.append(PermissionOption(option_id=ConfirmationOutcome.proceed_always_and_save.value,
                                        name="Allow always (saved for this workspace)", kind="allow_always"))
    options.append(PermissionOption(option_id=ConfirmationOutcome.cancel.value, name="Reject", kind="reject_once"))
    return options


def outcome_for(option_id: str | None, options: Sequence[PermissionOption]) -> ConfirmationOutcome:
    """The client's choice as the core's outcome; anything not offered (or none) rejects."""
    if option_id is None or option_id not in {o.option_id for o in options}:
        return ConfirmationOutcome.cancel
    return ConfirmationOutcome(option_id)


# -- the todo list (write_todos) as ACP's plan ----------------------------------------------------------------------
# ACP's entries know three states: a cancelled task is over (completed), a blocked one still to do (pending); the
# entry's text says which it was
PLAN_STATES = {"pending": ("pending", ""), "in_progress": ("in_progress", ""), "completed": ("completed", ""),
               "cancelled": ("completed", " (cancelled)"), "blocked": ("pending", " (blocked)")}


def plan_update(todos: TodoList) -> AgentPlanUpdate:
    """The whole list as a `plan` update (each one replaces the client's plan, as each write_todos the list)."""
    entries = []
    for todo in todos.todos:
        status, said = PLAN_STATES.get(todo.status, ("pending", f" ({todo.status})"))
        entries.append(plan_entry(todo.description + said, status=status))  # type: ignore[arg-type]
    return update_plan(entries)


# -- ask_user's questions as permission questions -------------------------------------------------------------------
DISMISS = "dismiss"  # Gemini CLI's Esc: no question is answered
SKIP = "skip"  # a free-text question: the protocol's permission question cannot carry text


def question_options(question: Question) -> list[PermissionOption]:
    """A question's choices as permission options (one to pick: a multiSelect question takes one choice too), and
    a way to dismiss. A text question can only be skipped: ACP's stable protocol has no free-text answer."""
    match question.kind:
        case "yesno":
            labels = ["Yes", "No"]
        case "choice":
            labels = [f"{o.label} — {o.description}" if o.description else o.label for o in question.options]
        case _:
            labels = []
    options = [PermissionOption(option_id=f"option-{n}", name=label, kind="allow_once")
               for n, label in enumerate(labels)]
    if not labels:
        options.append(PermissionOption(option_id=SKIP, name="Skip (answer in your next message)",
                                        kind="allow_once"))
    options.append(PermissionOption(option_id=DISMISS, name="Dismiss the questions", kind="reject_once"))
    return options


def question_answer(option_id: str | None, question: Question) -> str | None:
    """The answer the chosen option stands for: an option's label, Yes or No; None for skip (unanswered)."""
    if option_id is None or not option_id.startswith("option-") or not option_id[7:].isdigit():
        return None
    n = int(option_id[7:])
    labels = ["Yes", "No"] if question.kind == "yesno" else [o.label for o in question.options]
    return labels[n] if n < len(labels) else None


def question_content(question: Question, n: int, total: int) -> list[Any]:
    header = f"[{question.header}] " if question.header else ""
    counted = f"Question {n}/{total}: " if total > 1 else ""
    return [tool_content(text_block(f"{counted}{header}{question.question}"))]


# -- commands ------------------------------------------------------------------------------------------------------
def available_commands(commands: Mapping[str, Any]) -> AvailableCommandsUpdate:
    listed = []
    for name, command in sorted(commands.items()):
        description = (getattr(command, "description", "") or f"Custom command /{name}").strip()
        listed.append(AvailableCommand(name=name, description=description, input=AvailableCommandInput(
            root=UnstructuredCommandInput(hint="arguments"))))
    return AvailableCommandsUpdate(session_update="available_commands_update", available_commands=listed)


# -- prompts -----------------------------------------------------------------------------------------------------------
def file_path_of(uri: str) -> str | None:
    parts = urlsplit(uri)
    if parts.scheme == "file":
        return unquote(parts.path)
    if not parts.scheme and uri.startswith("/"):
        return uri
    return None


def prompt_from_blocks(blocks: Sequence[Any], root: Path) -> str | list[Part]:
    """An ACP prompt as the core's: text as is, a file resource link as an `@path` mention (read through
    read_many_files, so confined like the user's own mentions), embedded text resources as quoted context,
    images as inline data. Without images it stays a string, so its mentions are read."""
    text: list[str] = []
    images: list[InlineDataPart] = []
    for block in blocks:
        match getattr(block, "type", None):
            case "text":
                text.append(block.text)
            case "image" | "audio":
                images.append(InlineDataPart(block.mime_type, block.data))
            case "resource_link":
                path = file_path_of(block.uri)
                if path is not None:
                    shown = _relative(Path(path), root)
                    text.append(f"@{shown.replace(' ', chr(92) + ' ')}")
                else:
                    text.append(f"[{block.name}]({block.uri})")
            case "resource":
                resource = block.resource
                body = getattr(resource, "text", None)
                if body is not None:
                    text.append(f"\n--- Content from {resource.uri} ---\n{body}\n--- End of content ---")
                elif (blob := getattr(resource, "blob", None)) is not None:
                    mime = getattr(resource, "mime_type", None) or "application/octet-stream"
                    _check_base64(blob)
                    images.append(InlineDataPart(mime, blob))
    joined = " ".join(part for part in text if part)
    if not images:
        return joined
    return [*([TextPart(joined)] if joined else []), *images]


def _check_base64(data: str) -> None:
    base64.b64decode(data, validate=True)  # binascii.Error (a ValueError) for bad data: invalid params


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


# -- replaying a saved session -----------------------------------------------------------------------------------------
def replay(transcript: Iterable[Any], kinds: Mapping[str, str], root: Path) -> list[Any]:
    """A saved transcript as the updates a client would have seen: prompts, answers and finished calls."""
    updates: list[Any] = []
    for entry in transcript:
        data = entry.data
        match entry.kind:
            case "prompt":
                updates.append(update_user_message_text(str(data.get("text", ""))))
            case "answer" if data.get("text"):
                updates.append(update_agent_message_text(str(data["text"])))
            case "call":
                call_id = str(data.get("call_id") or data.get("name"))
                args = data.get("args") if isinstance(data.get("args"), dict) else {}
                ok = data.get("state") == "success"
                name = str(data.get("name", ""))
                updates.append(start_tool_call(
                    call_id, str(data.get("description") or data.get("display_name") or name),
                    kind=tool_kind(name, kinds), status="pending",  # type: ignore[arg-type]
                    locations=locations(args, root), raw_input=args))
                updates.append(update_tool_call(call_id, status="completed" if ok else "failed",
                                                content=_saved_content(data)))
    return updates


def _saved_content(data: Mapping[str, Any]) -> list[Any]:
    display = data.get("display")
    if isinstance(display, dict) and display.get("$type") == "FileDiff":
        return [tool_diff_content(str(display.get("file_path", "")), str(display.get("new_content", "")),
                                  None if display.get("is_new_file") else str(display.get("original_content", "")))]
    if isinstance(display, dict) and display.get("$type") == "ShellOutput" and display.get("output"):
        return [tool_content(text_block(str(display["output"])))]
    error = data.get("error")
    if isinstance(error, dict) and error.get("message"):
        return [tool_content(text_block(str(error["message"])))]
    if isinstance(display, str) and display:
        return [tool_content(text_block(display))]
    return []
