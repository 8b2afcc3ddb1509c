"""Saved sessions on disk: one append-only JSON Lines file per session in `~/.gemini/tmp/<project>/chats/`.

Writing is one `write()` of whole lines per turn boundary on an O_APPEND descriptor, so `kill -9` can at worst
leave the last line cut off; the reader skips such a torn record (and any damaged line) with a notice and loads
the rest. Files that are not ours are listed as such and never written to or deleted.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.text_boundary import json_text
from gemini_tui.core.ground.wording import there_are
from gemini_tui.core.persistence.records import FORMAT, VERSION, LoadedSession, NotASession, apply_record

SUFFIX = ".jsonl"
PREFIX = "session-"


def project_dir(gemini_dir: Path, root: Path) -> Path:
    """`~/.gemini/tmp/<project hash>`: per project, outside it (the same place `/chat save` always used)."""
    return gemini_dir / "tmp" / hashlib.sha256(str(root).encode()).hexdigest()[:16]


def parse_age(text: str) -> float:
    """`"30d"`, `"12h"`, `"2w"`, `"90m"` as seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*", str(text))
    if not match:
        raise ValueError(f"{text!r} is not an age such as 30d, 12h, 2w or 90m")
    return float(match.group(1)) * {"m": 60, "h": 3600, "d": 86400, "w": 604800}[match.group(2)]


@dataclass(frozen=True)
class SessionSummary:
    """One line of `--list-sessions` and of the `/resume` picker."""

    index: int  # 1 = oldest, as --resume N counts
    id: str
    path: Path
    created: float
    modified: float
    first_prompt: str
    turns: int
    size: int
    problem: str = ""  # set when the file is not a readable session

    @property
    def readable(self) -> bool:
        return not self.problem


@dataclass(frozen=True)
class Bookmark:
    tag: str
    path: Path
    offset: int  # the session file up to here is the bookmarked conversation
    saved: float


