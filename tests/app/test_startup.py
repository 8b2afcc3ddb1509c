"""The first frame waits for nothing it does not show (google-genai, mcp, tree-sitter, pydantic, the policy,
settings, the session store, the session itself): checked in a fresh interpreter, by what it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import asyncio, json, sys
from pathlib import Path
from gemini_tui.cli.assemble import build_session
from gemini_tui.app.main import GeminiApp
import gemini_tui.app.screens.main_screen as main_screen

# the SDK's warm-up comes a second after the first frame by design; on a loaded machine the pause below can
# outlast that second, so it is put off here: what is checked is what the first frame itself imported
main_screen.WARM_UP_DELAY = 600.0

async def main():
    session = build_session(sys.argv[1], env={"GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"},
                            home=Path(sys.argv[2]))
    app = GeminiApp(session, None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("mcp",) or m.startswith("google.genai"))
        print(json.dumps({"model": session.model_name, "offline": session.is_offline, "loaded": loaded}))

asyncio.run(main())
"""


# Modules the first frame must not wait for: the session is built after it (app/main.py), and these come with it.
# (tree_sitter's binding itself comes with Textual's TextArea, the prompt; the bash grammar must not.)
HEAVY = ("google.genai", "mcp", "tree_sitter_bash", "openai", "pydantic", "tomllib",
         "gemini_tui.core.approvals.policy", "gemini_tui.core.approvals.grants", "gemini_tui.core.setup.config",
         "gemini_tui.core.persistence.store", "gemini_tui.core.persistence.checkpoints",
         "gemini_tui.core.session.session", "gemini_tui.core.mcp.servers", "gemini_tui.core.models.gemini",
         "gemini_tui.core.tooling.registry", "gemini_tui.core.shell.grammar", "gemini_tui.tools")
# The app's own modules the first frame does not show: the controllers (made when the session is attached or on
# first use: a prompt, a slash command, the command palette) and the core's event and display types.
LATER_APP = ("gemini_tui.app.event_adapter", "gemini_tui.app.confirmations", "gemini_tui.app.command_registry",
             "gemini_tui.app.slash_commands", "gemini_tui.app.command_results", "gemini_tui.app.commands",
             "gemini_tui.app.turns",
             "gemini_tui.core.ground.events", "gemini_tui.core.ground.display", "gemini_tui.core.ground.confirmation")
# Standard-library modules the first frame has no use for (random names for worktrees and their hashing, the
# resource readers): checked at the first frame only, as whether anything loads them later is no concern here.
NOT_YET_STDLIB = ("secrets", "hmac", "importlib.resources", "shlex")
# The app's modules the first frame does without, loaded on first use: the worktrees' git side (the status line
# names a worktree from its path alone, `worktree_place`).
NOT_YET_APP = ("gemini_tui.core.workspace.worktrees",)
# Stylesheets of what the first frame does not show, read after it (app/main.py, LATER_CSS).
LATER_CSS = ("turns.tcss", "confirm.tcss", "screens.tcss", "diff_review.tcss", "displays.tcss", "history.tcss")
# The main column as it is once the screen is up: the first frame has only the chat and the prompt (what it shows);
# the parts hidden until used and the key bar are mounted right after it, in these places.
FIRST_COLUMN = ["ChatPane", "PromptArea"]
WHOLE_COLUMN = ["ChatPane", "TodoPanel", "ToolQueue", "ConfirmArea", "PromptQueue", "PromptArea"]

