"""Benchmark: an MCP stdio server (tests/fakes/mcp_server.py) from start to tools registered (target <= 1.5 s),
the round trip of one tool call through DiscoveredMCPTool (target <= 10 ms median), and how long the app's
startup path spends on MCP before the first frame (target <= 5 ms: the SDK must not load until connecting)."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.tooling.discovered_tool import DiscoveredParams
from gemini_tui.core.tooling.registry import ToolRegistry

FAKE = Path(__file__).resolve().parents[1] / "tests" / "fakes" / "mcp_server.py"
TARGET_CONNECT_S = 1.5
TARGET_CALL_MS = 10.0
TARGET_IMPORT_MS = 5.0
CALLS = 200


async def measure(log_dir: Path) -> tuple[float, float]:
    from gemini_tui.core.mcp import McpManager

    manager = McpManager({"fake": {"command": sys.executable, "args": [str(FAKE)], "trust": True}},
                         ToolRegistry(), root=log_dir, log_dir=log_dir)
    started = time.perf_counter()
    assert await manager.wait_ready(30)
    connect = time.perf_counter() - started
    tool = manager.registry.get("echo")
    assert tool is not None
    params = tool.validate_params({"text": "ping"})
    assert isinstance(params, DiscoveredParams)
    times = []
    for _ in range(CALLS):
        began = time.perf_counter()
        result = await tool.execute(params, AbortSignal())
        times.append(time.perf_counter() - began)
        assert result.ok
    await manager.close()
    return connect, statistics.median(times) * 1000


def import_ms() -> float:
    """Importing core.mcp and building a manager in a fresh interpreter; the mcp SDK must stay unloaded."""
    # what the app loads anyway (settings, tool API, events) is imported first: only MCP's own cost is timed
    code = ("import time, sys; import gemini_tui.core.setup.config, gemini_tui.core.tooling.registry, "
            "gemini_tui.core.tooling.tool, gemini_tui.core.ground.events; t=time.perf_counter(); "
            "from gemini_tui.core.mcp import McpManager; from gemini_tui.core.tooling.registry import ToolRegistry; "
            "McpManager({'a': {'command': 'x'}}, ToolRegistry()); "
            "print((time.perf_counter()-t)*1000, 'mcp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.split()
    assert out[1] == "False", "the mcp SDK was imported on the startup path"
    return float(out[0])


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        runs = [asyncio.run(measure(Path(tmp))) for _ in range(3)]
    connect = statistics.median(c for c, _ in runs)
    call_ms = statistics.median(c for _, c in runs)
    startup = statistics.median(import_ms() for _ in range(3))
    print(f"stdio server connected with its tools: {connect:.2f} s (target <= {TARGET_CONNECT_S} s) "
          f"{'OK' if connect <= TARGET_CONNECT_S else 'MISSED'}")
    print(f"tool call round trip: {call_ms:.2f} ms median of {CALLS} (target <= {TARGET_CALL_MS:.0f} ms) "
          f"{'OK' if call_ms <= TARGET_CALL_MS else 'MISSED'}")
    print(f"MCP cost on the startup path: {startup:.1f} ms, mcp SDK not loaded (target <= {TARGET_IMPORT_MS:.0f} ms) "
          f"{'OK' if startup <= TARGET_IMPORT_MS else 'MISSED'}")


if __name__ == "__main__":
    main()
