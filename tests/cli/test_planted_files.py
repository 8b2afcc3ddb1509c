"""Files a stranger can plant (a cloned repository, `skills install`, an extension) never crash a start: each kind of
file, with hostile bytes generated into every field, is started with the real session builder (and, once per
kind, with headless `-p`); a file that cannot be read is skipped with a notice naming it."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from gemini_tui.cli.assemble import ConfigurationError, build_session
from gemini_tui.core.approvals.trust import TRUST_ENV
from tests.fakes import warm_start

# where each kind lives (relative to the workspace root, or `~` for the user's gemini home) and its text, with
# {F} for every field the generator fills
KINDS: dict[str, tuple[str, str]] = {
    "workspace skill": (".gemini/skills/s/SKILL.md", "---\nname: {F}\ndescription: {F}\nlicense: {F}\n---\n{F}\n"),
    "user skill": ("~/skills/s/SKILL.md", "---\nname: {F}\ndescription: {F}\n---\n{F}\n"),
    "agents skill": (".agents/skills/s/SKILL.md", "---\nname: {F}\ndescription: {F}\n---\n{F}\n"),
    "custom command": ("~/commands/c.toml", 'description = "{F}"\nprompt = """{F}"""\n'),
    "project command": (".gemini/commands/{F}.toml", 'prompt = "{F}"\n'),
    "policy file": ("~/policies/p.toml", '[[rule]]\ntoolName = "{F}"\ncommandPrefix = "{F}"\n'
                                         'decision = "{F}"\npriority = {F}\nmodes = ["{F}"]\n'),
    "extension": ("~/extensions/e/gemini-extension.json",
                  '{"name": "{F}", "version": "{F}", "contextFileName": "{F}", "excludeTools": ["{F}"], '
                  '"mcpServers": {"{F}": {"command": "{F}"}}, "settings": [{"name": "{F}", "envVar": "{F}"}]}'),
    "user settings": ("~/settings.json", '{"model": {"name": "{F}"}, "tools": {"allowed": ["{F}"], '
                                         '"exclude": ["{F}"]}, "context": {"fileName": "{F}"}, '
                                         '"ui": {"theme": "{F}"}}'),
    "workspace settings": (".gemini/settings.json", '{"general": {"defaultApprovalMode": "{F}"}, '
                                                    '"mcpServers": {"{F}": {"url": "{F}"}}, "{F}": "{F}"}'),
    "context file": ("GEMINI.md", "{F}\n@{F}\n"),
    "ignore file": (".geminiignore", "{F}\n!{F}\n"),
}

# bytes that break readers: control characters (YAML refuses them), invalid UTF-8, NUL, a BOM, lone surrogates,
# quotes and brackets that end a field early, YAML and TOML syntax, very long and deeply nested values
HOSTILE: list[bytes] = [
    b"\x01", b"\x00", b"\x1b[2J", b"\x7f", b"\xff\xfe", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\xc3", b'"', b"\\",
    b"\n", b"\r", b"\t", b"'", b"{", b"[", b"]]", b"&a *a", b"!!python/object/apply:os.system ['x']", b": -",
    b"---", b"${HOME}", b"%", "\u2028".encode(), b"\xe2\x80\xae", b"a" * 70000,
    b"[" * 5000, b"1e999", b"-9223372036854775809", b"NaN", b"@../../../../etc/passwd", b"\\u0000",
]


def hostile_values(seed: int, count: int) -> list[bytes]:
    """Field values drawn from HOSTILE, singly and glued together, from a seeded generator (reproducible)."""
    chance = random.Random(seed)
    values = list(HOSTILE)
    while len(values) < count:
        values.append(b"".join(chance.choice(HOSTILE[:25]) for _ in range(chance.randint(2, 6))))
    return values


def plant(kind: str, value: bytes, root: Path, gemini_home: Path) -> Path:
    where, template = KINDS[kind]
    relative = where.replace("{F}", "x")
    path = gemini_home / relative[2:] if relative.startswith("~/") else root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(template.encode().replace(b"{F}", value))
    return path


def _start(root: Path, home: Path) -> list[str]:
    """Builds a session; answers its notices (a ConfigurationError's message counts as one)."""
    try:
        session = build_session(root, model="offline", env={"GEMINI_CLI_HOME": str(home), TRUST_ENV: "true"},
                                home=home)
    except ConfigurationError as exc:
        return [str(exc)]
    return [notice.message for notice in session.notices]


@pytest.mark.parametrize("kind", list(KINDS))
def test_hostile_bytes_in_every_field_never_crash_a_start(kind: str, tmp_path: Path) -> None:
    values = hostile_values(seed=31, count=48)
    for number, value in enumerate(values):
        root = tmp_path / f"r{number}"
        root.mkdir()
        home = tmp_path / f"h{number}"
        gemini_home = home / ".gemini"
        gemini_home.mkdir(parents=True)
        path = plant(kind, value, root, gemini_home)
        try:
            notices = _start(root, home)
        except Exception as exc:
            pytest.fail(f"{kind} with {value[:40]!r} crashed the start: {exc!r}")
        unreadable = _unreadable(path)
        if unreadable and kind not in ("context file", "ignore file"):
            assert any(path.name in notice or str(path.parent) in notice for notice in notices), (
                kind, value[:40], notices)


def _unreadable(path: Path) -> bool:
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


@pytest.mark.parametrize("kind", list(KINDS))
def test_headless_starts_past_a_planted_file(kind: str, tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    home = tmp_path / "h"
    (home / ".gemini").mkdir(parents=True)
    plant(kind, b"\x01\xff\x00" + b"\x1b" + b'"' + b"\n", root, home / ".gemini")
    env = {**os.environ, "GEMINI_CLI_HOME": str(home), "HOME": str(home), TRUST_ENV: "true"}
    done = subprocess.run([*warm_start.command(env), "-m", "offline", "-p", "hello"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
