"""processes: which paths a git command that checks out a tree writes, read from the repository with git itself
(a diff from the empty tree or between trees, `ls-files`) before it runs: `git checkout evil -- .` writes every
file of evil.

Only commands that read objects run, never the work tree (no clean filter, no fsmonitor, no pager), each bounded
in time; an answer that cannot be read is None (the caller asks)."""

from __future__ import annotations

import os
import subprocess

GIT_TIMEOUT_S = 3.0
MAX_PATHS = 50_000
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.pager=cat", "--no-pager")
_DIFF = ("diff", "-z", "--no-ext-diff", "--no-textconv", "--no-relative", "--no-renames", "--name-only")
# options of each kind that take a value (the next word is not a revision)
_VALUES = {"paths": {"-b", "-B", "--orphan", "--conflict"}, "switch": {"-c", "-C", "--create", "--force-create",
                                                                     "--orphan"},
           "restore": {"-s", "--source"}, "merge": {"-m", "-s", "--strategy", "-X", "--strategy-option", "-F",
                                                    "--file"},
           "rebase": {"--onto", "-x", "--exec", "-s", "--strategy", "-X"}, "commits": {"-m", "--mainline"},
           "reset": set(), "stash": {"-m", "--message"}, "unknown": set()}
_STOPS = {"--abort", "--continue", "--skip", "--quit"}  # these go on with what is already there


def _git(directory: str, *args: str) -> list[str] | None:
    try:
        done = subprocess.run(["git", *_SAFE, *args], cwd=directory, capture_output=True, timeout=GIT_TIMEOUT_S,
                              stdin=subprocess.DEVNULL,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0",
                                   "GIT_EXTERNAL_DIFF": "", "GIT_PAGER": "cat"})
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    lines = done.stdout.decode("utf-8", "surrogateescape").split("\0" if b"\0" in done.stdout else "\n")
    return [line for line in lines if line]


def _commit(directory: str, rev: str) -> bool:
    return _git(directory, "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}") is not None


def _names(directory: str, top: str, *args: str) -> list[str | None]:
    found = _git(directory, *args)
    if found is None or len(found) > MAX_PATHS:
        return [None]
    return [os.path.join(top, name) for name in found]


def _split(words: list[str | None], values: set[str]) -> tuple[list[str | None], list[str | None], list[str],
                                                               dict[str, str | None]]:
    """(plain words before `--`, words after it, flags, options with their values)."""
    plain: list[str | None] = []
    after: list[str | None] = []
    flags: list[str] = []
    options: dict[str, str | None] = {}
    index, dashes = 0, False
    while index < len(words):
        word = words[index]
        index += 1
        if dashes:
            after.append(word)
        elif word == "--":
            dashes = True
        elif word is None or not word.startswith("-") or word == "-":
            plain.append(word)
        elif "=" in word and word.startswith("--"):
            name, _, value = word.partition("=")
            options[name] = value
        elif word in values:
            options[word] = words[index] if index < len(words) else None
            index += 1
        elif len(word) > 2 and not word.startswith("--") and word[:2] in values:
            options[word[:2]] = word[2:]  # `-sREV`
        else:
            flags.append(word)
    return plain, after, flags, options


