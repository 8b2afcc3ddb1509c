"""The composition root: parses the command line and wires tools, core and app together."""

__version__ = "0.1.0"
