"""The distribution's layout: one import package, gemini_tui, mapped onto the repository's top-level folders."""

from __future__ import annotations

import tomllib
from pathlib import Path

import gemini_tui

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def test_every_folder_with_an_init_is_a_listed_package() -> None:
    setup = PYPROJECT["tool"]["setuptools"]
    mapped = setup["package-dir"]
    found = set()
    for package, folder in mapped.items():
        for init in (REPO / folder).rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            relative = init.parent.relative_to(REPO / folder).parts
            found.add(".".join((package, *relative)))
    assert found == set(setup["packages"]), "list new subpackages under [tool.setuptools] packages"


def test_every_package_lives_under_gemini_tui() -> None:
    setup = PYPROJECT["tool"]["setuptools"]
    assert all(name == "gemini_tui" or name.startswith("gemini_tui.") for name in setup["packages"])
    assert PYPROJECT["project"]["scripts"]["gemini-tui"].startswith("gemini_tui.")


def test_the_stylesheets_ship_as_package_data() -> None:
    from gemini_tui.styles import stylesheet

    names = {path.name for path in (REPO / "styles").glob("*.tcss")}
    assert names, "styles/ holds the app's .tcss files"
    assert all(stylesheet(name).read_text() for name in names)
    assert PYPROJECT["tool"]["setuptools"]["package-data"]["gemini_tui.styles"] == ["*.tcss"]


def test_version_matches_the_distribution() -> None:
    assert gemini_tui.__version__ == PYPROJECT["project"]["version"]
