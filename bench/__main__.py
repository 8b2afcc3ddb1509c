"""`python -m bench [name ...]`: run every `bench/bench_*.py` module's `main()` in turn, or only those named."""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path


def available() -> list[str]:
    return sorted(path.stem for path in Path(__file__).parent.glob("bench_*.py"))


def main(argv: list[str]) -> int:
    names = available()
    if argv:
        wanted = [arg if arg.startswith("bench_") else f"bench_{arg}" for arg in argv]
        unknown = [name for name in wanted if name not in names]
        if unknown:
            print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(names)}", file=sys.stderr)
            return 2
        names = wanted
    failed: list[str] = []
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        started = time.perf_counter()
        try:
            importlib.import_module(f"bench.{name}").main()
        except Exception:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            failed.append(name)
            print(f"--- {name} FAILED", flush=True)
        else:
            print(f"--- {name} done in {time.perf_counter() - started:.1f} s", flush=True)
    if failed:
        print(f"\n{len(failed)} benchmark(s) failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
