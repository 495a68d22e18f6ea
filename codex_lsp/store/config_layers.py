"""The layers of config.toml as plain tables: the file's text read and parsed (a syntax error
located by line and column), `-c key=value` overrides parsed, and tables merged and walked by
key path. `config.py` validates what these produce.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codex_lsp.store.config_errors import ConfigError

KeyPath = tuple[str, ...]


def parse_override(override: str) -> tuple[KeyPath, Any]:
    """`a.b=value` -> (("a", "b"), value); the value is TOML if it parses, else a string."""
    key, sep, raw = override.partition("=")
    parts = tuple(part.strip() for part in key.split("."))
    if not sep or not all(parts):
        raise ConfigError(
            f'-c {override!r}: expected key=value with a dotted key, e.g. -c model="o3"'
        )
    try:
        value = tomllib.loads(f"_ = {raw}")["_"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()  # `-c model=o3` means the string "o3"
    return parts, value


def set_path(tree: dict[str, Any], path: KeyPath, value: Any) -> None:
    """Set `value` at `path` in `tree`, making tables on the way (over values that are not)."""
    node = tree
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[path[-1]] = value


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """`top` over `base`, table by table; a value that is not a table replaces what it covers."""
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and tables; an absent file is empty."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read config: {err}", path=path) from None
    return parse_toml(path, text)


def parse_toml(path: Path, text: str) -> tuple[str, dict[str, Any]]:
    """`text` (as if read from `path`) and its tables; a syntax error is located."""
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise _syntax_error(path, text, str(err)) from None


def _syntax_error(path: Path, text: str, message: str) -> ConfigError:
    reason = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
    reason = reason or "syntax error"
    match = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if match:
        line, column = int(match.group(1)), int(match.group(2))
    elif "end of document" in message:
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
    else:
        return ConfigError(f"{path}: invalid TOML: {reason}", path=path, reason=reason, syntax=True)
    return ConfigError(
        f"{path}:{line}:{column}: invalid TOML: {reason}",
        path=path,
        line=line,
        column=column,
        reason=reason,
        syntax=True,
    )


def leaf_paths(value: Any, prefix: KeyPath = ()) -> Iterable[KeyPath]:
    """The key path of every value that is not a non-empty table."""
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            yield from leaf_paths(inner, (*prefix, str(key)))
    elif prefix:
        yield prefix


def covered(path: KeyPath, keys: frozenset[KeyPath]) -> bool:
    """Whether `path` or a table holding it is one of `keys`."""
    return any(path[:n] in keys for n in range(1, len(path) + 1))
