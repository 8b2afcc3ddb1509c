"""google-genai is imported without aiohttp (installed for the web server): requests stay on httpx, where our
retries hand over a broken stream's received chunks, and a headless run or ACP agent does not pay aiohttp's import."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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


def _imports_the_sdk(node: ast.AST) -> bool:
    match node:
        case ast.ImportFrom(module=module, names=names):
            return module is not None and (module.startswith("google.genai")
                                           or (module == "google" and any(n.name == "genai" for n in names)))
        case ast.Import(names=names):
            return any(n.name.startswith("google.genai") for n in names)
        case ast.Call(args=[ast.Constant(value=str(name)), *_]):
            return name.startswith("google.genai")  # importlib.import_module(...), __import__(...), however used
    return False


def _unguarded_imports(tree: ast.Module) -> tuple[int, list[int]]:
    """(imports of the SDK seen, the lines of those not preceded by `genai_sdk()` in their function or at module
    level, where none may stand)."""
    found, unguarded = 0, []
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    for function in functions:
        calls = [node.lineno for node in ast.walk(function)
                 if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "genai_sdk"]
        for node in ast.walk(function):
            if _imports_the_sdk(node):
                found += 1
                if not any(line <= node.lineno for line in calls):
                    unguarded.append(node.lineno)
    outside = [statement for statement in tree.body
               if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    unguarded += [node.lineno for statement in outside for node in ast.walk(statement) if _imports_the_sdk(node)]
    return found, unguarded


@pytest.mark.parametrize("source", [
    "def f():\n    import google.genai.types\n",
    "def f():\n    from google import genai\n",
    "def f():\n    client = importlib.import_module('google.genai').Client()\n",
    "def f():\n    return __import__('google.genai.types')\n",
    "async def f():\n    if x:\n        from google.genai import types\n    genai_sdk()\n",
    "import google.genai\n",
    "SDK = importlib.import_module('google.genai')\n",
])
def test_the_check_sees_each_spelling_of_an_unguarded_import(source: str) -> None:
    assert _unguarded_imports(ast.parse(source))[1] != []


def test_every_import_of_the_sdk_goes_through_genai_sdk_first() -> None:
    """Whichever entry runs first (a request, the retry's error list, web search) imports the SDK without aiohttp."""
    package = Path(gemini_tui.__file__).resolve().parent.parent
    unguarded, found = [], 0
    for room in ("app", "cli", "core", "tools"):
        for path in (package / room).rglob("*.py"):
            if path.name == "genai_sdk.py":
                continue
            seen, lines = _unguarded_imports(ast.parse(path.read_text(encoding="utf-8")))
            found += seen
            unguarded += [f"{path.relative_to(package)}:{line}" for line in lines]
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