def checked_out(kind: str, words: list[str | None], directory: str) -> list[str | None]:
    """The paths (absolute) `git <kind's subcommand> words` run in `directory` writes in the work tree; [None]
    when that is only known when it runs. [] when it writes none (`git reset --soft`, `git stash list`)."""
    plain, after, flags, options = _split(words, _VALUES.get(kind, set()))
    if kind == "unknown":
        return [None] if not (set(flags) & _STOPS) and not (plain and plain[0] in ("log", "terms", "view",
                                                                                   "visualize")) else []
    if set(flags) & _STOPS or any(w is None for w in (*plain, *after, *options.values())):
        return [None] if any(w is None for w in (*plain, *after, *options.values())) else []
    top_lines = _git(directory, "rev-parse", "--show-toplevel")
    if not top_lines:
        return [None]
    top = top_lines[0]
    # `-` is the branch checked out before (`git checkout -`, `git switch -`, `git merge -`)
    revs: list[str] = ["@{-1}" if w == "-" and kind in ("paths", "switch", "merge") else w for w in plain
                       if w is not None]
    paths: list[str] = [w for w in after if w is not None]
    if kind == "paths":  # checkout: [REV] [--] [paths]; with -b/-B/--orphan, [start point]
        if "--orphan" in options:
            return [None]
        if any(o in options for o in ("-b", "-B")) and not after:
            return _tree_change(directory, top, revs[0]) if revs else []
        if not after and revs and not _commit(directory, revs[0]):
            paths, revs = revs, []  # `git checkout file`: from the index
        elif not after and len(revs) > 1:
            paths, revs = revs[1:], revs[:1]
        if paths:
            if revs:
                return [*_files(directory, top, revs[0], paths), *_named(directory, paths)]
            return [*_names(directory, top, "ls-files", "-z", "--full-name", "--", *paths), *_named(directory, paths)]
        return _tree_change(directory, top, revs[0]) if revs else []
    if kind == "switch":
        if "--orphan" in options:
            return [None]
        start = revs[0] if revs else None
        return _tree_change(directory, top, start) if start is not None else []
    if kind == "reset":
        if not set(flags) & {"--hard", "--keep", "--merge"}:
            return []
        return _tree_change(directory, top, revs[0]) if revs else []
    if kind == "restore":
        if set(flags) & {"-S", "--staged"} and not set(flags) & {"-W", "--worktree"}:
            return []
        paths = [*revs, *paths]
        source = options.get("--source", options.get("-s"))
        if source is not None:
            return [*_files(directory, top, source, paths), *_named(directory, paths)]
        return [*_names(directory, top, "ls-files", "-z", "--full-name", "--", *paths), *_named(directory, paths)]
    if kind in ("merge", "rebase"):
        upstream = [*revs, *(v for k, v in options.items() if k == "--onto" and v is not None)]
        if not upstream:
            return [None]  # the configured upstream: what it holds is only known after a fetch
        found: list[str | None] = []
        for rev in upstream:
            if not _commit(directory, rev):
                return [None]
            found += _names(directory, top, *_DIFF, f"HEAD...{rev}", "--")
            if kind == "rebase":
                found += _names(directory, top, *_DIFF, f"{rev}...HEAD", "--")
        return found
    if kind == "commits":
        if not revs or any(".." in rev for rev in revs):
            return [None]
        found = []
        for rev in revs:
            found += _names(directory, top, "diff-tree", "-z", "-r", "-m", "--root", "--no-commit-id", "--name-only",
                            "--end-of-options", rev)
        return found
    if kind == "stash":
        action = plain[0] if plain else None
        if action not in ("pop", "apply", "branch"):
            return []
        entry = plain[1] if len(plain) > 1 and action != "branch" else (plain[2] if len(plain) > 2 else "stash@{0}")
        entry = entry or "stash@{0}"
        if entry.isdigit():
            entry = f"stash@{{{entry}}}"
        found = _names(directory, top, "diff-tree", "-z", "-r", "--no-commit-id", "--name-only", f"{entry}^1", entry)
        if _commit(directory, f"{entry}^3"):  # its untracked files (stash -u)
            found += _names(directory, top, "ls-tree", "-r", "-z", "--name-only", "--full-tree", f"{entry}^3")
        return found
    return [None]


def _tree_change(directory: str, top: str, rev: str) -> list[str | None]:
    """The files that differ between HEAD and `rev` (what moving the work tree to rev writes or deletes)."""
    if not _commit(directory, rev):
        return [None]
    return _names(directory, top, *_DIFF, "HEAD", rev, "--")


def _files(directory: str, top: str, rev: str, pathspecs: list[str]) -> list[str | None]:
    """rev's files that `pathspecs` match, as git matches them (globs and magic such as `:/` included): a diff
    from the empty tree lists them."""
    if not _commit(directory, rev):
        return [None]
    empty = _git(directory, "hash-object", "-t", "tree", "/dev/null")
    if not empty:
        return [None]
    return _names(directory, top, *_DIFF, empty[0], rev, "--", *pathspecs)


def _named(directory: str, paths: list[str]) -> list[str | None]:
    return [os.path.normpath(os.path.join(directory, path)) for path in paths]
