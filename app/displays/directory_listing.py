"""DirectoryListing: directories first, then files with their sizes."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from gemini_tui.app.displays.factories import register_display
from gemini_tui.core.ground.display import DirectoryListing


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


class DirectoryListingDisplay(Static):
    def __init__(self, listing: DirectoryListing) -> None:
        self.listing = listing
        lines = [Content.styled(listing.path, "bold")]
        for entry in listing.entries:
            if entry.is_dir:
                lines.append(Content.styled(f"  ▸ {entry.name}/", "$text-accent"))
            else:
                lines.append(Content.assemble(f"    {entry.name}  ", (human_size(entry.size), "$text-muted")))
        if not listing.entries:
            lines.append(Content.styled("  (empty)", "$text-muted"))
        if listing.ignored_count:
            lines.append(Content.styled(f"  {listing.ignored_count} ignored", "$text-muted"))
        super().__init__(Content("\n").join(lines), classes="display display-listing")


register_display(DirectoryListing, DirectoryListingDisplay)
