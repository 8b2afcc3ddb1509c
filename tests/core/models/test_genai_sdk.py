"""google-genai is imported without aiohttp (installed for the web server): requests stay on httpx, where our
retries hand over a broken stream's received chunks, and a headless run or ACP agent does not pay aiohttp's import."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import gemini_tui


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_sdk_is_imported_without_aiohttp_which_still_imports_afterwards() -> None:
    out = run("""
        import sys
        from gemini_tui.core.models.gemini import GeminiModel
        GeminiModel("m", "k")._sdk()
        from google.genai import _api_client
        print("aiohttp" in sys.modules, _api_client.has_aiohttp)
        import aiohttp  # the web server's own import still works afterwards
        print(aiohttp.ClientError.__name__)
    """)
    assert out.splitlines() == ["False False", "ClientError"]


def _imports_the_sdk(node: ast.stmt) -> bool:
    match node:
        case ast.ImportFrom(module=module, names=names):
            return module is not None and (module.startswith("google.genai")
                                           or (module == "google" and any(n.name == "genai" for n in names)))
        case ast.Import(names=names):
            return any(n.name.startswith("google.genai") for n in names)
        case ast.Expr(value=ast.Call(args=[ast.Constant(value=str(name)), *_])):
            return name.startswith("google.genai")  # importlib.import_module("google.genai")
    return False


def test_every_import_of_the_sdk_goes_through_genai_sdk_first() -> None:
    """Whichever entry runs first (a request, the retry's error list, web search) imports the SDK without aiohttp."""
    package = Path(gemini_tui.__file__).resolve().parent.parent
    unguarded, found = [], 0
    for room in ("app", "cli", "core", "tools"):
        for path in (package / room).rglob("*.py"):
            if path.name == "genai_sdk.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for function in ast.walk(tree):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                calls = [node.lineno for node in ast.walk(function)
                         if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "genai_sdk"]
                for node in ast.walk(function):
                    if isinstance(node, ast.stmt) and _imports_the_sdk(node):
                        found += 1
                        if not any(line <= node.lineno for line in calls):
                            unguarded.append(f"{path.relative_to(package)}:{node.lineno}")
            assert not any(_imports_the_sdk(node) for node in tree.body), f"{path}: the SDK imported at module level"
    assert found >= 8  # the walk saw the client's imports
    assert unguarded == []


def test_aiohttp_loaded_before_stays_off_the_sdks_requests_and_counts_as_transient() -> None:
    out = run("""
        import aiohttp
        from gemini_tui.core.models.gemini import _transient_errors
        transient = _transient_errors()
        from google.genai import _api_client
        print(_api_client.has_aiohttp, aiohttp.ClientError in transient)
    """)
    assert out == "False True"
