"""Config errors that point at the exact place to fix: file, line, key, and what was expected.

`tomllib` says where a syntax error is; for a value that fails validation we find the key's line
ourselves by scanning the file's tables and keys, so the message reads like a compiler's:
`/home/me/.codex-lsp/config.toml:7: approval_policy: expected one of untrusted, on-failure,
on-request, never, got "sometimes"`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_core import ErrorDetails

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


class ConfigError(Exception):
    """A config file or override that cannot be used; the message says where and why."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.key = key


def format_key(parts: Sequence[str | int]) -> str:
    """`a.b."c.d"`: a dotted key as it would be written in TOML."""
    shown = []
    for part in parts:
        text = str(part)
        shown.append(text if _BARE_KEY.fullmatch(text) else json.dumps(text))
    return ".".join(shown)


def _parse_dotted(text: str) -> tuple[list[str], int] | None:
    """Parse a dotted TOML key at the start of `text`: (parts, characters consumed)."""
    parts: list[str] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos >= len(text):
            return None
        quote = text[pos]
        if quote in "\"'":
            end = text.find(quote, pos + 1)
            while quote == '"' and end > 0 and text[end - 1] == "\\":
                end = text.find(quote, end + 1)
            if end < 0:
                return None
            parts.append(text[pos + 1 : end])
            pos = end + 1
        else:
            match = _BARE_KEY.match(text, pos)
            if not match:
                return None
            parts.append(match.group(0))
            pos = match.end()
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos < len(text) and text[pos] == ".":
            pos += 1
            continue
        return parts, pos


def locate_key(text: str, target: Sequence[str | int]) -> tuple[int, int] | None:
    """1-based (line, column) where the key path `target` (or its nearest parent) is set."""
    want = [str(part) for part in target]
    table: list[str] = []
    best: tuple[int, int, int] | None = None  # (matched length, line, column)
    in_multiline: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline is not None:
            if line.count(in_multiline) % 2 == 1:
                in_multiline = None
            continue
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("["):
            double = stripped.startswith("[[")
            parsed = _parse_dotted(stripped[2 if double else 1 :])
            if parsed is None:
                continue
            table = parsed[0]
            full, column = table, indent + 1
        else:
            parsed = _parse_dotted(stripped)
            if parsed is None or not stripped[parsed[1] :].startswith("="):
                continue
            full, column = table + parsed[0], indent + 1
            for delim in ('"""', "'''"):
                if stripped.count(delim) % 2 == 1:
                    in_multiline = delim
        matched = _common_prefix(full, want)
        if matched == len(full) == len(want):
            return number, column
        if matched == len(full) and (best is None or matched > best[0]):
            # A parent of the target, e.g. an inline table: point at the key inside if visible.
            inner = line.find(want[-1], column)
            best = (matched, number, inner + 1 if inner >= 0 else column)
    return (best[1], best[2]) if best else None


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    count = 0
    for left, right in zip(a, b, strict=False):
        if left != right:
            break
        count += 1
    return count


def show_value(value: Any) -> str:
    """A value as TOML would spell it, for "got ..." in messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "an array"
    return str(value)


_EXPECTATIONS = {
    "bool_type": "expected true or false",
    "bool_parsing": "expected true or false",
    "int_type": "expected an integer",
    "int_parsing": "expected an integer",
    "int_from_float": "expected an integer",
    "float_type": "expected a number",
    "float_parsing": "expected a number",
    "string_type": "expected a string",
    "dict_type": "expected a table",
    "model_type": "expected a table",
    "model_attributes_type": "expected a table",
    "list_type": "expected an array",
    "tuple_type": "expected an array",
}


def describe_problem(error: ErrorDetails) -> str:
    """One pydantic error as `expected ..., got ...`."""
    kind = error.get("type", "")
    value = error.get("input")
    if kind == "missing":
        return "required key is missing"
    if kind in ("enum", "literal_error"):
        choices = _QUOTED.findall(str((error.get("ctx") or {}).get("expected", "")))
        if choices:
            return f"expected one of {', '.join(choices)}, got {show_value(value)}"
    if kind in _EXPECTATIONS:
        return f"{_EXPECTATIONS[kind]}, got {show_value(value)}"
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    if kind == "value_error":
        return message
    return f"{message}, got {show_value(value)}"
