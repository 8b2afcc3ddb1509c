"""The ACP front end's editor buffers: when the client advertises `fs.readTextFile` / `fs.writeTextFile`, the tools'
text reads and writes inside a session's roots go through `fs/read_text_file` and `fs/write_text_file`.

The tools call from worker threads (their file work runs in `asyncio.to_thread`); each call is sent on the
connection's loop and waited for. A call on the loop's own thread cannot wait, so it is left to the disk. Which
paths may reach the client was decided before: the workspace's resolution and the approval policy (protected
paths, plan mode) run first, and tools/workspace/text_file.py passes only paths that stay inside a root."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CLIENT_TIMEOUT_S = 60.0


class ClientFiles:
    """tools.workspace.text_file.EditorFiles for one client connection, over every session it opened."""

    def __init__(self, loop: asyncio.AbstractEventLoop, client: Any, *, read: bool, write: bool,
                 sessions: Callable[[], Iterable[Any]]) -> None:
        self._loop = loop
        self._client = client
        self._read = read
        self._write = write
        self._sessions = sessions

    def _owner(self, path: Path) -> str | None:
        """The session whose roots hold `path` (the most recently opened one, when several do)."""
        for state in reversed(list(self._sessions())):
            roots = [state.face.root, *state.face.include_dirs]
            if any(path == root or path.is_relative_to(root) for root in roots):
                return str(state.id)
        return None

    def _on_loop_thread(self) -> bool:
        try:
            return asyncio.get_running_loop() is not None
        except RuntimeError:
            return False

    def _call(self, make: Callable[[], Any]) -> Any:
        future = asyncio.run_coroutine_threadsafe(make(), self._loop)
        try:
            return future.result(CLIENT_TIMEOUT_S)
        except TimeoutError:
            future.cancel()
            raise

    def read(self, path: Path) -> str | None:
        if not self._read or self._on_loop_thread():
            return None
        session_id = self._owner(path)
        if session_id is None:
            return None
        try:
            answer = self._call(lambda: self._client.read_text_file(session_id=session_id, path=str(path)))
        except Exception as exc:  # not open, not there, or the client cannot: the disk decides
            log.debug("ACP: fs/read_text_file %s failed (%s); reading the disk", path, exc)
            return None
        return str(answer.content)

    def write(self, path: Path, content: str) -> bool:
        if not self._write or self._on_loop_thread():
            return False
        session_id = self._owner(path)
        if session_id is None:
            return False
        try:
            self._call(lambda: self._client.write_text_file(session_id=session_id, path=str(path), content=content))
        except Exception as exc:  # the editor refused: nothing was written, and the tool says so
            raise OSError(f"the editor did not write it ({exc})") from exc
        return True
