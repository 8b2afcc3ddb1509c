"""McpResult: an MCP tool's text and images, marked when the server reported an error."""

from __future__ import annotations

import base64
import binascii

from textual.content import Content
from textual.widgets import Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import McpResult


class McpResultDisplay(Static):
    def __init__(self, result: McpResult) -> None:
        self.result = result
        title = f"{result.server} › {result.tool}" + ("  (error)" if result.is_error else "")
        parts = [Content.styled(title, "bold"), Content(result.text.rstrip())]
        for image in result.images:
            try:
                size = len(base64.b64decode(image.data, validate=False))
            except (binascii.Error, ValueError):
                size = 0
            parts.append(Content.styled(f"[image {image.mime_type}, {size} bytes]", "$text-muted"))
        super().__init__(Content("\n").join(parts), classes="display display-mcp")
        self.set_class(result.is_error, "-error")


register_display(McpResult, McpResultDisplay)
