"""`python -m gemini_tui`: the same entry as the `gemini-tui` script."""

from gemini_tui.cli.main import main

raise SystemExit(main())
