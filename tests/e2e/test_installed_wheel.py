"""The program as a user installs it: a wheel built from this checkout, in a fresh virtual environment outside
it, run headless and as the full-screen app in a real terminal. The editable install the other tests use cannot
show a file missing from the distribution; this test can."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, require_tmux

REPO = Path(__file__).resolve().parents[2]

# one worker builds the wheel once for every test here (the module fixture), under `--dist=loadgroup`
pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("installed_wheel")]


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=True, **kwargs)  # type: ignore[call-overload]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(the built wheel, the fresh venv's bin folder)."""
    base = tmp_path_factory.mktemp("installed")
    dist = base / "dist"
    # build from a copy of the tracked files, so nothing the checkout has lying around can leak into the wheel
    source = base / "source"
    files = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO).stdout
    for name in filter(None, files.split("\0")):
        if (REPO / name).is_file():
            target = source / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((REPO / name).read_bytes())
    venv = base / "venv"
    # uv (which `make` installs beside the interpreter) builds and installs in seconds from its cache; pip spent
    # a minute of CPU resolving and compiling every dependency. Either way: a wheel, in a fresh venv.
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv:
        _run([uv, "build", "--wheel", "--quiet", "--python", sys.executable, "--out-dir", str(dist), str(source)])
        wheel = next(dist.glob("gemini_tui-*.whl"))
        _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)])
        _run([uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(wheel)])
    else:
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(source)])
        wheel = next(dist.glob("gemini_tui-*.whl"))
        _run([sys.executable, "-m", "venv", str(venv)])
        _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)])
    yield wheel, venv / "bin"


def test_the_wheel_holds_only_gemini_tui(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"gemini_tui"}
    for sheet in ("app.tcss", "chat.tcss", "prompt.tcss", "turns.tcss", "confirm.tcss", "screens.tcss",
                  "diff_review.tcss", "history.tcss", "displays.tcss"):
        assert f"gemini_tui/styles/{sheet}" in names


def test_the_installed_program_runs_headless(installed: tuple[Path, Path], tmp_path: Path) -> None:
    _, bin_dir = installed
    (tmp_path / "notes.md").write_text("hello\n")
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    version = _run([str(bin_dir / "gemini-tui"), "--version"], cwd=tmp_path, env=env)
    assert version.stdout.startswith("gemini-tui ")
    done = _run([str(bin_dir / "gemini-tui"), "-m", "offline", "-p", "read notes.md"], cwd=tmp_path, env=env)
    assert "hello" in done.stdout
    # the installed interpreter imports from site-packages, not from this checkout
    where = _run([str(bin_dir / "python"), "-c", "import gemini_tui.app.main as m; print(m.__file__)"],
                 cwd=tmp_path, env=env).stdout
    assert "site-packages" in where and str(REPO) not in where


def test_the_installed_app_draws_and_quits(installed: tuple[Path, Path], tmp_path: Path) -> None:
    require_tmux()
    _, bin_dir = installed
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home), "GEMINI_CLI_HOME": str(home),
           "LANG": "C.UTF-8"}
    with Terminal([str(bin_dir / "gemini-tui")], cwd=tmp_path, env=env) as terminal:
        terminal.wait_for("OFFLINE", timeout=30)
        terminal.keys("C-q")
        terminal.wait_for(lambda _screen: subprocess.run(["tmux", "has-session", "-t", terminal.name],
                                                         capture_output=True).returncode != 0, timeout=15)
