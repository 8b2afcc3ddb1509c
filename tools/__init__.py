"""Built-in tools, one module each, and the workspace gate they all share."""
