"""The built-in tools: one module per simple tool (`read_file.py`, `glob.py`, ...), one package per tool with
helpers of its own (`shell/`, `search_file_content/`, `replace/`, `web_fetch/`), and `workspace/`, the gate they
all share. `cli/assemble.py` imports each tool class directly."""
