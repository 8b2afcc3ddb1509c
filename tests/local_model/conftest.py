"""The real local model (llama.cpp's server from PyPI with a 270M GGUF) runs where it is installed first: `make test`
(among the suite's tests) and `make test-local-model` set GEMINI_TUI_LOCAL_MODEL=1; a plain `pytest` does not collect
these tests (it would not skip them either)."""

from __future__ import annotations

import os

collect_ignore_glob = [] if os.environ.get("GEMINI_TUI_LOCAL_MODEL") == "1" else ["test_*.py"]
