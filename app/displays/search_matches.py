"""SearchMatches: matching lines grouped by file, with line numbers and the pattern highlighted."""

from __future__ import annotations

import re

from textual.content import Content
from textual.widgets import Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import SearchMatches


class SearchMatchesDisplay(Static):
    def __init__(self, found: SearchMatches) -> None:
        self.found = found
        try:
            pattern: re.Pattern[str] | None = re.compile(found.pattern)
        except re.error:
            pattern = None
        where = f" in {found.path}" if found.path else ""
        include = f" ({found.include})" if found.include else ""
        lines = [Content.styled(f'{len(found.matches)} match(es) for "{found.pattern}"{where}{include}', "bold")]
        current_file = None
        for match in found.matches:
            if match.file != current_file:
                current_file = match.file
                lines.append(Content.styled(match.file, "$text-accent bold"))
            text = Content(match.text.rstrip())
            if pattern is not None:
                text = text.highlight_regex(pattern, style="$text-warning bold")
            lines.append(Content.assemble((f"  {match.line:>5}: ", "$text-muted"), text))
        super().__init__(Content("\n").join(lines), classes="display display-matches")


register_display(SearchMatches, SearchMatchesDisplay)
