"""Grants the user gave at a confirmation: for this session, or "always" for this workspace (kept in ~/.gemini).

A grant is a rule string in the words `tools.allowed` uses (`write_file`, `run_shell_command(git)`,
`mcp:server`, `mcp:server/tool`). This module only stores, lists and revokes them with where they came from;
deciding whether a rule covers a call is the policy's business.

Persisted grants live in `<home>/.gemini/grants.json`, outside every project, so a model writing files in the
workspace cannot grant itself anything:

    {"version": 1, "workspaces": {"/abs/root": [{"rule": "run_shell_command(git)", "granted_at": "..."}]}}

A file that cannot be read or understood grants nothing (fail closed) and is never overwritten: granting
"always" then raises `GrantStoreError` naming the file.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from gemini_tui.core.persistence.private_file import locked, write_private

GRANTS_FILE = "grants.json"
FORMAT_VERSION = 1


class GrantScope(StrEnum):
    session = "session"  # "allow for this session": forgotten when the program ends
    always = "always"  # "allow always": kept in ~/.gemini/grants.json for this workspace


@dataclass(frozen=True)
class Grant:
    """One granted rule and where it came from."""

    rule: str
    scope: GrantScope
    granted_at: datetime
    workspace: Path

    @property
    def key(self) -> str:
        """How `/permissions revoke` names it: the scope and the rule, unique within one store."""
        return f"{self.scope}:{self.rule}"

    def describe(self) -> str:
        when = self.granted_at.astimezone().strftime("%Y-%m-%d %H:%M")
        origin = "this session" if self.scope is GrantScope.session else f"always, for {self.workspace}"
        return f"{self.rule}  ({origin}; granted {when})"


class GrantStoreError(Exception):
    """The persisted grants file cannot be used; the message names it and the way out."""


class GrantStore:
    """The grants in force for one workspace: session grants in memory, "always" grants in `path`.

    `errors` lists problems reading the file (the grants in it then do not apply)."""

    def __init__(self, workspace: Path, gemini_dir: Path | None) -> None:
        """`gemini_dir` None keeps session grants only ("always" then raises GrantStoreError)."""
        self.workspace = Path(workspace).resolve()
        self.path = Path(gemini_dir) / GRANTS_FILE if gemini_dir is not None else None
        self._session: dict[str, Grant] = {}
        self._always: dict[str, Grant] = {}
        self.errors: list[str] = []
        self.reload()

    # -- reading ---------------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-reads the persisted grants (another gemini-tui may have changed them)."""
        self.errors = []
        try:
            data = self._read()
        except GrantStoreError as exc:
            self.errors.append(str(exc))
            self._always = {}
            return
        self._always = {}
        for entry in data["workspaces"].get(str(self.workspace), []):
            grant = self._parse(entry)
            if grant is not None:
                self._always[grant.rule] = grant

    def _read(self) -> dict[str, Any]:
        """The whole file as `{"version": 1, "workspaces": {...}}`; raises GrantStoreError when unusable."""
        if self.path is None:
            return {"version": FORMAT_VERSION, "workspaces": {}}
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {"version": FORMAT_VERSION, "workspaces": {}}
        except OSError as exc:
            why = exc.strerror or exc
            raise GrantStoreError(f"{self.path}: cannot be read ({why}); its grants do not apply.") from exc
        if not raw.strip():
            return {"version": FORMAT_VERSION, "workspaces": {}}
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise GrantStoreError(f"{self.path}: not valid JSON (line {exc.lineno}: {exc.msg}); its grants do "
                                  "not apply. Fix or delete the file.") from exc
        workspaces = data.get("workspaces") if isinstance(data, dict) else None
        if not isinstance(workspaces, dict) or not all(isinstance(v, list) for v in workspaces.values()):
            raise GrantStoreError(f"{self.path}: not a grants file (expected {{\"workspaces\": {{path: [...]}}}}); "
                                  "its grants do not apply. Fix or delete the file.")
        return data

    def _parse(self, entry: Any) -> Grant | None:
        if not isinstance(entry, dict) or not isinstance(entry.get("rule"), str) or not entry["rule"].strip():
            self.errors.append(f"{self.path}: an entry for {self.workspace} has no rule; skipped.")
            return None
        try:
            when = datetime.fromisoformat(str(entry.get("granted_at", "")))
        except ValueError:
            when = datetime.fromtimestamp(0, UTC)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return Grant(entry["rule"].strip(), GrantScope.always, when, self.workspace)

    # -- what the policy and /permissions read ---------------------------------------------------------------
    @property
    def grants(self) -> list[Grant]:
        """Every grant in force, session ones first, each list in the order given."""
        return [*self._session.values(), *self._always.values()]

    def rules(self, scope: GrantScope | None = None) -> frozenset[str]:
        """The granted rules (of one scope, or all)."""
        return frozenset(g.rule for g in self.grants if scope is None or g.scope is scope)

    def find(self, key: str) -> Grant | None:
        """The grant with this `key` (`session:rule` / `always:rule`), or with this bare rule."""
        for grant in self.grants:
            if key in (grant.key, grant.rule):
                return grant
        return None

    def __contains__(self, rule: str) -> bool:
        return rule in self._session or rule in self._always

    def __len__(self) -> int:
        return len(self._session) + len(self._always)

    # -- changing ----------------------------------------------------------------------------------------------
    def grant(self, rules: Iterable[str], scope: GrantScope) -> list[Grant]:
        """Grants `rules`; "always" writes them to the file first (an error there grants nothing and raises)."""
        now = datetime.now(UTC)
        new = [Grant(rule, scope, now, self.workspace) for rule in dict.fromkeys(r.strip() for r in rules) if rule]
        if scope is GrantScope.always:
            with self._locked_file() as data:
                entries: list[Any] = data["workspaces"].setdefault(str(self.workspace), [])
                present = {e.get("rule") for e in entries if isinstance(e, dict)}
                entries.extend({"rule": g.rule, "granted_at": g.granted_at.isoformat()}
                               for g in new if g.rule not in present)
            self.reload()
            return [self._always[g.rule] for g in new if g.rule in self._always]
        for grant in new:
            self._session.setdefault(grant.rule, grant)
        return new

    def revoke(self, key: str) -> Grant:
        """Takes back one grant (by `key` or bare rule); "always" ones are removed from the file.
        Raises KeyError when there is no such grant."""
        grant = self.find(key)
        if grant is None:
            raise KeyError(key)
        if grant.scope is GrantScope.session:
            del self._session[grant.rule]
            return grant
        with self._locked_file() as data:
            entries = data["workspaces"].get(str(self.workspace), [])
            kept = [e for e in entries if not (isinstance(e, dict) and e.get("rule") == grant.rule)]
            if kept:
                data["workspaces"][str(self.workspace)] = kept
            else:
                data["workspaces"].pop(str(self.workspace), None)
        self.reload()
        return grant

    @contextlib.contextmanager
    def _locked_file(self) -> Iterator[dict[str, Any]]:
        """Read-modify-write under an exclusive lock (two gemini-tui windows may grant at once), then an
        atomic replace with owner-only permissions."""
        if self.path is None:
            raise GrantStoreError("No home directory for persisted grants: \"allow always\" is not available.")
        with locked(self.path):
            data = self._read()  # raises on a broken file: never overwrite what we cannot read
            data["version"] = FORMAT_VERSION
            yield data
            write_private(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

