"""`gemini-tui serve`: the app in a browser tab, one app and session per page, on textual-serve."""
