"""processes: where a copy, move or link lands: every path it writes inside its destination folder, with the
files of a source folder listed (what `cp -r tpl/. .` writes is what tpl holds now)."""

from __future__ import annotations

import os
from collections.abc import Sequence

MAX_LISTED = 20_000  # a source folder with more entries than this lands somewhere unknown (the line asks)


def landing(sources: Sequence[str | None], destination: str | None, cwd: str, *, into: bool | None,
            recursive: bool, contents_slash: bool = False) -> list[str | None]:
    """The paths written, spelled from `destination` (relative stays relative: a `cd` before still counts).

    `into`: True when the destination is a folder the sources land in (-t), False when it is the name itself (-T),
    None when bash decides at run time: a folder that exists now, or several sources, land inside; a name that does
    not exist yet may be a folder an earlier command makes, so both places count. `contents_slash`: rsync, where
    `src/` lands src's contents. None in the answer: a place only known when it runs."""
    if destination is None:
        return [None]
    found: list[str | None] = []
    if into is None:
        target = os.path.join(cwd, os.path.expanduser(destination))
        if os.path.isdir(target) or len(sources) > 1:
            into = True
        elif os.path.lexists(target):
            into = False
    for source in sources:
        if source is None:
            found.append(None)
            continue
        trimmed = source.rstrip("/") or "/"
        if contents_slash and source.endswith("/") and len(source) > 1:
            places = [destination]
        elif into is True:
            places = [os.path.join(destination, os.path.basename(trimmed))]
        elif into is False:
            places = [destination]
        else:
            places = [destination, os.path.join(destination, os.path.basename(trimmed))]
        for place in places:
            found.append(os.path.normpath(place))
            if recursive:
                found.extend(_inside(os.path.join(cwd, os.path.expanduser(source)), place))
    return found


def _inside(folder: str, place: str) -> list[str | None]:
    """`place`/<each file, link and folder under `folder`>, or [None] when there are too many to list."""
    if not os.path.isdir(folder):
        return []
    found: list[str | None] = []
    for top, folders, files in os.walk(folder, onerror=None, followlinks=False):
        relative = os.path.relpath(top, folder)
        for name in (*folders, *files):
            found.append(os.path.normpath(os.path.join(place, relative, name)))
        if len(found) > MAX_LISTED:
            return [None]
    return found