class SessionWriter:
    """Appends records to one session file, creating it (and its folder) on the first write."""

    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        self.path = path
        self._meta = meta
        self._fd: int | None = None
        self.offset = 0  # bytes written so far (a bookmark remembers where it was)

    def append(self, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        data = "".join(json_text(r, separators=(",", ":")) + "\n" for r in records)
        blob = data.encode("utf-8")
        if self._fd is None:
            blob = self._open() + blob
        assert self._fd is not None
        os.write(self._fd, blob)  # one write of whole lines: a kill leaves at most the last one torn
        self.offset += len(blob)

    def _open(self) -> bytes:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        size = os.fstat(self._fd).st_size
        self.offset = size
        if size == 0:
            return (json_text(self._meta) + "\n").encode("utf-8")
        with open(self.path, "rb") as handle:  # a resumed file whose last record was torn: end that line first
            handle.seek(size - 1)
            return b"" if handle.read(1) == b"\n" else b"\n"

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class SessionStore:
    """The sessions of one project."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.chats = project / "chats"

    # -- writing ---------------------------------------------------------------------------------------------------
    def new_writer(self, session_id: str, root: Path, model: str) -> SessionWriter:
        created = time.time()
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.localtime(created))
        path = self.chats / f"{PREFIX}{stamp}-{session_id[:8]}{SUFFIX}"
        meta = {"kind": "meta", "format": FORMAT, "v": VERSION, "id": session_id, "root": str(root),
                "created": created, "model": model}
        return SessionWriter(path, meta)

    @staticmethod
    def writer_for(loaded: LoadedSession) -> SessionWriter:
        """A writer that continues a resumed session in its own file."""
        return SessionWriter(Path(loaded.path), {})

    # -- reading ---------------------------------------------------------------------------------------------------
    def paths(self) -> list[Path]:
        if not self.chats.is_dir():
            return []
        return sorted(p for p in self.chats.iterdir() if p.name.endswith(SUFFIX) and p.is_file())

    def summaries(self) -> list[SessionSummary]:
        """Every session file, oldest first (numbered from 1); unreadable ones carry their problem."""
        found: list[tuple[float, SessionSummary]] = []
        for path in self.paths():
            found.append(_summarize(path))
        found.sort(key=lambda item: item[0])
        return [dataclasses.replace(s, index=i) for i, (_, s) in enumerate(found, 1)]

    def find(self, which: str) -> SessionSummary:
        """`latest`, an index from `--list-sessions`, or a session id (or its first characters)."""
        sessions = [s for s in self.summaries() if s.readable]
        if not sessions:
            raise LookupError(f"No saved sessions for this project (in {self.chats}).")
        which = (which or "latest").strip()
        if which == "latest":
            return max(sessions, key=lambda s: s.modified)
        everything = self.summaries()
        matches = [s for s in sessions if s.id == which] or [s for s in sessions if s.id.startswith(which)]
        if which.isdigit() and 0 < int(which) <= len(everything):  # a number of --list-sessions before an id
            summary = everything[int(which) - 1]
            if not summary.readable:
                raise LookupError(f"Session {which} cannot be read: {summary.problem}")
            return summary
        if which.isdigit() and (len(which) < 4 or not matches):  # short numbers are never id prefixes
            raise LookupError(f"No session {which}: {there_are(len(everything), 'session')} (see --list-sessions).")
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise LookupError(f"No session with id {which!r} (see --list-sessions).")
        raise LookupError(f"{which!r} matches {len(matches)} sessions; give more of the id.")

    def load(self, path: Path) -> LoadedSession:
        return read_session(path)

    # -- bookmarks (/chat save|resume|list) -------------------------------------------------------------------------
    def bookmarks(self) -> dict[str, Bookmark]:
        """Every `/chat save` tag of this project (the latest save of a tag wins), oldest first."""
        found: list[Bookmark] = []
        for path in self.paths():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if b'"kind":"bookmark"' not in data:
                continue
            try:
                loaded = read_session(path)
            except NotASession:
                continue
            at = {tag: offset for tag, offset in loaded.bookmarks.items()}
            found.extend(Bookmark(tag, path, offset, path.stat().st_mtime) for tag, offset in at.items())
        found.sort(key=lambda b: b.saved)
        return {b.tag: b for b in found}

    def fork(self, bookmark: Bookmark, session_id: str) -> LoadedSession:
        """A new session file holding the bookmarked session up to the bookmark, under `session_id`."""
        data = bookmark.path.read_bytes()[:bookmark.offset]
        first, _, rest = data.partition(b"\n")
        meta = {**_meta(first, bookmark.path), "id": session_id, "created": time.time(),
                "forked_from": bookmark.tag}
        writer = self.new_writer(session_id, Path(meta.get("root", "")), str(meta.get("model", "")))
        writer.path.parent.mkdir(parents=True, exist_ok=True)
        with open(writer.path, "xb") as handle:
            handle.write((json_text(meta) + "\n").encode("utf-8") + rest)
        return read_session(writer.path)

    # -- deleting --------------------------------------------------------------------------------------------------
    def delete(self, which: str, *, current: str | None = None) -> SessionSummary:
        summary = self.find(which)
        if summary.id == current:
            raise LookupError("That is the session in use; it cannot be deleted while it runs.")
        summary.path.unlink()
        return summary

    def prune(self, *, max_count: int | None = None, max_age_s: float | None = None,
              keep: str | None = None) -> list[SessionSummary]:
        """Deletes our session files beyond the newest `max_count` or older than `max_age_s` (never `keep`,
        never a file that is not ours). Returns what was deleted."""
        ours = sorted((s for s in self.summaries() if s.readable), key=lambda s: s.modified, reverse=True)
        now = time.time()
        doomed = []
        for rank, summary in enumerate(ours):
            if summary.id == keep:
                continue
            too_many = max_count is not None and rank >= max_count
            too_old = max_age_s is not None and now - summary.modified > max_age_s
            if too_many or too_old:
                doomed.append(summary)
        for summary in doomed:
            summary.path.unlink(missing_ok=True)
        return doomed


def new_session_id() -> str:
    return str(uuid.uuid4())


def _summarize(path: Path) -> tuple[float, SessionSummary]:
    stat = path.stat()
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        first, _, rest = data.partition(b"\n")
        meta = _meta(first, path)
    except (OSError, NotASession) as exc:
        return stat.st_mtime, SessionSummary(0, "", path, stat.st_mtime, stat.st_mtime, "", 0, stat.st_size,
                                             str(exc))
    first_prompt = ""
    turns = rest.count(b'{"kind":"prompt"')
    at = rest.find(b'{"kind":"prompt"')
    if at >= 0:
        line = rest[at:rest.find(b"\n", at)] if rest.find(b"\n", at) >= 0 else rest[at:]
        try:
            first_prompt = str(json.loads(line).get("text", ""))
        except (ValueError, AttributeError):
            first_prompt = "(damaged)"
    created = float(meta.get("created") or stat.st_mtime)
    return created, SessionSummary(0, str(meta["id"]), path, created, stat.st_mtime, first_prompt, turns,
                                   stat.st_size)


def _meta(line: bytes, path: Path) -> dict[str, Any]:
    if not line.strip():
        raise NotASession(f"{path.name} is empty.")
    try:
        meta = json.loads(line)
    except ValueError:
        raise NotASession(f"{path.name} is not a gemini-tui session (its first line is not JSON).") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or not isinstance(meta.get("id"), str):
        raise NotASession(f"{path.name} is not a gemini-tui session file.")
    if int(meta.get("v", 0)) > VERSION:
        raise NotASession(f"{path.name} was written by a newer gemini-tui (format {meta.get('v')}).")
    return meta


KINDS = frozenset({"history", "prompt", "answer", "call", "notice", "compressed", "rewind", "checkpoint",
                   "agent_state", "uncheckpoint", "bookmark", "usage"})


def _recovered_meta(lines: list[bytes], path: Path) -> dict[str, Any] | None:
    """The meta of a session file whose first line was damaged by hand: ours by its name and its other records
    (the id is the one its name holds), or None."""
    match = re.fullmatch(rf"{PREFIX}.*-([0-9a-f]{{8}}){re.escape(SUFFIX)}", path.name)
    if match is None:
        return None
    for line in lines[1:50]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("kind") in KINDS:
            return {"id": match.group(1), "created": path.stat().st_mtime}
    return None


def read_session(path: Path) -> LoadedSession:
    """Reads a session file. A damaged line (a torn last record, a line edited by hand) costs that record and
    nothing after it; one problem sums up what was skipped. A file that is not ours raises NotASession."""
    path = Path(path)
    data = path.read_bytes()
    lines = data.split(b"\n")
    skipped: list[int] = []
    try:
        meta = _meta(lines[0], path)
    except NotASession:
        recovered = _recovered_meta(lines, path)
        if recovered is None:
            raise
        meta = recovered
        skipped.append(1)
    loaded = LoadedSession(str(meta["id"]), str(path), float(meta.get("created", 0.0)), str(meta.get("root", "")),
                           str(meta.get("model", "")))
    offset = len(lines[0]) + 1
    torn = False
    newer: set[str] = set()
    for number, line in enumerate(lines[1:], 2):
        offset += len(line) + 1
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not an object")
            apply_record(loaded, record)
        except (ValueError, KeyError, TypeError, AttributeError):
            if number == len(lines) and not data.endswith(b"\n"):
                torn = True
            else:
                skipped.append(number)
            continue
        if record.get("kind") not in KINDS:
            newer.add(str(record.get("kind")))
        if record.get("kind") == "bookmark" and isinstance(record.get("tag"), str):
            loaded.bookmarks[record["tag"]] = min(offset, len(data))
    problem = _summary_of_skipped(path.name, skipped, torn, newer, loaded.gaps)
    if problem:
        loaded.problems.append(problem)
    return loaded


def _summary_of_skipped(name: str, skipped: list[int], torn: bool, newer: set[str], gaps: int) -> str:
    """One notice for everything a load skipped."""
    parts = []
    if skipped and skipped[0] == 1:
        parts.append("its first line (the header) is damaged")
        skipped = skipped[1:]
    if skipped:
        shown = ", ".join(map(str, skipped[:8])) + (f" and {len(skipped) - 8} more" if len(skipped) > 8 else "")
        parts.append(f"{'a damaged line was' if len(skipped) == 1 else f'{len(skipped)} damaged lines were'} "
                     f"skipped (line{'s' if len(skipped) > 1 else ''} {shown})")
    if torn:
        parts.append("its last record was cut off (the program stopped while writing it) and was skipped")
    if gaps and not skipped and not torn:
        parts.append(f"{gaps} history record{'s' if gaps > 1 else ''} did not follow the one{'s' if gaps > 1 else ''} "
                     f"before and {'were' if gaps > 1 else 'was'} added at the end")
    if newer:
        parts.append(f"records of a newer gemini-tui ({', '.join(sorted(newer))}) were left out")
    if not parts:
        return ""
    return f"{name}: {'; '.join(parts)}. Everything else was loaded."
