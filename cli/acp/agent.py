"""The ACP front end's agent: ACP requests as SessionFace verbs, the session's events as ACP updates.

One `AcpSession` per ACP session: a core session built by the composition root, a pump that turns its events into
`session/update` notifications in order, and its confirmations asked through `session/request_permission`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text, update_agent_thought_text
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    ClientCapabilities,
    CurrentModeUpdate,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    StopReason,
    UsageUpdate,
)

from gemini_tui.cli import __version__
from gemini_tui.cli.acp import updates
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, Decision, InfoConfirmation, Question
from gemini_tui.core.ground.display import TodoList
from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ConfirmationRequested,
    ContextUsed,
    ErrorOccurred,
    Event,
    LoopSuspected,
    McpServerState,
    McpServerStatusChanged,
    Notice,
    TextDelta,
    ThoughtDelta,
    ToolOutputChunk,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)

if TYPE_CHECKING:
    from acp.interfaces import Client

    from gemini_tui.core.session.face import SessionFace

log = logging.getLogger(__name__)

# A turn's last updates are sent before its answer: how long the pump may take to catch up after the turn ends
DRAIN_S = 10.0
REFUSALS = {"blocked", "safety"}
SHELL_TOOL = "run_shell_command"


@dataclass(frozen=True)
class SessionRequest:
    """What the composition root needs to build a core session for an ACP session."""

    cwd: Path
    mcp_servers: Sequence[Any] = ()
    additional_directories: Sequence[str] = ()


Builder = Callable[[SessionRequest], "SessionFace"]
Lister = Callable[[Path], list[Any]]


@dataclass
class AcpSession:
    """One ACP session: its core session, its event pump, and what the current turn has seen."""

    face: SessionFace
    client: Client
    client_caps: ClientCapabilities
    pump: asyncio.Task[None] | None = None
    turn_ended: asyncio.Event = field(default_factory=asyncio.Event)
    turn_reason: TurnEndReason | None = None
    last_error: ErrorOccurred | None = None
    announced: set[str] = field(default_factory=set)
    statuses: dict[str, str] = field(default_factory=dict)
    output: dict[str, list[str]] = field(default_factory=dict)
    asking: set[asyncio.Task[None]] = field(default_factory=set)
    running: asyncio.Task[TurnEndReason | None] | None = None
    refused: bool = False  # the model's safety filters cut the answer short
    executing_shell: str | None = None  # the shell call running now (set synchronously, from a bus tap)
    terminals: dict[str, str] = field(default_factory=dict)  # call id -> the client terminal it ran in
    # set by session/cancel, cleared by the next prompt: no question is put, and no answer taken, in between (a
    # question still queued in the pump, or an "allow" the client sends after cancelling, must not run a call)
    questions_closed: bool = False

    @property
    def id(self) -> str:
        return self.face.session_id

    def kinds(self) -> dict[str, str]:
        return {tool.name: str(getattr(tool, "kind", "other")) for tool in self.face.tools}

    async def send(self, update: Any) -> None:
        await self.client.session_update(session_id=self.id, update=update)

    def tap(self, event: Event) -> None:
        if isinstance(event, CallStateChanged) and event.call.state is CallState.executing \
                and event.call.name == SHELL_TOOL:
            self.executing_shell = event.call.call_id

    async def show_terminal(self, terminal_id: str) -> None:
        """Puts the client's terminal on the running shell call, once the call's own updates have gone out."""
        call_id = self.executing_shell
        if call_id is None:
            return
        self.terminals[call_id] = terminal_id
        for _ in range(100):  # the pump sends the call's in_progress first; a client must know the call
            if self.statuses.get(call_id) == "in_progress":
                break
            await asyncio.sleep(0.02)
        from acp import tool_terminal_ref, update_tool_call

        await self.send(update_tool_call(call_id, content=[tool_terminal_ref(terminal_id)]))

    # -- events -> updates -----------------------------------------------------------------------------------------
    async def run_pump(self, events: Any) -> None:
        async for event in events:
            try:
                await self.handle(event)
            except (ConnectionError, asyncio.CancelledError):
                raise
            except Exception:  # one bad event must not stop the stream of a session
                log.exception("ACP: could not send an update for %s", type(event).__name__)

    async def handle(self, event: Event) -> None:
        match event:
            case TextDelta(text=text) if text:
                await self.send(update_agent_message_text(text))
            case ThoughtDelta(text=text) if text:
                await self.send(update_agent_thought_text(text))
            case CallStateChanged(call=call):
                await self._call_changed(call)
            case ToolOutputChunk(call_id=call_id, chunk=chunk):
                self.output.setdefault(call_id, []).append(chunk)
            case CallFinished(call=call, result=result, sent=sent):
                if call.call_id not in self.announced:
                    await self._announce(call)
                finished = updates.call_finished(call, result, sent, "".join(self.output.pop(call.call_id, [])))
                if (terminal_id := self.terminals.pop(call.call_id, None)) is not None:
                    from acp import tool_terminal_ref

                    finished.content = [tool_terminal_ref(terminal_id), *(finished.content or [])]
                await self.send(finished)
                self.statuses[call.call_id] = updates.STATUS[call.state]
                if isinstance(result.return_display, TodoList):  # write_todos: the client's plan follows the list
                    await self.send(updates.plan_update(result.return_display))
            case ConfirmationRequested() if self.questions_closed:
                if not event.future.done():
                    event.future.set_result(Decision(ConfirmationOutcome.cancel))
                self.face.cancel()  # the turn the cancel was meant for, if it began after the cancel
            case TurnStarted() if self.questions_closed:
                self.face.cancel()  # a cancel that overtook the turn's start still ends it
            case ConfirmationRequested():
                task = asyncio.ensure_future(self._ask(event))
                self.asking.add(task)
                task.add_done_callback(self.asking.discard)
            case LoopSuspected(future=future):
                if not future.done():  # no one to ask: stop, as headless does
                    future.set_result(False)
            case ContextUsed(tokens=tokens, window=window) if window > 0:
                await self.send(UsageUpdate(session_update="usage_update", used=max(0, tokens), size=window))
            case ErrorOccurred():
                self.last_error = event
            case McpServerStatusChanged(state=McpServerState.connected):
                await self.send(updates.available_commands(self.face.commands))
            case Notice(message=message) if "finish reason SAFETY" in message:
                self.refused = True
                log.info("ACP session %s: %s", self.id, message)
            case Notice(message=message, level=level):
                log.info("ACP session %s: %s: %s", self.id, level, message)
            case TurnFinished(reason=reason):
                self.turn_reason = reason
                self.turn_ended.set()

    async def _announce(self, call: Any) -> None:
        self.announced.add(call.call_id)
        self.statuses[call.call_id] = updates.STATUS[call.state]
        await self.send(updates.call_started(call, updates.tool_kind(call.name, self.kinds()), self.face.root))

    async def _call_changed(self, call: Any) -> None:
        if call.state.is_final:
            return  # CallFinished follows with the result
        if call.call_id not in self.announced:
            # as Gemini CLI: a call is shown once it runs (in_progress) or must be approved (pending)
            if call.state in (CallState.awaiting_approval, CallState.executing):
                await self._announce(call)
            return
        status = updates.STATUS[call.state]
        if self.statuses.get(call.call_id) != status:
            self.statuses[call.call_id] = status
            await self.send(updates.call_progress(call))

    async def _ask(self, event: ConfirmationRequested) -> None:
        """Asks the client; its answer (or none: cancelled, an error, a closed connection) resolves the future."""
        if isinstance(event.details, InfoConfirmation) and event.details.questions:
            await self._ask_questions(event, event.details.questions)
            return
        options = updates.permission_options(event.details)
        outcome = ConfirmationOutcome.cancel
        try:
            if event.call.call_id not in self.announced:
                await self._announce(event.call)
            from acp import update_tool_call

            tool_call = update_tool_call(
                event.call.call_id, title=updates.title(event.call), status="pending",
                kind=updates.tool_kind(event.call.name, self.kinds()),  # type: ignore[arg-type]
                content=updates.confirmation_content(event.details),
                locations=updates.locations(event.call.args, self.face.root), raw_input=dict(event.call.args))
            answer = await self.client.request_permission(session_id=self.id, tool_call=tool_call, options=options)
            chosen = answer.outcome
            if isinstance(chosen, AllowedOutcome) and not self.questions_closed:
                outcome = updates.outcome_for(chosen.option_id, options)
        except asyncio.CancelledError:
            outcome = ConfirmationOutcome.cancel
        except Exception as exc:  # the client failed or went away: nothing was allowed
            log.warning("ACP: the permission request failed (%s); the call is rejected", exc)
        finally:
            if not event.future.done():
                event.future.set_result(Decision(outcome))

    async def _ask_questions(self, event: ConfirmationRequested, questions: Sequence[Question]) -> None:
        """ask_user: one permission question per question, its choices as the options; dismissing (or a cancel, an
        error) leaves every question unanswered, as Gemini CLI's Esc does."""
        answers: dict[str, str] = {}
        decision = Decision(ConfirmationOutcome.cancel)
        try:
            if event.call.call_id not in self.announced:
                await self._announce(event.call)
            from acp import update_tool_call

            for n, question in enumerate(questions):
                options = updates.question_options(question)
                tool_call = update_tool_call(
                    event.call.call_id, title=question.header or updates.title(event.call), status="pending",
                    kind="other", content=updates.question_content(question, n + 1, len(questions)),
                    raw_input=dict(event.call.args))
                answer = await self.client.request_permission(session_id=self.id, tool_call=tool_call,
                                                              options=options)
                chosen = answer.outcome
                if not isinstance(chosen, AllowedOutcome) or chosen.option_id not in {o.option_id for o in options} \
                        or chosen.option_id == updates.DISMISS:
                    return
                if (said := updates.question_answer(chosen.option_id, question)) is not None:
                    answers[str(n)] = said
            decision = Decision(ConfirmationOutcome.proceed_once, answers=answers)
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # the client failed or went away: nothing was answered
            log.warning("ACP: asking the model's questions failed (%s); they are dismissed", exc)
        finally:
            if not event.future.done():
                event.future.set_result(decision)

    def cancel(self) -> None:
        """session/cancel: the core stops the turn; pending questions are answered `cancel` at once, and questions
        stay closed until the next prompt."""
        self.questions_closed = True
        self.face.cancel()
        for task in list(self.asking):
            task.cancel()


