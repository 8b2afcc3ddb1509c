"""Processes room: the sandbox's private /tmp, /var/tmp and hidden homes, kept in a folder of this machine for the
length of one command, so that what the command wrote there can be said (and offered outside) before it is
discarded.

Each place is a folder under one fresh private folder (mode 0700) outside the roots, bound where bubblewrap would
otherwise mount an empty tmpfs; after the command, its files (not the empty folders bubblewrap makes as mount
points for the roots and toolchains inside it) are listed and the whole folder is removed."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_LISTED = 10_000  # past this many entries, the count says "at least"


@dataclass
class PrivateFolders:
    """Where each private place of one sandboxed command lives on this machine while it runs."""

    base: Path
    places: dict[Path, Path] = field(default_factory=dict)  # the place as the command sees it -> here

    @classmethod
    def make(cls, places: Sequence[Path], parent: Path | None = None) -> PrivateFolders:
        base = Path(tempfile.mkdtemp(prefix="gemini-tui-private-", dir=parent))
        made = cls(base)
        for number, place in enumerate(places):
            here = base / str(number)
            here.mkdir(mode=0o755)
            made.places[place] = here
        return made

    def written(self) -> dict[Path, list[Path]]:
        """The files (and links, sockets, ...) the command left in each place, as it saw them; folders only when
        they are not empty mount points. At most MAX_LISTED in all."""
        found: dict[Path, list[Path]] = {}
        count = 0
        for place, here in self.places.items():
            for folder, folders, files in os.walk(here):
                for name in files + [f for f in folders if os.path.islink(os.path.join(folder, f))]:
                    found.setdefault(place, []).append(place / os.path.relpath(os.path.join(folder, name), here))
                    count += 1
                    if count >= MAX_LISTED:
                        return found
        return found

    def discard(self) -> None:
        """Removes everything the command left (a folder it made unreadable too)."""
        for folder, folders, _ in os.walk(self.base):
            for name in folders:
                path = os.path.join(folder, name)
                if not os.path.islink(path):
                    try:
                        os.chmod(path, stat.S_IRWXU)  # before the walk goes in: it lists it then
                    except OSError:
                        pass
        shutil.rmtree(self.base, ignore_errors=True)