FIRST_FRAME_PROBE = r"""
import asyncio, gc, json, sys, threading
from pathlib import Path
import gemini_tui.cli.main
import gemini_tui.app.main as app_main
from gemini_tui.app.main import GeminiApp

from textual.css.stylesheet import Stylesheet
from gemini_tui.core.ground import terminal_text

release = threading.Event()
heavy = json.loads(sys.argv[3])
at_first_frame = {}
reparsed = []  # each time every stylesheet was parsed again from scratch (Textual does it on a change of styles)
_reparse = Stylesheet.reparse
Stylesheet.reparse = lambda self: (reparsed.append(1), _reparse(self))[1]

def loaded():
    return sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))

def fields():  # the input fields and lists built so far (hidden ones too): each brings its own styles
    return sorted(type(w).__name__ for w in app.screen.query("Input, OptionList"))

def column():  # the main column's parts, in order, and whether the key bar is there
    return [type(w).__name__ for w in app.screen.query_one("#main-column").children], \
        bool(app.screen.query("KeyBar")), bool(app.screen.query("#history-placeholder"))

def patterns_compiled():  # the terminal-text cleaner's sequence patterns (only text with a control needs them)
    return terminal_text._patterns.cache_info().currsize

def mark(step):  # the app marks its first frame right after drawing it: what had been imported and read by then
    if step == "first frame":
        at_first_frame["gc"] = gc.isenabled()
        at_first_frame["loaded"] = loaded()
        at_first_frame["css"] = sorted(Path(p).name for p, _ in app.stylesheet.source if p.endswith(".tcss"))
        at_first_frame["screen"] = type(app.screen).__name__
        at_first_frame["screens"] = [type(s).__name__ for stack in app._screen_stacks.values() for s in stack]
        at_first_frame["reparsed"] = len(reparsed)
        at_first_frame["fields"] = fields()
        at_first_frame["column"] = column()
        at_first_frame["patterns"] = patterns_compiled()

app_main.mark = mark

def build():
    release.wait(20)
    from gemini_tui.cli.assemble import build_session
    return build_session(sys.argv[1], env={}, home=Path(sys.argv[2]), model="offline")

app = GeminiApp(build, Path(sys.argv[1]), ask_trust=False)
gc.disable()  # as the command line leaves it when it starts the app

async def main():
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        release.set()
        for _ in range(400):  # the session is built and attached after the first frame
            await pilot.pause(0.05)
            if app.screen.ready:
                break
        # a prompt, a slash command and the command palette: what loads on first use has been used
        for typed in ("hi", "/about"):
            await pilot.press(*typed, "enter")
            for _ in range(100):
                await pilot.pause(0.05)
                if not app.screen.busy:
                    break
        built, whole = fields(), column()  # on the main screen, before the palette opens over it
        terminal_text.clean_terminal_text("\x1b]0;title\x07")
        app.action_command_palette()
        await pilot.pause(0.3)
        after = {"loaded": loaded(), "css": sorted(Path(p).name for p, _ in app.stylesheet.source
                                                   if p.endswith(".tcss")), "fields": built, "column": whole,
                 "patterns": patterns_compiled(), "gc": gc.isenabled()}
        print(json.dumps({"first_frame": at_first_frame, "after": after}))

asyncio.run(main())
"""


