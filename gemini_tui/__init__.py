"""gemini-tui: Gemini CLI's agent core as a full-screen Textual app.

The distribution installs this one package; its subpackages live in the repository's top-level folders
(`app/`, `core/`, `tools/`, `cli/`, `styles/`), mapped here by setuptools' `package-dir`.
"""

__version__ = "0.2.0"
