"""AgentReport: how a subagent's run ended (reason, turns, time) and the result it handed back, as Markdown."""

from __future__ import annotations

from typing import Any

from textual.containers import Vertical
from textual.widgets import Markdown, Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import AgentReport


class AgentReportDisplay(Vertical):
    def __init__(self, report: AgentReport) -> None:
        super().__init__(classes="display display-agent")
        self.report = report

    def compose(self) -> Any:
        report = self.report
        turns = f"{report.turns} turn{'s' if report.turns != 1 else ''}"
        yield Static(f"{report.agent} · {report.reason} · {turns} · {report.duration_s:.1f}s",
                     classes="agent-report-line")
        yield Markdown(report.result, classes="display-markdown")


register_display(AgentReport, AgentReportDisplay)
