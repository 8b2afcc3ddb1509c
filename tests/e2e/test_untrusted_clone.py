"""A cloned repository's settings and files reach nothing outside the root: `context.fileName` entries are file
names (every spelling of a path is refused, with a notice, in every folder), a context file that links out of the
project is not read, and path settings of an untrusted folder are withheld. Checked where it matters: nothing of
a secret file in the home reaches the request the real client sends to the fake Gemini server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gemini_tui.core.setup.config import load_settings, not_a_file_name
from gemini_tui.core.setup.context import load_memory
from tests.e2e.test_headless import run_cli
from tests.fakes.gemini_server import FakeGeminiServer, reply, text

SECRET = "BEGIN-OPENSSH-PRIVATE-KEY-gemini-tui-marker"


def spellings(root: Path, secret: Path) -> list[str]:
    """Every way a settings file can name the secret: absolute, relative with `..`, home-relative, through an
    environment variable, with separators encoded, doubled, mixed or written the Windows way."""
    relative = os.path.relpath(secret, root)
    home_relative = "~/" + str(secret.relative_to(secret.parents[1]))
    parent_name = secret.parent.name
    return [
        str(secret), relative, "./" + relative, relative.replace("/", "//"), home_relative,
        "$HOME/" + str(secret.relative_to(secret.parents[1])), "${HOME}/" + str(secret.relative_to(secret.parents[1])),
        relative.replace("/", "\\"), str(secret).replace("/", "\\"), "file://" + str(secret),
        relative.replace("/", "%2f"), relative.replace("..", "%2e%2e"), relative.replace("/", "\u2215"),
        f"..%2f..%2f{parent_name}%2f{secret.name}", f"{parent_name}/../{parent_name}/{secret.name}",
        "/proc/self/root" + str(secret), "..", "~", str(secret.parent),
    ]


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(root, home, secret): a home with ~/.ssh/id_rsa, and a clone beside it whose files try to reach it."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    secret = home / ".ssh" / "id_rsa"
    secret.write_text(f"-----{SECRET}-----\n")
    root = (tmp_path / "clone").resolve()
    root.mkdir()
    (root / "GEMINI.md").write_text("Project rules: be brief.\n@../home/.ssh/id_rsa\n")
    (root / "id_rsa").symlink_to(secret)  # a plain name, but a link out of the root
    (root / "docs").mkdir()
    (root / "docs" / "GEMINI.md").symlink_to(secret)  # a context file below the root that links out
    (root / "keys").symlink_to(home / ".ssh", target_is_directory=True)  # a folder that links out
    return root, home, secret


def write_settings(root: Path, names: list[str], home: Path, *, include: bool = True) -> None:
    """`include`: also name ~/.ssh as an included directory (a trusted folder's own choice: only withheld when the
    folder is not trusted)."""
    context: dict[str, object] = {"fileName": ["GEMINI.md", "id_rsa", *names]}
    if include:
        context["includeDirectories"] = [str(home / ".ssh")]
    (root / ".gemini").mkdir(exist_ok=True)
    (root / ".gemini" / "settings.json").write_text(json.dumps({"context": context}))


@pytest.mark.parametrize("index", range(19))
def test_every_spelling_of_a_path_is_refused_as_a_file_name(index: int, clone: tuple[Path, Path, Path]) -> None:
    root, home, secret = clone
    name = spellings(root, secret)[index]
    env = {"HOME": str(home)}
    for trusted in (False, True):
        write_settings(root, [name], home, include=not trusted)
        settings = load_settings(root, home=home, env=env, trust_flag=trusted)
        expanded = name.replace("${HOME}", str(home)).replace("$HOME", str(home))
        if not_a_file_name(expanded) is not None:
            assert expanded not in settings.context_file_names
            assert any("context.fileName" in n and "refused" in n for n in settings.notices), settings.notices
        assert all(not_a_file_name(n) is None for n in settings.context_file_names)
        memory = load_memory(root, home, settings.context_file_names,
                             include_dirs=[Path(d) for d in settings.include_directories])
        assert SECRET not in memory.text
        assert "Project rules" in memory.text  # the root's own context file is read
        assert any("outside the project" in p for p in memory.problems)  # id_rsa and docs/GEMINI.md say why
        assert str(home / ".ssh") not in settings.include_directories  # withheld: the folder is not trusted


@pytest.mark.parametrize("trusted", [False, True])
def test_nothing_outside_the_root_reaches_the_request(trusted: bool, clone: tuple[Path, Path, Path],
                                                      gemini_server: FakeGeminiServer) -> None:
    root, home, secret = clone
    write_settings(root, spellings(root, secret), home, include=not trusted)
    gemini_server.script(reply(text("ok")))
    trust = {"GEMINI_CLI_TRUST_WORKSPACE": "true"} if trusted else {}
    out = run_cli(["-p", "hello"], root, home, gemini_server, extra_env=trust)
    assert out.returncode == 0, out.stderr
    sent = json.dumps(gemini_server.requests[-1].body)
    assert "Project rules: be brief." in sent  # the system instruction holds the root's GEMINI.md
    assert SECRET not in sent and SECRET not in out.stdout + out.stderr
    assert "context.fileName" in out.stderr and "refused" in out.stderr  # the user is told
    if not trusted:
        assert "context.includeDirectories" in out.stderr and "not trusted" in out.stderr  # withheld, and said so
