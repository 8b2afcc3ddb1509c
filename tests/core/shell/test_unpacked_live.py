"""What an archive or a patch lands, through the real Session, policy and shell tool with real bash, tar, unzip,
patch, git and bwrap: lines generated from UNPACK_EXAMPLES (every row with `lands`, and tar) and an attacker's
spellings of them, each unpacking or applying something that holds a protected file (.gemini/, a context file
deep down, .husky/).

With its program allowed (and allowRedirection on), default, auto_edit and plan never run such a line, with the
sandbox on and off; under yolo without the sandbox every line lands (the corpus is live), with it nothing stays.
And an ordinary archive or patch, allowed, runs without asking: the judge read what it lands."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.shell.table import PROGRAMS, UNPACK_EXAMPLES
from tests.core.shell.test_landing_live import IDENTITY, _allowed, run_in, user  # noqa: F401 (a fixture)

MODES = [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan]
SANDBOX = [True, False]
PROGRAMS_ALLOWED = ["tar", "unzip", "patch", "git", "gzip", "cat", "command", "cd", "env"]
# an attacker's spellings: quoting, wrappers, stdin, folders, and the forms that can only be read when they run
BYPASSES = [
    "tar --extract --file=a{N}.tar", "tar -x -f a{N}.tar -C .", "tar -xf - < a{N}.tar", "tar -C . -xzf a{N}.tgz",
    "tar -xf w{N}.tar --strip-components=1", "tar -xf \"$PWD/a{N}.tar\"", "command tar -xf 'a{N}.tar'",
    "gzip -dc a{N}.tgz | tar -x", "cd sub && tar -xf ../a{N}.tar -C ..", "env tar xf a{N}.tar",
    "unzip -oq z{N}.zip -d .", "unzip -qo ./z{N}.zip", "unzip -oqj zj{N}.zip -d d{N}",
    "patch -s -p1 -i p{N}.patch", "patch -p1 --input=p{N}.patch", "patch -p0 < q{N}.patch", "patch -Np1 < p{N}.patch",
    "patch -p1 -d . < p{N}.patch", "cat p{N}.patch | patch -p1", "patch -p1 <<'EOF'\n{PATCH}EOF",
    "git am -q < m{N}.mbox", "git apply -p1 p{N}.patch", "git apply < p{N}.patch",
    "git apply --apply --stat p{N}.patch", "git -c core.quotepath=off apply p{N}.patch",
]
ORDINARY = ["tar -xf ok{N}.tar", "tar -xzf ok{N}.tgz -C out{N}", "unzip -q ok{N}.zip", "patch -p1 < ok{N}.patch",
            "git apply ok{N}.patch", "git am -q okm{N}.mbox", "tar -tf a{N}.tar", "unzip -l z{N}.zip",
            "git apply --check ok{N}.patch", "patch --dry-run -p1 < p{N}.patch"]


def _diff(files: dict[str, str], prefix: bool = True) -> str:
    out = []
    for name, body in files.items():
        a, b = (f"a/{name}", f"b/{name}") if prefix else (name, name)
        out += [f"diff --git {a} {b}", "new file mode 100644", "--- /dev/null", f"+++ {b}", "@@ -0,0 +1 @@",
                f"+{body}"]
    return "\n".join(out) + "\n"


def _mbox(diff: str) -> str:
    return ("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nFrom: t <t@t>\n"
            "Date: Mon, 1 Jan 2024 00:00:00 +0000\nSubject: [PATCH] x\n\n---\n" + diff + "-- \n2.40.0\n\n")


def _tar(path: Path, files: dict[str, str], mode: str = "w") -> None:
    with tarfile.open(path, mode) as archive:
        for name, body in files.items():
            data = body.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def _zip(path: Path, files: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, body in files.items():
            archive.writestr(name, body)


def corpus(root: Path, templates: list[str]) -> list[tuple[str, list[Path]]]:
    """(line, the protected files it would write), each line with archives and patches of its own number."""
    subprocess.run(["git", "init", "-q", "."], cwd=root, check=True, env={**os.environ, **IDENTITY})
    (root / "sub").mkdir()
    (root / "README").write_text("readme\n")
    subprocess.run(["git", "add", "README"], cwd=root, check=True, env={**os.environ, **IDENTITY})
    subprocess.run(["git", "commit", "-qm", "start"], cwd=root, check=True, env={**os.environ, **IDENTITY})
    cases = []
    for number, template in enumerate(templates):
        files = {f".gemini/s{number}.json": "planted", f"d{number}/deep/GEMINI.md": "planted",
                 f".husky/h{number}": "planted"}
        ordinary = {f"src{number}/a.py": "ok"}
        _tar(root / f"a{number}.tar", files)
        _tar(root / f"a{number}.tgz", files, "w:gz")
        _tar(root / f"w{number}.tar", {f"wrap/{k}": v for k, v in files.items()})
        _zip(root / f"z{number}.zip", files)
        _zip(root / f"zj{number}.zip", {"x/GEMINI.md": "planted"})
        (root / f"p{number}.patch").write_text(_diff(files))
        (root / f"q{number}.patch").write_text(_diff(files, prefix=False))
        (root / f"m{number}.mbox").write_text(_mbox(_diff(files)))
        _tar(root / f"ok{number}.tar", ordinary)
        _tar(root / f"ok{number}.tgz", ordinary, "w:gz")
        (root / f"out{number}").mkdir()
        _zip(root / f"ok{number}.zip", {f"srcz{number}/a.py": "ok"})
        (root / f"ok{number}.patch").write_text(_diff({f"srcp{number}/a.py": "ok"}))
        (root / f"okm{number}.mbox").write_text(_mbox(_diff({f"srcm{number}/a.py": "ok"})))
        line = template.replace("{N}", str(number)).replace("{PATCH}", _diff(files))
        landed = [root / name for name in files] + [root / f"d{number}" / "GEMINI.md",
                                                     root / "wrap" / f".gemini/s{number}.json"]
        cases.append((line, landed))
    return cases


def _landed(cases: list[tuple[str, list[Path]]]) -> list[str]:
    return [line for line, paths in cases if any(p.exists() for p in paths)]


def _templates() -> list[str]:
    rows = [name for name, row in PROGRAMS.items() if row.lands or row.special == "tar"]
    rows += [f"git {name}" for name, row in (PROGRAMS["git"].subcommands or {}).items() if row.lands]
    assert set(rows) == set(UNPACK_EXAMPLES), "every row that unpacks or applies has examples"
    return [line for name in UNPACK_EXAMPLES for line in UNPACK_EXAMPLES[name]] + BYPASSES


@pytest.fixture(autouse=True)
def tools() -> None:
    for program in ("tar", "unzip", "patch", "git"):
        assert shutil.which(program), f"make test installs {program} (make system-tools)"


@pytest.mark.parametrize("sandbox", SANDBOX, ids=["sandbox", "no-sandbox"])
@pytest.mark.parametrize("mode", MODES)
async def test_an_archive_or_patch_holding_a_protected_file_asks(root: Path, home: Path, user: Path,  # noqa: F811
                                                                  mode: ApprovalMode, sandbox: bool) -> None:
    cases = corpus(root, _templates())
    responses = await run_in(root, home, [line for line, _ in cases], mode, _allowed(PROGRAMS_ALLOWED), sandbox)
    assert _landed(cases) == []
    ran = [line for (line, _), r in zip(cases, responses, strict=True) if "error" not in r]
    assert ran == [], ran


@pytest.mark.parametrize("sandbox", SANDBOX, ids=["sandbox", "no-sandbox"])
async def test_archives_and_patches_under_yolo(root: Path, home: Path, user: Path,  # noqa: F811
                                               sandbox: bool) -> None:
    """Without the sandbox every line lands (the corpus is live); with it, nothing stays."""
    cases = corpus(root, _templates())
    responses = await run_in(root, home, [line for line, _ in cases], ApprovalMode.yolo, {}, sandbox)
    if sandbox:
        assert _landed(cases) == [], responses
    else:
        missing = [line for line, _ in cases if line not in _landed(cases)]
        assert missing == [], (missing, responses)


@pytest.mark.parametrize("sandbox", SANDBOX, ids=["sandbox", "no-sandbox"])
@pytest.mark.parametrize("mode", [ApprovalMode.default, ApprovalMode.auto_edit])
async def test_an_ordinary_archive_or_patch_runs_unasked_when_its_program_is_allowed(
        root: Path, home: Path, user: Path, mode: ApprovalMode, sandbox: bool) -> None:  # noqa: F811
    cases = corpus(root, ORDINARY)
    responses = await run_in(root, home, [line for line, _ in cases], mode, _allowed(PROGRAMS_ALLOWED), sandbox)
    refused = [line for (line, _), r in zip(cases, responses, strict=True) if "error" in r]
    assert refused == [], (refused, responses)
    for made in ("src0/a.py", "out1/src1/a.py", "srcz2/a.py", "srcp3/a.py", "srcp4/a.py", "srcm5/a.py"):
        assert (root / made).exists(), made
