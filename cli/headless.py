"""Headless printers for `gemini-tui -p`: the session's events as text, one JSON object, or JSON lines."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TextIO

from gemini_tui.core.ground.events import (
    CallFinished,
    CallState,
    CallStateChanged,
    ErrorOccurred,
    Event,
    McpServerState,
    McpServerStatusChanged,
    Notice,
    Retrying,
    TextDelta,
    ToolCallInfo,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)
from gemini_tui.core.ground.stats import CallDecision, SessionStats
from gemini_tui.core.ground.terminal_text import TerminalTextStream, clean_terminal_text
from gemini_tui.core.ground.text_boundary import json_text

if TYPE_CHECKING:
    from gemini_tui.cli.trajectory import TrajectoryRecorder
    from gemini_tui.core.session.face import SessionFace


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    stream_json = "stream-json"
    atif = "atif"  # quiet while it runs, like json; then the whole run as one ATIF trajectory


# Exit codes of `gemini-tui -p` (documented in the README).
EXIT_OK = 0
EXIT_FAILED = 1  # the run failed: API error, loop, turn limit, cancelled
EXIT_INTERRUPTED = 130
BLOCKED_ERROR = "agent_execution_blocked"  # the error type of a prompt a hook blocked


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _tokens(stats: SessionStats, model: str) -> dict[str, int]:
    tokens = stats.model(model).tokens
    return {"input": max(0, tokens.prompt - tokens.cached), "prompt": tokens.prompt,
            "candidates": tokens.candidates, "total": tokens.total, "cached": tokens.cached,
            "thoughts": tokens.thoughts, "tool": tokens.tool}


def _decisions(counts: dict[CallDecision, int]) -> dict[str, int]:
    return {decision.value: counts.get(decision, 0) for decision in CallDecision}


def stats_json(stats: SessionStats) -> dict[str, Any]:
    """The `stats` object of `--output-format json` (the shape Gemini CLI prints)."""
    models: dict[str, Any] = {}
    for name, model in stats.models.items():
        api = {"totalRequests": model.requests, "totalErrors": model.errors, "totalLatencyMs": model.latency_ms}
        models[name] = {
            "api": {**api, "errorsByType": dict(model.errors_by_type)},
            "tokens": _tokens(stats, name),
            "roles": {"main": {**api, "tokens": _tokens(stats, name)}},
        }
    by_name = {
        name: {"count": tool.count, "success": tool.success, "fail": tool.fail, "durationMs": tool.duration_ms,
               "decisions": _decisions(tool.decisions)}
        for name, tool in stats.tools.items()
    }
    tools = {
        "totalCalls": stats.total_calls,
        "totalSuccess": sum(t.success for t in stats.tools.values()),
        "totalFail": sum(t.fail for t in stats.tools.values()),
        "totalDurationMs": sum(t.duration_ms for t in stats.tools.values()),
        "totalDecisions": _decisions(stats.decisions()),
        "byName": by_name,
    }
    return {"models": models, "tools": tools,
            "files": {"totalLinesAdded": stats.lines_added, "totalLinesRemoved": stats.lines_removed}}


def stream_stats_json(stats: SessionStats, duration_ms: int) -> dict[str, Any]:
    """The `stats` of the final `result` line of `--output-format stream-json`."""
    def flat(prompt: int, candidates: int, cached: int, total: int) -> dict[str, int]:
        return {"total_tokens": total, "input_tokens": prompt, "output_tokens": candidates, "cached": cached,
                "input": max(0, prompt - cached)}

    models = {name: flat(m.tokens.prompt, m.tokens.candidates, m.tokens.cached, m.tokens.total)
              for name, m in stats.models.items()}
    totals = flat(sum(m.tokens.prompt for m in stats.models.values()),
                  sum(m.tokens.candidates for m in stats.models.values()),
                  sum(m.tokens.cached for m in stats.models.values()), stats.total_tokens)
    return {**totals, "duration_ms": duration_ms, "tool_calls": stats.total_calls, "models": models}


def error_document(output_format: str, kind: str, message: str) -> str:
    """A run that failed before its session existed, in the `json` or `stream-json` format (one line for the
    latter: its `result` event)."""
    error = {"type": kind, "message": message}
    if OutputFormat(output_format) is OutputFormat.stream_json:
        return json_text({"type": "result", "timestamp": _now(), "status": "error", "error": error},
                         separators=(",", ":"))
    return json_text({"response": "", "error": error}, indent=2)


class HeadlessPrinter:
    """Prints one prompt's run. Model text goes to `out`; notices and retries to `err`; errors to `err`, or
    as `error` events on `out` in stream-json."""

    def __init__(self, output_format: OutputFormat, out: TextIO, err: TextIO,
                 trajectory: TrajectoryRecorder | None = None) -> None:
        self.format = OutputFormat(output_format)
        self.trajectory = trajectory  # what `atif` prints at the end
        self.out = out
        self.err = err
        self._current: list[str] = []  # text of the model turn since the last call (void if it is retried)
        # the model's text cleaned as it streams: a sequence cut between two deltas is held back, not printed in
        # pieces; a new stream starts with each block of text (after a call, a retry, a turn)
        self._text = TerminalTextStream()
        self._errors: list[ErrorOccurred] = []
        self._seen: set[str] = set()  # calls already announced
        self._ended_with_newline = True
        self._started = time.monotonic()
        self._session: SessionFace | None = None
        self.output_closed = False

    @property
    def response(self) -> str:
        return "".join(self._current)

    def _line(self, **event: Any) -> None:
        self._write(json_text({"type": event.pop("type"), "timestamp": _now(), **event}, separators=(",", ":"))
                    + "\n")

    def _write(self, text: str) -> None:
        """Writes to `out`. When its reader has gone (`| head -1`), the run is cancelled, as a pipeline expects:
        nothing more is printed, and no edit or command runs for output nobody reads."""
        if self.output_closed:
            return
        if self.format is OutputFormat.text:
            text = clean_terminal_text(text)  # tool results and messages too; JSON escapes control bytes itself
        try:
            self.out.write(text)
            self.out.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the stream object itself was closed
            self.output_closed = True
            if self._session is not None:
                self._session.cancel()

    def _notice(self, text: str) -> None:
        self.err.write(clean_terminal_text(text.rstrip("\n")) + "\n")
        self.err.flush()

    async def run(self, session: SessionFace, prompt: str) -> int:
        """Sends `prompt`, printing as events arrive; returns the exit code."""
        self._started = time.monotonic()
        self._session = session
        events = session.bus.subscribe()
        if self.format is OutputFormat.stream_json:
            self._line(type="init", session_id=session.session_id, model=session.model_name)
        for notice in session.notices:
            self.handle(notice, session)
        ended: list[str] = []  # the turn's closing message

        async def consume() -> None:
            async for event in events:
                self.handle(event, session)
                if isinstance(event, TurnFinished):
                    ended.append(event.message)
                    return

        consumer = asyncio.ensure_future(consume())
        reason: TurnEndReason | None = None
        try:
            if prompt.startswith("/"):  # a custom command (`-p "/git:msg fix typo"`), else sent as written
                reason = await session.send_command(prompt)
            if reason is None:
                reason = await session.send(prompt)
        finally:
            await asyncio.wait({consumer}, timeout=5)
            consumer.cancel()
            await asyncio.gather(consumer, return_exceptions=True)
            await events.aclose()  # type: ignore[attr-defined]
        return self.finish(session, reason, ended[-1] if ended else "")

    def handle(self, event: Event, session: SessionFace) -> None:
        match event:
            case TurnStarted(prompt=prompt) if self.format is OutputFormat.stream_json:
                self._end_text()
                self._line(type="message", role="user", content=prompt)
            case TurnStarted() | TurnFinished():
                self._end_text()
            case TextDelta(text=text):
                self._model_text(self._text.feed(text))  # headless output must not drive the terminal either
            case CallStateChanged(call=call) if call.call_id not in self._seen and (
                    call.decision or call.state.is_final):
                # once the policy has answered (or the call ended before it could): tool_use carries the answer
                self._end_text()
                self._seen.add(call.call_id)
                self._current = []  # the JSON `response` is the last model turn's text, as in Gemini CLI
                if self.format is OutputFormat.text and not self._ended_with_newline:
                    self._write("\n")  # the model's next words start on their own line
                    self._ended_with_newline = True
                if self.format is OutputFormat.stream_json:
                    approval = {"decision": call.decision, "rule": call.rule} if call.decision else {}
                    if call.reason:
                        approval["reason"] = call.reason
                    self._line(type="tool_use", tool_name=call.name, tool_id=call.call_id, parameters=call.args,
                               **({"approval": approval} if approval else {}), **_made_by(call))
            case CallFinished(call=call, result=result) if self.format is OutputFormat.text:
                if result.error is not None:  # as Gemini CLI: why a call did nothing, beside the answer
                    self._notice(f"Error executing tool {call.name}: {result.error.message}")
            case CallFinished(call=call, result=result) if self.format is OutputFormat.stream_json:
                status = "success" if call.state is CallState.success else "error"
                extra: dict[str, Any] = {}
                if result.error is not None:
                    extra["error"] = {"type": result.error.kind.value, "message": result.error.message}
                self._line(type="tool_result", tool_id=call.call_id, status=status, **extra, **_made_by(call))
            case Retrying(attempt=attempt, delay_s=delay, reason=why, discard_partial=discard):
                if discard:
                    self._current = []
                    self._text.reset()  # what it held belongs to the void answer
                void = discard and self.format not in (OutputFormat.json, OutputFormat.atif)
                cut = " The partial answer above is void." if void else ""
                self._notice(f"Retrying in {delay:.1f}s (attempt {attempt + 1}): {why}.{cut}")
                if void and self.format is OutputFormat.text and not self._ended_with_newline:
                    self._write("\n")  # the retried answer starts on its own line
                    self._ended_with_newline = True
                elif void and self.format is OutputFormat.stream_json:
                    # deltas already printed are not part of the answer: say so where the consumer reads
                    self._line(type="error", severity="warning",
                               message=f"The stream broke ({why}); the partial answer so far is void, retrying.")
            case ErrorOccurred(message=message):
                self._errors.append(event)
                if self.format is OutputFormat.stream_json:
                    self._line(type="error", severity="error", message=message)
                else:
                    self._notice(f"Error: {message}")
            case McpServerStatusChanged(server=server, state=McpServerState.failed, message=why):
                self._notice(f"Warning: MCP server {server} is not available; its tools are not offered. {why}")
            case Notice(message=message, level=level):
                self._notice(f"{'Warning' if level == 'warning' else 'Note'}: {message}")

    def _model_text(self, text: str) -> None:
        """Cleaned model text, printed as the format says."""
        if not text:
            return
        self._current.append(text)
        if self.format is OutputFormat.text:
            self._write(text)
            self._ended_with_newline = text.endswith("\n")
        elif self.format is OutputFormat.stream_json:
            self._line(type="message", role="assistant", content=text, delta=True)

    def _end_text(self) -> None:
        """A block of model text ended: what its stream held back is printed (cleaned), never lost."""
        self._model_text(self._text.flush())

    def finish(self, session: SessionFace, reason: TurnEndReason | None, message: str = "") -> int:
        self._end_text()
        if reason is TurnEndReason.blocked:
            return self._blocked(session, message)
        if reason is TurnEndReason.stopped:
            return self._stopped(session, message)
        ok = reason is TurnEndReason.completed
        failure = self._errors[-1].message if self._errors else (
            "" if ok else f"The run ended: {reason.value if reason else 'unknown'}.")
        kind = self._errors[-1].kind if self._errors else (reason.value if reason else "error")
        match self.format:
            case OutputFormat.text:
                if self.response and not self._ended_with_newline:
                    self._write("\n")
            case OutputFormat.json:
                document: dict[str, Any] = {"session_id": session.session_id, "response": self.response,
                                            "stats": stats_json(session.stats)}
                if not ok:
                    document["error"] = {"type": kind, "message": failure}
                self._write(json_text(document, indent=2) + "\n")
            case OutputFormat.atif if self.trajectory is not None:
                self._write(json_text(self.trajectory.document(), indent=2) + "\n")
            case OutputFormat.stream_json:
                extra: dict[str, Any] = {} if ok else {"error": {"type": kind, "message": failure}}
                duration = int((time.monotonic() - self._started) * 1000)
                self._line(type="result", status="success" if ok else "error",
                           stats=stream_stats_json(session.stats, duration), **extra)
        if self.output_closed:
            return EXIT_OK  # the reader took what it wanted (`| head`), as Gemini CLI sees it
        if reason is TurnEndReason.cancelled:
            return EXIT_INTERRUPTED
        return EXIT_OK if ok else EXIT_FAILED

    def _stopped(self, session: SessionFace, message: str) -> int:
        """A hook's `continue: false` ended the agent loop: the run succeeded with what it answered so far (exit
        0); the stop is said on stderr (text) or in `warnings` (json), and stream-json ends with a successful
        result, as Gemini CLI 0.61 does."""
        match self.format:
            case OutputFormat.text:
                if self.response and not self._ended_with_newline:
                    self._write("\n")
                self._notice(message)
            case OutputFormat.json:
                document: dict[str, Any] = {"session_id": session.session_id, "response": self.response,
                                            "stats": stats_json(session.stats), "warnings": [message]}
                self._write(json_text(document, indent=2) + "\n")
            case OutputFormat.atif if self.trajectory is not None:
                self._notice(message)
                self._write(json_text(self.trajectory.document(), indent=2) + "\n")
            case OutputFormat.stream_json:
                duration = int((time.monotonic() - self._started) * 1000)
                self._line(type="result", status="success", stats=stream_stats_json(session.stats, duration))
        return EXIT_OK

    def _blocked(self, session: SessionFace, message: str) -> int:
        """A hook blocked the prompt: said as a warning on stderr (text), in `error` with its own type (json,
        stream-json) and in `warnings`; the run itself succeeded, so it exits 0, as Gemini CLI 0.61 does."""
        error = {"type": BLOCKED_ERROR, "message": message}
        match self.format:
            case OutputFormat.text:
                self._notice(f"Warning: {message}")
            case OutputFormat.json:
                document: dict[str, Any] = {"session_id": session.session_id, "response": self.response,
                                            "stats": stats_json(session.stats), "error": error,
                                            "warnings": [message]}
                self._write(json_text(document, indent=2) + "\n")
            case OutputFormat.atif if self.trajectory is not None:
                self._notice(f"Warning: {message}")
                self._write(json_text(self.trajectory.document(), indent=2) + "\n")
            case OutputFormat.stream_json:
                self._line(type="error", severity="warning", message=message, error_type=BLOCKED_ERROR)
                duration = int((time.monotonic() - self._started) * 1000)
                self._line(type="result", status="success", stats=stream_stats_json(session.stats, duration),
                           error=error)
        return EXIT_OK


def _made_by(call: ToolCallInfo) -> dict[str, str]:
    """A subagent's call says which agent made it and under which invoke_agent call (gemini-tui's own fields)."""
    return {"agent": call.agent, "parent_tool_id": call.parent_call_id} if call.agent else {}