def test_the_first_frame_imports_nothing_it_does_not_show(root: Path, tmp_path: Path) -> None:
    """Neither the heavy modules nor the app's later ones nor the later stylesheets are there when the first frame
    is drawn, and nothing was styled twice on the way; the app's later modules and stylesheets are once the session
    is attached (so both lists name real modules and files)."""
    home = tmp_path / "home"
    home.mkdir()
    result = subprocess.run([sys.executable, "-c", FIRST_FRAME_PROBE, str(root), str(home),
                             json.dumps([*HEAVY, *LATER_APP, *NOT_YET_STDLIB, *NOT_YET_APP])],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    first_frame, after = report["first_frame"], report["after"]
    assert first_frame["screen"] == "MainScreen"
    # the main screen is the first one (no default screen drawn and left), and the stylesheets were parsed once
    assert first_frame["screens"] == ["MainScreen"]
    assert first_frame["reparsed"] == 0
    # hidden fields (the completion list, a rejection's reason) are built when first shown, not before
    assert first_frame["fields"] == []
    assert "CompletionList" in after["fields"]  # "/about" was completed
    assert first_frame["loaded"] == []
    assert first_frame["css"] and not set(LATER_CSS) & set(first_frame["css"])
    assert set(LATER_APP) <= set(after["loaded"])
    assert set(LATER_CSS) <= set(after["css"])
    # the parts the first frame does not show are mounted after it, in their places; the history panel's stand-in
    # is never mounted
    assert first_frame["column"] == [FIRST_COLUMN, False, False]
    assert after["column"] == [WHOLE_COLUMN, True, False]
    # the cleaner's sequence patterns are compiled for the first text holding a control character, not at import
    assert (first_frame["patterns"], after["patterns"]) == (0, 1)
    # no garbage collection on the way to the first frame; on again right after it
    assert (first_frame["gc"], after["gc"]) == (False, True)


def test_the_command_line_starts_the_app_without_garbage_collection(tmp_path: Path) -> None:
    """What the app is handed when the command line starts it: collection off (the app turns it on at its first
    frame, checked above); the command line's own runs (headless, ACP) keep it on."""
    probe = ("import gc, json\nimport gemini_tui.app.main as app_main\nimport gemini_tui.cli.main as cli\n"
             "seen = []\napp_main.run = lambda *args, **kwargs: seen.append(gc.isenabled()) or 0\n"
             "before = gc.isenabled()\ncli._interactive(lambda: None)\nprint(json.dumps([before, *seen]))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [True, False]


def test_the_heavy_list_names_modules_the_session_does_import(root: Path, tmp_path: Path) -> None:
    """The check above could pass by naming modules that no longer exist: each listed one is imported once the
    session is built (and its first command read)."""
    probe = ("import json, sys\nfrom pathlib import Path\nfrom gemini_tui.cli.assemble import build_session\n"
             "build_session(sys.argv[1], env={}, home=Path(sys.argv[2]), model='offline')\n"
             "import gemini_tui.core.models.gemini, gemini_tui.core.mcp.servers\n"
             "from gemini_tui.core.shell import analyze\nanalyze('ls')\n"
             "print(json.dumps(sorted(m for m in sys.modules)))")
    home = tmp_path / "home"
    home.mkdir()
    result = subprocess.run([sys.executable, "-c", probe, str(root), str(home)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    missing = [h for h in HEAVY if h not in ("google.genai", "mcp", "openai") and h not in loaded]
    assert missing == []


def test_first_frame_without_genai_or_mcp(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = subprocess.run([sys.executable, "-c", PROBE, str(root), str(home)], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["offline"] is False  # the Gemini client was built, yet not imported
    assert report["loaded"] == []


async def test_prompt_typed_before_the_session_is_ready_is_sent(root: Path, tmp_path: Path) -> None:
    import threading

    from gemini_tui.app.main import GeminiApp
    from tests.app.app_driver import main_screen, type_and_send, wait_for
    from tests.fakes.scripted_model import ScriptedModel, scripted_session, text

    release = threading.Event()
    model = ScriptedModel().add(text("ready now"))
    home = tmp_path / "home"
    home.mkdir()

    def build() -> object:
        release.wait(10)
        return scripted_session(root, model, home)

    app = GeminiApp(build, root)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(pilot)
        assert not screen.ready and screen.status.model_name == "starting…"
        await type_and_send(pilot, "early bird")
        release.set()
        await wait_for(pilot, lambda: screen.ready and len(screen.session.history) == 2)
        assert screen.status.model_name == "scripted-model"
    assert model.requests[0].contents[0].parts[0].text == "early bird"  # type: ignore[union-attr]


async def test_a_session_that_cannot_be_built_ends_the_app(root: Path) -> None:
    from gemini_tui.app.main import EXIT_START_FAILED, GeminiApp
    from tests.app.app_driver import wait_for

    def build() -> object:
        raise RuntimeError("configuration error: 'x y' is not a model name")

    app = GeminiApp(build, root)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None)  # the session is built on a thread
    assert app.return_code == EXIT_START_FAILED
