"""WebPage: the pages web_fetch read (status, title, the start of their text) or why each failed."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import WebPage

PREVIEW_CHARS = 1500


class WebPageDisplay(Static):
    def __init__(self, page: WebPage) -> None:
        self.page = page
        parts = [Content.assemble(("Fetch: ", "$text-muted"), (page.prompt, "bold"))]
        for fetched in page.pages:
            url = fetched.final_url or fetched.url
            if fetched.error:
                parts.append(Content.assemble(("✗ ", "$text-error"), url, (f"  {fetched.error}", "$text-error")))
                continue
            status = f"  {fetched.status}" if fetched.status is not None else ""
            parts.append(Content.assemble(("✓ ", "$text-success"), (url, "$text-accent"), (status, "$text-muted"),
                                          (f"  {fetched.title}", "bold") if fetched.title else ""))
            preview = fetched.text[:PREVIEW_CHARS].rstrip()
            if preview:
                more = "…" if fetched.truncated or len(fetched.text) > PREVIEW_CHARS else ""
                parts.append(Content(preview + more))
        super().__init__(Content("\n").join(parts), classes="display display-web")


register_display(WebPage, WebPageDisplay)
