"""Benchmark: `gemini-tui serve` in headless Chromium: from page load to the first usable frame (the prompt drawn
in the page), and the memory each open page costs on the server's machine (its app and what it started)."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.bench_app_launch import launch_once
from gemini_tui.core.processes.process_tree import descendants
from tests.browser.page import KEEP_TERMINAL, launch, screen, serve
from tests.fakes.gemini_server import FakeGeminiServer

RUNS = 5
PAGES = 4
FIRST_FRAME_TARGET_S = 1.0  # the terminal's launch target is 0.5 s; a page adds the browser's and the socket's share
PAGE_MEMORY_TARGET_MB = 150.0
READY_TEXT = "Ask anything"


def first_frame(browser: object, url: str) -> float:
    context = browser.new_context(viewport={"width": 1200, "height": 800})  # type: ignore[attr-defined]
    page = context.new_page()
    page.add_init_script(KEEP_TERMINAL)
    try:
        started = time.perf_counter()
        page.goto(url)
        while READY_TEXT not in screen(page):
            if time.perf_counter() - started > 30:
                raise RuntimeError("the page drew no prompt within 30 s")
            time.sleep(0.005)
        return time.perf_counter() - started
    finally:
        context.close()


def pss_mb(pid: int) -> float:
    """Proportional set size: shared pages (the interpreter, the libraries) split among the processes using them."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, FakeGeminiServer() as fake, sync_playwright() as playwright:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        (root / "README.md").write_text("# demo\n")
        os.environ.setdefault("GEMINI_CLI_TRUST_WORKSPACE", "true")
        browser = launch(playwright)
        with serve(root, home, fake) as served:
            first_frame(browser, served.url)  # warm the OS file cache and the browser
            times = [first_frame(browser, served.url) for _ in range(RUNS)]
            median = statistics.median(times)
            print(f"page load to first usable frame: median {median:.3f} s, min {min(times):.3f} s, "
                  f"max {max(times):.3f} s over {RUNS} pages; target <= {FIRST_FRAME_TARGET_S} s; "
                  f"ratio {median / FIRST_FRAME_TARGET_S:.2f}")
            # the same app in a terminal, now, on this machine: what the page adds, whatever the machine's load
            env = {"GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": fake.base_url}
            terminal = statistics.median(launch_once(root, home, env) for _ in range(RUNS))
            print(f"the same app's launch in a terminal (tmux): median {terminal:.3f} s; the page takes "
                  f"{median / terminal:.2f}x that (+{median - terminal:.3f} s: page, script, socket)")

            idle = pss_mb(served.pid)
            contexts = []
            for _ in range(PAGES):
                context = browser.new_context(viewport={"width": 1200, "height": 800})
                page = context.new_page()
                page.add_init_script(KEEP_TERMINAL)
                page.goto(served.url)
                deadline = time.monotonic() + 30
                while READY_TEXT not in screen(page) and time.monotonic() < deadline:
                    time.sleep(0.05)
                contexts.append(context)
            time.sleep(3)  # the sessions are built after the first frame: let them settle
            apps = [pid for pid in descendants(served.pid) if _parent(pid) == served.pid]
            per_page = [sum(pss_mb(p) for p in (app, *descendants(app))) for app in apps]
            server_now = pss_mb(served.pid)
            median_page = statistics.median(per_page)
            print(f"memory per open page (PSS of its app and children, {len(per_page)} pages): median "
                  f"{median_page:.1f} MB, max {max(per_page):.1f} MB; target <= {PAGE_MEMORY_TARGET_MB:.0f} MB; "
                  f"ratio {median_page / PAGE_MEMORY_TARGET_MB:.2f}")
            print(f"the server itself: {idle:.1f} MB idle, {server_now:.1f} MB with {PAGES} pages open")
            closed = time.perf_counter()
            for context in contexts:
                context.close()
            while descendants(served.pid) and time.perf_counter() - closed < 30:
                time.sleep(0.01)
            print(f"{PAGES} pages closed to no process left below the server: {time.perf_counter() - closed:.2f} s "
                  f"(target: a few seconds)")
        browser.close()


def _parent(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
        return int(text[text.rindex(")") + 2:].split()[1])
    except (OSError, ValueError):
        return 0


if __name__ == "__main__":
    main()
