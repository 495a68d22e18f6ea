"""Edit `config.toml` in place: comments, key order and layout stay as the user wrote them.

`tomlkit` round-trips the file; an edit only touches the key it names. A change is written to a
temporary file beside the config and renamed over it, so a reader never sees half a file, and
the file keeps its permissions.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table

from codex_lsp.store.config_errors import ConfigError


@dataclass(frozen=True)
class Edit:
    """Set `key_path` to `value` (`None` removes it); `upsert` merges a table into the one
    already there instead of replacing it."""

    key_path: tuple[str, ...]
    value: Any
    strategy: Literal["replace", "upsert"] = "replace"


def version_of(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_key_path(key_path: str) -> tuple[str, ...]:
    """`a.b.c` as its parts; an empty part (`a..b`, a leading dot) is an error."""
    parts = tuple(part.strip() for part in key_path.split("."))
    if not key_path or any(not part for part in parts):
        raise ValueError(f"invalid key path {key_path!r}")
    return parts


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """The file's text with every edit applied, in order."""
    try:
        document = tomlkit.parse(text)
    except TOMLKitError as err:
        raise ConfigError(f"the config file is not valid TOML: {err}") from None
    for edit in edits:
        _apply(document, edit)
    return tomlkit.dumps(document)


def _apply(document: Any, edit: Edit) -> None:
    *parents, leaf = edit.key_path
    table = document
    for depth, part in enumerate(parents):
        child = table.get(part)
        if child is None:
            if edit.value is None:
                return  # removing a key whose table does not exist: nothing to do
            child = tomlkit.table()
            table[part] = child
        elif not isinstance(child, dict):
            shown = ".".join(edit.key_path[: depth + 1])
            raise ConfigError(f"{shown} is a {type(child).__name__}, not a table", key=shown)
        table = child
    if edit.value is None:
        if leaf in table:
            del table[leaf]
        return
    existing = table.get(leaf)
    if edit.strategy == "upsert" and isinstance(existing, dict) and isinstance(edit.value, dict):
        for key, value in edit.value.items():
            _apply(existing, Edit((key,), value, "upsert"))
        return
    table[leaf] = _toml_value(edit.value, nested=isinstance(table, Table) or table is document)


def _toml_value(value: Any, *, nested: bool) -> Any:
    """A TOML item for a JSON value: objects become tables (inline inside arrays), a list of
    objects directly under a table becomes an array of tables."""
    if isinstance(value, dict):
        if not nested:
            inline = tomlkit.inline_table()
            inline.update({k: _toml_value(v, nested=False) for k, v in value.items()})
            return inline
        table = tomlkit.table()
        for key, item in value.items():
            if item is not None:
                table[key] = _toml_value(item, nested=True)
        return table
    if isinstance(value, list):
        if nested and value and all(isinstance(item, dict) for item in value):
            # `[[key]]` sections, as Codex writes lists of tables (`[[skills.config]]`).
            tables = tomlkit.aot()
            for item in value:
                tables.append(_toml_value(item, nested=True))
            return tables
        array = tomlkit.array()
        array.extend(_toml_value(item, nested=False) for item in value)
        return array
    return value


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o600
    fd, temp = tempfile.mkstemp(prefix=".config.", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
