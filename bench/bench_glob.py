"""Benchmark: `glob "**/*.py"` over a 100k-path tree with a 150-pattern .gitignore (target <= 0.5 s)."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.tools.glob import GlobTool
from gemini_tui.tools.workspace import Workspace

TARGET_SECONDS = 0.5
TREE = Path(__file__).parent / ".data" / "glob_tree"
STAMP = TREE / ".complete-v1"
EXTENSIONS = ("py", "py", "py", "txt", "md", "json", "log", "pyc", "cfg", "tmp", "csv", "bak")


def gitignore_lines() -> list[str]:
    """150 patterns of the kinds real projects use: names, extensions, name globs, anchored paths, negations."""
    lines = [f"*.{ext}" for ext in ("log", "pyc", "tmp", "bak", "swp", "o", "so", "egg", "whl", "cache")]
    lines += [f"*.gen{i}" for i in range(40)]
    lines += [f"name{i}.lock" for i in range(20)] + [".env", ".venv", "build/", "dist/", "coverage/"]
    lines += [f"tmp_{i}_*.dat" for i in range(15)] + ["*.py[cod]", "*~", ".*.sw?", "*$py.class", "*-journal"]
    lines += [f"/out{i}/" for i in range(10)] + [f"docs/build{i}/" for i in range(10)]
    lines += [f"pkg{i}/mod{i}/generated/" for i in range(10)] + [f"**/fixtures{i}/*.bin" for i in range(10)]
    lines += [f"!keep{i}.log" for i in range(5)] + [f"scratch{i}/" for i in range(10)]
    assert len(lines) == 150, len(lines)
    return lines


def build_tree(root: Path = TREE) -> int:
    """Create the tree once (reused while the stamp file exists); returns the number of paths in it."""
    if STAMP.exists():
        return int(STAMP.read_text())
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("\n".join(gitignore_lines()) + "\n")
    count = 1
    for pkg in range(16):
        for mod in range(16):
            for sub in range(8):
                directory = root / f"pkg{pkg}" / f"mod{mod}" / f"sub{sub}"
                directory.mkdir(parents=True, exist_ok=True)
                for index in range(44):
                    ext = EXTENSIONS[(pkg + mod + sub + index) % len(EXTENSIONS)]
                    os.close(os.open(directory / f"file{index}.{ext}", os.O_CREAT | os.O_WRONLY, 0o644))
                count += 45
            count += 1
        count += 1
    for folder in ("build", "dist"):  # ignored wholesale: must be pruned, not filtered file by file
        for part in range(40):
            directory = root / folder / f"part{part}"
            directory.mkdir(parents=True, exist_ok=True)
            for index in range(100):
                os.close(os.open(directory / f"artifact{index}.py", os.O_CREAT | os.O_WRONLY, 0o644))
            count += 101
    STAMP.write_text(str(count))
    return count


def run_glob(workspace: Workspace) -> tuple[float, int]:
    tool = GlobTool(workspace)
    params = tool.Params(pattern="**/*.py")
    started = time.perf_counter()
    result = asyncio.run(tool.execute(params, AbortSignal()))
    elapsed = time.perf_counter() - started
    assert result.ok, result.llm_content
    return elapsed, int(str(result.llm_content).split(" ", 2)[1])


def main() -> None:
    started = time.perf_counter()
    paths = build_tree()
    print(f"glob: tree of {paths} paths under {TREE} ({time.perf_counter() - started:.1f} s to prepare)")
    cold, found = run_glob(Workspace(TREE))
    warm_workspace = Workspace(TREE)
    run_glob(warm_workspace)
    warm = statistics.median(run_glob(warm_workspace)[0] for _ in range(5))
    for label, seconds in (("first call (rules compiled)", cold), ("later calls (median of 5)", warm)):
        print(f"glob **/*.py, {label}: {seconds:.3f} s, {found} files; target <= {TARGET_SECONDS} s; "
              f"ratio {seconds / TARGET_SECONDS:.2f} {'OK' if seconds <= TARGET_SECONDS else 'SLOW'}")


if __name__ == "__main__":
    main()
