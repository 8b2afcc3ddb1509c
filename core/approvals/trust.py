"""Trusted folders: which workspaces may apply settings that run code or widen permissions.

Decisions live in `<home>/.gemini/trustedFolders.json` as Gemini CLI keeps them: an object whose keys are
absolute paths and whose values are `TRUST_FOLDER` (this folder and everything below it), `TRUST_PARENT` (the
key's parent folder and everything below it) or `DO_NOT_TRUST`. The rule with the longest key that covers a
folder decides. `GEMINI_CLI_TRUST_WORKSPACE=true|false` overrides the file, as in Gemini CLI.

A file that cannot be read or understood trusts nothing (fail closed) and is never overwritten.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from gemini_tui.core.persistence.private_file import locked, write_private

TRUSTED_FOLDERS_FILE = "trustedFolders.json"
TRUST_ENV = "GEMINI_CLI_TRUST_WORKSPACE"


class TrustLevel(StrEnum):
    TRUST_FOLDER = "TRUST_FOLDER"
    TRUST_PARENT = "TRUST_PARENT"
    DO_NOT_TRUST = "DO_NOT_TRUST"


class TrustSource(StrEnum):
    """Why a folder is (not) trusted, for notices and `/permissions`."""

    disabled = "disabled"  # security.folderTrust.enabled is false: every folder is trusted
    env = "env"  # GEMINI_CLI_TRUST_WORKSPACE
    flag = "flag"  # --trust for this run
    file = "file"  # a rule in trustedFolders.json
    undecided = "undecided"  # no rule covers it: untrusted until the user says otherwise
    broken = "broken"  # trustedFolders.json cannot be used: untrusted


@dataclass(frozen=True)
class FolderTrust:
    """The answer for one workspace: trusted or not, why, and (for `file`) the rule that decided."""

    trusted: bool
    source: TrustSource
    rule: tuple[str, TrustLevel] | None = None
    errors: tuple[str, ...] = ()

    @property
    def why(self) -> str:
        """What decided, in a few words: "DO_NOT_TRUST for /x", "GEMINI_CLI_TRUST_WORKSPACE", ..."""
        match self.source:
            case TrustSource.disabled:
                return "security.folderTrust.enabled is false"
            case TrustSource.env:
                return TRUST_ENV
            case TrustSource.flag:
                return "--trust, for this run"
            case TrustSource.file if self.rule is not None:
                return f"{self.rule[1]} for {self.rule[0]}"
            case TrustSource.broken:
                return "trustedFolders.json cannot be used"
        return "no decision yet"

    def describe(self) -> str:
        return f"{'trusted' if self.trusted else 'not trusted'} ({self.why})"


@dataclass
class TrustedFolders:
    """The rules of one trustedFolders.json."""

    path: Path
    rules: dict[str, TrustLevel] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, gemini_dir: Path) -> TrustedFolders:
        folders = cls(Path(gemini_dir) / TRUSTED_FOLDERS_FILE)
        try:
            folders.rules = folders._read()
        except ValueError as exc:
            folders.errors.append(str(exc))
        return folders

    def _read(self) -> dict[str, TrustLevel]:
        """The valid rules; raises ValueError (naming the file) when the file as a whole is unusable."""
        try:
            raw = self.path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ValueError(f"{self.path}: cannot be read ({exc.strerror or exc}).") from exc
        if not raw.strip():
            return {}
        from gemini_tui.core.ground.jsonc import strip_json_comments  # Gemini CLI accepts comments here too

        try:
            data = json.loads(strip_json_comments(raw))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{self.path}: not valid JSON (line {exc.lineno}: {exc.msg}).") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{self.path}: must hold a JSON object of folder paths.")
        rules: dict[str, TrustLevel] = {}
        for key, value in data.items():
            if value not in TrustLevel.__members__:
                self.errors.append(f"{self.path}: {key}: {value!r} is not one of "
                                   f"{', '.join(TrustLevel)}; this entry is ignored.")
                continue
            rules[os.path.normpath(key)] = TrustLevel(value)
        return rules

    def decide(self, folder: Path) -> tuple[str, TrustLevel] | None:
        """The rule that decides `folder`: the longest key whose folder (its parent for TRUST_PARENT) holds it."""
        location = _real(folder)
        best: tuple[str, TrustLevel] | None = None
        for key, level in self.rules.items():
            covered = _real(Path(key).parent if level is TrustLevel.TRUST_PARENT else Path(key))
            holds = location == covered or covered in location.parents
            if holds and (best is None or len(key) > len(best[0])):
                best = (key, level)
        return best

    def set(self, folder: Path, level: TrustLevel) -> None:
        """Records a decision for `folder` (read-modify-write under a lock; owner-only file, atomic replace).
        Raises ValueError when the existing file cannot be understood: it is the user's, so it is not replaced."""
        with locked(self.path):
            self.errors = []
            current = self._read()
            if self.errors:
                raise ValueError(f"{self.path} has entries that cannot be understood; fix it before trusting "
                                 "folders from gemini-tui.")
            current[os.path.normpath(str(folder))] = level
            text = json.dumps({k: str(v) for k, v in current.items()}, indent=2) + "\n"
            write_private(self.path, text)
            self.rules = current


def check_trust(folder: Path, gemini_dir: Path, *, enabled: bool = True, flag: bool = False,
                env: Mapping[str, str] | None = None) -> FolderTrust:
    """Whether `folder` is trusted: the env override, then --trust, then the feature switch, then the file."""
    env = os.environ if env is None else env
    override = env.get(TRUST_ENV, "").strip().lower()
    if override in ("true", "false"):
        return FolderTrust(override == "true", TrustSource.env)
    if flag:
        return FolderTrust(True, TrustSource.flag)
    if not enabled:
        return FolderTrust(True, TrustSource.disabled)
    folders = TrustedFolders.load(gemini_dir)
    if folders.errors and not folders.rules:
        return FolderTrust(False, TrustSource.broken, errors=tuple(folders.errors))
    rule = folders.decide(folder)
    if rule is None:
        return FolderTrust(False, TrustSource.undecided, errors=tuple(folders.errors))
    return FolderTrust(rule[1] is not TrustLevel.DO_NOT_TRUST, TrustSource.file, rule, tuple(folders.errors))


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except OSError:
        return Path(os.path.normpath(path))

