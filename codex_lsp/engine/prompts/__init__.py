"""The engine's prompts for editor requests, one Markdown file each, filled in with `$name`s.

Doors and editors send only what the user asked and what they attached; the words that tell
the model what to do with it live here. `string.Template` keeps code safe to insert: braces,
dollar signs and backticks in a value are never read as template syntax.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from string import Template


@cache
def _template(name: str) -> Template:
    text = files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8")
    return Template(text.strip("\n"))


def render(name: str, **values: str | int) -> str:
    """The prompt `name` with its `$placeholders` filled; a missing value is a KeyError."""
    return _template(name).substitute({key: str(value) for key, value in values.items()})