class GeminiAcpAgent:
    """The ACP Agent (acp.interfaces.Agent): snake_case methods the SDK's router calls with validated params."""

    def __init__(self, build: Builder, list_saved: Lister, *, auth_methods: Sequence[Any] = (),
                 disabled_modes: Sequence[str] = ()) -> None:
        self._build = build
        self._list_saved = list_saved
        self._auth_methods = list(auth_methods)
        self._disabled_modes = list(disabled_modes)
        self._client: Client | None = None
        self._caps = ClientCapabilities()
        self._initialized = False
        self.sessions: dict[str, AcpSession] = {}
        self._background: set[asyncio.Future[Any]] = set()
        self._files: Any = None  # the client's editor buffers, when it offers them (client_files.py)

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    # -- lifecycle ------------------------------------------------------------------------------------------------
    async def initialize(self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
                         client_info: Implementation | None = None, **_: Any) -> InitializeResponse:
        self._initialized = True
        self._caps = client_capabilities or ClientCapabilities()
        self._offer_editor_files()
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            auth_methods=self._auth_methods,
            agent_info=Implementation(name="gemini-tui", title="gemini-tui", version=__version__),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        self._require_init()
        if method_id not in {m.id for m in self._auth_methods}:
            raise RequestError.invalid_params({"methodId": method_id, "details": "unknown authentication method"})
        return None  # the key is read from the environment when a session is built

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None, **_: Any) -> NewSessionResponse:
        self._require_init()
        state = await self._open(cwd, mcp_servers, additional_directories)
        asyncio.get_running_loop().call_soon(self._offer_commands, state)
        return NewSessionResponse(session_id=state.id, modes=self._modes(state),
                                  config_options=[self._model_option(state)])

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None, **_: Any) -> LoadSessionResponse:
        self._require_init()
        from gemini_tui.core.persistence.records import NotASession

        state = await self._open(cwd, mcp_servers, additional_directories, register=False)
        try:
            loaded = state.face.saved.resume(session_id)
        except (LookupError, NotASession, OSError) as exc:
            await self._close(state)
            raise RequestError.resource_not_found(session_id) from exc
        if session_id in self.sessions:  # loaded twice: the older one goes
            await self._close(self.sessions.pop(session_id))
        self.sessions[state.id] = state
        for update in updates.replay(loaded.transcript, state.kinds(), state.face.root):
            await state.send(update)
        if (todos := state.face.todos) is not None and todos.todos:  # the plan the history says
            await state.send(updates.plan_update(todos))
        asyncio.get_running_loop().call_soon(self._offer_commands, state)
        return LoadSessionResponse(modes=self._modes(state), config_options=[self._model_option(state)])

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        self._require_init()
        from datetime import UTC, datetime

        root = _directory(cwd) if cwd else Path.cwd().resolve()
        found = [s for s in self._list_saved(root) if s.readable]
        found.sort(key=lambda s: s.modified, reverse=True)
        return ListSessionsResponse(sessions=[
            SessionInfo(session_id=s.id, cwd=str(root), title=(s.first_prompt or "")[:80] or None,
                        updated_at=datetime.fromtimestamp(s.modified, UTC).isoformat().replace("+00:00", "Z"))
            for s in found])

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        state = self._session(session_id)
        if mode_id not in updates.MODES or mode_id in self._disabled_modes:
            raise RequestError.invalid_params({"modeId": mode_id, "details": "unknown mode"})
        try:
            state.face.approval_mode = updates.MODES[mode_id][0]
        except PermissionError as exc:  # security.disableYoloMode
            raise RequestError.invalid_params({"modeId": mode_id, "details": str(exc)}) from exc
        await state.send(CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id))
        return SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **_: Any) -> SetSessionConfigOptionResponse:
        state = self._session(session_id)
        if config_id != "model" or not isinstance(value, str):
            raise RequestError.invalid_params({"configId": config_id, "details": "unknown option"})
        if state.face.is_running:
            raise RequestError.invalid_request({"details": "a prompt is running; switch models after it ends"})
        try:
            state.face.set_model(value)
        except Exception as exc:
            raise RequestError.invalid_params({"value": value, "details": str(exc)}) from exc
        return SetSessionConfigOptionResponse(config_options=[self._model_option(state)])

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        state = self._session(session_id)
        if state.running is not None and not state.running.done():
            raise RequestError.invalid_request({"details": "a prompt is already running in this session"})
        try:
            message = updates.prompt_from_blocks(prompt, state.face.root)
        except ValueError as exc:
            raise RequestError.invalid_params({"details": f"bad content: {exc}"}) from exc
        if not message:
            raise RequestError.invalid_params({"details": "the prompt is empty"})
        state.questions_closed = False
        state.turn_ended.clear()
        state.turn_reason = None
        state.last_error = None
        state.refused = False
        state.running = asyncio.ensure_future(self._run(state, message))
        try:
            reason = await asyncio.shield(state.running)
        except asyncio.CancelledError:  # the connection is closing: the turn is cancelled with it
            state.cancel()
            state.running.cancel()
            raise
        # the pump sends every update of the turn before the answer goes
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(state.turn_ended.wait(), DRAIN_S)
        reason = state.turn_reason or reason
        return PromptResponse(stop_reason=self._stop_reason(state, reason))

    async def _run(self, state: AcpSession, message: Any) -> TurnEndReason | None:
        if state.questions_closed:  # cancelled before the turn began (the cancel overtook the prompt): none runs
            state.turn_ended.set()
            return TurnEndReason.cancelled
        if isinstance(message, str) and message.startswith("/"):
            name = message[1:].split(None, 1)[0] if len(message) > 1 else ""
            if name in state.face.commands:
                return await state.face.send_command(message)
        return await state.face.send(message)

    def _stop_reason(self, state: AcpSession, reason: TurnEndReason | None) -> StopReason:
        if state.refused:
            return "refusal"
        match reason:
            case TurnEndReason.completed | TurnEndReason.loop_detected | TurnEndReason.stopped:
                return "end_turn"
            case TurnEndReason.cancelled:
                return "cancelled"
            case TurnEndReason.max_turns:
                return "max_turn_requests"
            case TurnEndReason.blocked:  # a hook refused the prompt
                return "refusal"
        error = state.last_error
        if error is not None and (error.kind in REFUSALS or "finish reason SAFETY" in error.message):
            return "refusal"
        raise RequestError.internal_error({"details": error.message if error else "the turn failed"})

    async def cancel(self, session_id: str, **_: Any) -> None:
        state = self.sessions.get(session_id)
        if state is not None:
            state.cancel()

    def _offer_editor_files(self) -> None:
        """With `fs` advertised, the tools' text reads and writes inside the roots go through the client."""
        from gemini_tui.cli.acp.client_files import ClientFiles
        from gemini_tui.tools.workspace.text_file import EDITORS

        if self._files is not None and self._files in EDITORS:
            EDITORS.remove(self._files)
        self._files = None
        fs = self._caps.fs
        if fs is None or not (fs.read_text_file or fs.write_text_file) or self._client is None:
            return
        self._files = ClientFiles(asyncio.get_running_loop(), self._client, read=bool(fs.read_text_file),
                                  write=bool(fs.write_text_file), sessions=lambda: list(self.sessions.values()))
        EDITORS.append(self._files)

    # -- helpers -------------------------------------------------------------------------------------------------------
    def _require_init(self) -> None:
        if not self._initialized:
            raise RequestError.invalid_request({"details": "call initialize first"})

    def _session(self, session_id: str) -> AcpSession:
        self._require_init()
        state = self.sessions.get(session_id)
        if state is None:
            raise RequestError.invalid_params({"sessionId": session_id, "details": "no such session"})
        return state

    async def _open(self, cwd: str, mcp_servers: list[Any] | None, additional: list[str] | None, *,
                    register: bool = True) -> AcpSession:
        root = _directory(cwd)
        if self._client is None:
            raise RequestError.internal_error({"details": "no client connection"})
        try:
            face = self._build(SessionRequest(root, tuple(mcp_servers or ()), tuple(additional or ())))
        except RequestError:
            raise
        except Exception as exc:  # a configuration that makes a run impossible
            raise RequestError.internal_error({"details": str(exc)}) from exc
        state = AcpSession(face, self._client, self._caps)
        face.bus.tap(state.tap)
        if self._caps.terminal:
            self._offer_terminal(state)
        events = face.bus.subscribe()
        state.pump = asyncio.ensure_future(state.run_pump(events))
        for notice in face.notices:
            log.info("ACP: %s", notice.message)
        for message in _trust_notices(face):  # what an untrusted folder's settings were refused: said here too
            print(f"gemini-tui: {message}", file=sys.stderr, flush=True)
        self._later(_start(face))
        if register:
            self.sessions[state.id] = state
        return state

    def _offer_terminal(self, state: AcpSession) -> None:
        """With `terminal` advertised, shell commands run in the client's terminal (still asked, still sandboxed)."""
        from gemini_tui.cli.acp.client_terminal import AcpTerminal

        for tool in state.face.tools:
            if tool.name == SHELL_TOOL and hasattr(tool, "terminal"):
                tool.terminal = AcpTerminal(state.client, lambda: state.id, state.show_terminal)  # type: ignore[attr-defined]

    def _offer_commands(self, state: AcpSession) -> None:
        """After the session's answer (a client knows its id then): its commands, and what folder trust withheld."""
        self._later(_quietly(state.send(updates.available_commands(state.face.commands))))
        if told := _trust_notices(state.face):
            self._later(_quietly(state.send(update_agent_message_text("".join(f"⚠ {m}\n\n" for m in told)))))

    def _later(self, coro: Any) -> None:
        """Runs `coro` beside the request; kept referenced until it ends (the loop holds tasks only weakly)."""
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _modes(self, state: AcpSession) -> Any:
        return updates.mode_state(state.face.approval_mode, self._disabled_modes)

    def _model_option(self, state: AcpSession) -> SessionConfigOptionSelect:
        current = state.face.model_name
        return SessionConfigOptionSelect(
            type="select", id="model", name="Model", category="model", current_value=current,
            options=[SessionConfigSelectOption(value=name, name=name) for name in updates.model_choices(current)])

    async def _close(self, state: AcpSession) -> None:
        state.cancel()
        if state.running is not None and not state.running.done():
            state.running.cancel()
            await asyncio.gather(state.running, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(state.face.close(), 10)
        if state.pump is not None:
            state.pump.cancel()
            await asyncio.gather(state.pump, return_exceptions=True)

    async def shutdown(self) -> None:
        """The client went away: every turn is cancelled, every session closed (its servers and children end)."""
        await asyncio.gather(*(self._close(s) for s in list(self.sessions.values())), return_exceptions=True)
        self.sessions.clear()
        from gemini_tui.tools.workspace.text_file import EDITORS

        if self._files in EDITORS:
            EDITORS.remove(self._files)


def _trust_notices(face: SessionFace) -> list[str]:
    return list(getattr(face.settings, "trust_notices", ()))


def _directory(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute():
        raise RequestError.invalid_params({"cwd": cwd, "details": "cwd must be an absolute path"})
    if not path.is_dir():
        raise RequestError.invalid_params({"cwd": cwd, "details": "cwd is not a directory"})
    return path.resolve()


async def _start(face: SessionFace) -> None:
    try:
        await face.start(0.0)
    except Exception:
        log.exception("ACP: the session's servers could not start")


async def _quietly(coro: Any) -> None:
    try:
        await coro
    except Exception as exc:
        log.debug("ACP: an update could not be sent: %s", exc)
