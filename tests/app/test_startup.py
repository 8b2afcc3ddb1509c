"""The first frame waits for neither google-genai nor mcp: checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import asyncio, json, sys
from pathlib import Path
from cli.assemble import build_session
from app.main import GeminiApp

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


def test_first_frame_without_genai_or_mcp(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = subprocess.run([sys.executable, "-c", PROBE, str(root), str(home)], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["offline"] is False  # the Gemini client was built, yet not imported
    assert report["loaded"] == []
