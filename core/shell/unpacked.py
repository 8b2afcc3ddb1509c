"""processes: what an archive or a patch writes when it is unpacked or applied, read before it runs: the members of
a tar or zip archive, the files a patch (a diff, a mailbox of them) names.

Nothing is run and nothing is written: the archive is read with the standard library, the patch as text. An answer
that cannot be read whole is None (the caller asks): an archive of a kind not read here, more than MAX_MEMBERS
members, a name the patch quotes in a way not read here. A member that is a link, or a name at or below one,
counts as a link the line may leave (later uses through it are unknown); a name with `..` is kept as it is
spelled, so that it lands outside."""

from __future__ import annotations

import os
import re
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field

MAX_MEMBERS = 20_000
MAX_PATCH_BYTES = 8 << 20


@dataclass
class Unpacked:
    """The names written (relative to where it unpacks), and those of them that may be symbolic links."""

    names: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


def tar_members(path: str, strip: int = 0, absolute: bool = False) -> Unpacked | None:
    """The members of a tar archive (plain, gzip, bzip2 or xz), as `tar -x` writes them: `strip` leading
    folders dropped (--strip-components), a leading `/` kept with `absolute` (-P)."""
    try:
        with tarfile.open(path, "r:*") as archive:
            found = Unpacked()
            for count, member in enumerate(archive):
                if count >= MAX_MEMBERS:
                    return None
                names = [member.name] + ([member.linkname] if member.islnk() else [])
                for at, raw in enumerate(names):
                    name = _member_name(raw, absolute)
                    if strip:
                        parts = [p for p in name.split("/") if p]
                        if len(parts) <= strip:
                            continue
                        name = "/".join(parts[strip:])
                    found.names.append(name)  # a hard link writes the file it links to as well
                    if at == 0 and (member.issym() or member.islnk()):
                        found.links.append(name)
            return found
    except (OSError, tarfile.TarError, EOFError, ValueError):
        return None


def zip_members(path: str, junk_paths: bool = False) -> Unpacked | None:
    """The members of a zip archive as `unzip` writes them (`-j`: without their folders)."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return None
    if len(infos) > MAX_MEMBERS:
        return None
    found = Unpacked()
    for info in infos:
        name = _member_name(info.filename.replace("\\", "/"))
        if junk_paths:
            if info.is_dir():
                continue
            name = os.path.basename(name)
        found.names.append(name)
        if stat.S_ISLNK(info.external_attr >> 16):
            found.links.append(name)
    return found


def _member_name(name: str, absolute: bool = False) -> str:
    """Where a member lands: tar and unzip drop a leading `/` (not tar -P); `..` is kept (it lands outside, and
    asks)."""
    if absolute and name.startswith("/"):
        return os.path.normpath(name)
    return os.path.normpath(name.lstrip("/")) if name.strip("/") else "."


# a diff's headers that name a file: unified and context diffs, git's, and `Index:` lines
_HEADER = re.compile(r"^(?:--- |\+\+\+ |\*\*\* |Index: |rename (?:from|to) |copy (?:from|to) )(.*)$")
_GIT = re.compile(r"^diff --git (.*)$")
_LINK_MODE = re.compile(r"^(?:new file mode|new mode|old mode|deleted file mode) 120000")


def patch_names(text: str, strip: int | None) -> Unpacked | None:
    """The files a patch writes, spelled as it names them with `strip` leading folders dropped (-pN); every strip
    when `strip` is None (patch without -p tries several). Lines that only look like headers (a removed line
    `-- x`) count too: more names, never fewer. None when a name cannot be read."""
    found = Unpacked()
    last: list[str] = []  # the names of the last `diff --git` line: a mode line after it is theirs
    for line in text.splitlines():
        named: list[str] = []
        if (git := _GIT.match(line)) is not None:
            names = _git_pair(git.group(1))
            if names is None:
                return None
            named = names
        elif (header := _HEADER.match(line)) is not None:
            name = header.group(1).split("\t")[0].rstrip()
            if name.startswith('"'):
                unquoted = _unquote(name)
                if unquoted is None:
                    return None
                name = unquoted
            named = [name]
        elif _LINK_MODE.match(line):
            found.links.extend(last)
            continue
        else:
            continue
        spelled = [p for name in named if name not in ("/dev/null", "") for p in _stripped(name, strip)]
        found.names.extend(spelled)
        if git is not None:
            last = spelled
    found.names = list(dict.fromkeys(found.names))
    return found


def _stripped(name: str, strip: int | None) -> list[str]:
    parts = [p for p in name.split("/") if p]
    if not parts:
        return []
    absolute = name.startswith("/")
    if strip is None:
        found = [name] + ["/".join(parts[at:]) for at in range(1, len(parts))]
        return [os.path.normpath(p) for p in found]
    if strip == 0:
        return [os.path.normpath(name)]
    if strip >= len(parts) + (1 if absolute else 0):
        return []
    return [os.path.normpath("/".join(parts[strip - (1 if absolute else 0):]))]


def _git_pair(text: str) -> list[str] | None:
    """`a/x b/x` of a `diff --git` line (quoted names are read too)."""
    if text.startswith('"'):
        end = _quoted_end(text)
        if end is None:
            return None
        first, rest = _unquote(text[:end + 1]), text[end + 1:].lstrip()
        second = _unquote(rest) if rest.startswith('"') else rest
        return None if first is None or second is None else [first, second]
    if text.endswith('"'):
        start = text.find(' "')
        if start < 0:
            return None
        second = _unquote(text[start + 1:])
        return None if second is None else [text[:start], second]
    half = len(text) // 2  # `a/NAME b/NAME`: the two halves are the same name, whatever spaces it holds
    if text[half:half + 1] == " " and text[:half].partition("/")[2] == text[half + 1:].partition("/")[2]:
        return [text[:half], text[half + 1:]]
    return None  # names that differ with spaces: the `---`/`+++` lines name them


def _quoted_end(text: str) -> int | None:
    at = 1
    while at < len(text):
        if text[at] == "\\":
            at += 2
            continue
        if text[at] == '"':
            return at
        at += 1
    return None


def _unquote(text: str) -> str | None:
    """A name git or diff quoted C-style (octal bytes of UTF-8)."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return None
    try:
        raw = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
        return raw.decode("utf-8", "surrogateescape")
    except (UnicodeError, ValueError):
        return None


def read_patch(path: str) -> str | None:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_PATCH_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_PATCH_BYTES:
        return None
    return data.decode("utf-8", "surrogateescape")
