"""The user's own editor ($VISUAL, else $EDITOR) run on a file, the app stepping aside from the terminal meanwhile."""

from __future__ import annotations

import asyncio
import os
import subprocess

from textual.app import App, SuspendNotSupported


def editor_command() -> list[str] | None:
    """$VISUAL or $EDITOR split as a shell would; None when neither is set."""
    import shlex  # only when an editor is asked for: this module loads with the first frame's confirm bar

    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    return shlex.split(command) if command else None


async def run_editor(app: App[object], argv: list[str]) -> int:
    """Runs the editor in the terminal (the app suspended), or in the background when the driver cannot give the
    terminal back (headless tests); its exit status."""
    try:
        with app.suspend():
            return subprocess.call(argv)
    except SuspendNotSupported:
        process = await asyncio.create_subprocess_exec(*argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                                       stderr=subprocess.DEVNULL)
        return await process.wait()
