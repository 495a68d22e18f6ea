"""Config errors that point at the exact place to fix: file, line, key, and what was expected.

`tomllib` says where a syntax error is; for a value that fails validation we find the key's line
ourselves by scanning the file's tables and keys, so the message reads like a compiler's:
`/home/me/.codex-lsp/config.toml:7: approval_policy: expected one of untrusted, on-failure,
on-request, never, got "sometimes"`; the value's own columns are kept for an editor to
underline. A value under a key that names a secret (an API key, a token, a header), or shaped
like one, is described by its kind only: messages reach logs and editor notifications.
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
# Keys whose values are never repeated in a message: they hold credentials.
_SECRET_KEY = re.compile(
    r"(?i)(key|token|secret|passw(or)?d|credentials?)$|bearer|authorization|cookie"
)
# Tables whose every value may be a credential: headers sent, environments given to servers.
_SECRET_TABLES = frozenset({"http_headers", "headers", "env"})
_SECRET_SHAPE = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}|(?i:bearer\s+)\S{8,}|\beyJ[A-Za-z0-9_-]{8,}\.")


class ConfigError(Exception):
    """A config file or override that cannot be used; the message says where and why.

    `path` is set when the problem is in the file (None for a `-c` override); `line`, `column`
    and `end_column` (1-based, inclusive) locate it there when known; `reason` is the message
    without its location; `syntax` tells a file that is not TOML from a value that is wrong.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
        reason: str | None = None,
        syntax: bool = False,
        end_column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.key = key
        self.reason = reason if reason is not None else message
        self.syntax = syntax
        self.end_column = end_column

    @property
    def located(self) -> str:
        """`<file>:<line>:<column>: <reason>`, or the message when the place is unknown."""
        if self.path is None or self.line is None:
            return str(self)
        return f"{self.path}:{self.line}:{self.column or 1}: {self.reason}"


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


def value_span(text: str, line: int, column: int) -> tuple[int, int] | None:
    """1-based first and last columns of the value set by the key at (`line`, `column`), when
    it starts on that line; a value that goes on past the line is its first column only."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    source = lines[line - 1]
    equals = source.find("=", column - 1)
    if equals < 0:
        return None
    start = equals + 1
    while start < len(source) and source[start] in " \t":
        start += 1
    if start >= len(source):
        return None
    quote = source[start]
    if quote in "\"'":
        end = start + 1
        while end < len(source) and source[end] != quote:
            end += 2 if quote == '"' and source[end] == "\\" else 1
        last = min(end, len(source) - 1)
    elif quote in "[{":
        last = start
    else:
        last = start + len(source[start:].split("#", 1)[0].rstrip()) - 1
    return start + 1, last + 1


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    count = 0
    for left, right in zip(a, b, strict=False):
        if left != right:
            break
        count += 1
    return count


def holds_secret(key: Sequence[str | int]) -> bool:
    """Whether a key path names a secret (an API key, a token, a password, a header)."""
    parts = [str(part) for part in key]
    if any(part in _SECRET_TABLES for part in parts):
        return True
    return bool(parts) and _SECRET_KEY.search(parts[-1]) is not None


def looks_secret(text: str) -> bool:
    """Whether text is shaped like an API key, a bearer token or a JWT."""
    return _SECRET_SHAPE.search(text) is not None


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a value"


def show_value(value: Any, *, secret: bool = False) -> str:
    """A value as TOML would spell it, for "got ..." in messages; a secret's only by kind."""
    if secret and not isinstance(value, dict | list | tuple):
        return f"{_kind(value)} (not shown)"
    if isinstance(value, str) and looks_secret(value):
        return "a string shaped like a secret (not shown)"
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


def describe_problem(error: ErrorDetails, *, secret: bool = False) -> str:
    """One pydantic error as `expected ..., got ...`; a `secret` value is not repeated."""
    kind = error.get("type", "")
    value = error.get("input")
    if kind == "missing":
        return "required key is missing"
    if kind in ("enum", "literal_error"):
        choices = _QUOTED.findall(str((error.get("ctx") or {}).get("expected", "")))
        if choices:
            return f"expected one of {', '.join(choices)}, got {show_value(value, secret=secret)}"
    if kind in _EXPECTATIONS:
        return f"{_EXPECTATIONS[kind]}, got {show_value(value, secret=secret)}"
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    if kind == "value_error":
        return "invalid value (not shown)" if secret else message
    return f"{message}, got {show_value(value, secret=secret)}"


def data_path(data: Any, loc: Sequence[int | str]) -> tuple[str, ...]:
    """The part of an error's location that names keys in `data` (pydantic adds the names of
    union members and validators, which are not keys of the file)."""
    path: list[str] = []
    node = data
    for index, part in enumerate(loc):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, dict) and index == len(loc) - 1:
            pass  # a required key that is missing
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            continue
        path.append(str(part))
    return tuple(path)
