"""The YAML frontmatter of a SKILL.md: the small subset skills use, without a YAML library.

Supported: `key: value` pairs with plain, single- or double-quoted scalars, nested mappings by
indentation (`metadata:` then indented keys), `|` / `>` block scalars, `- item` lists of
scalars, blank lines and `#` comments. Every scalar is a string. Anything else raises
`FrontmatterError` naming the line, so one bad file is reported and the others still load.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

DELIMITER = "---"


class FrontmatterError(ValueError):
    """The file has no frontmatter, or a line the parser does not understand."""


@dataclass
class _Frame:
    indent: int
    mapping: dict[str, Any] = field(default_factory=dict)


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """`(fields, body)` of a document that starts with a `---` delimited YAML block."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != DELIMITER:
        raise FrontmatterError("missing YAML frontmatter: the file must start with a --- line")
    for end in range(1, len(lines)):
        if lines[end].strip() in (DELIMITER, "..."):
            break
    else:
        raise FrontmatterError("the YAML frontmatter is not closed by a --- line")
    # Line numbers in errors count from the top of the file, where the first --- is line 1.
    fields = parse_mapping(lines[1:end], first_line=2)
    return fields, "\n".join(lines[end + 1 :])


def parse_mapping(lines: list[str], *, first_line: int = 1) -> dict[str, Any]:
    root = _Frame(indent=-1)
    stack = [root]
    # A key written as `key:` whose value (a mapping, a list or nothing) follows.
    open_key: tuple[int, dict[str, Any], str] | None = None
    index = 0
    while index < len(lines):
        raw = lines[index]
        number = first_line + index
        index += 1
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise FrontmatterError(f"line {number}: indent with spaces, not tabs")
        indent = len(raw) - len(raw.lstrip(" "))
        content = raw.strip()
        if open_key is not None:
            key_indent, owner, key = open_key
            open_key = None
            if content.startswith("- ") or content == "-":
                if indent < key_indent:
                    raise FrontmatterError(f"line {number}: a list item must be under its key")
                items, index = _list(lines, index - 1, indent, first_line)
                owner[key] = items
                continue
            if indent > key_indent:
                child = _Frame(indent=indent)
                owner[key] = child.mapping
                stack.append(child)
        while indent < stack[-1].indent:
            stack.pop()
        frame = stack[-1]
        if frame is root and root.indent == -1:
            root.indent = indent
        if indent != frame.indent:
            raise FrontmatterError(f"line {number}: unexpected indentation")
        key, value = _pair(content, number)
        if value == "":
            frame.mapping[key] = ""
            open_key = (indent, frame.mapping, key)
        elif value[0] in "|>":
            text, index = _block(lines, index, indent, folded=value[0] == ">")
            frame.mapping[key] = text
        else:
            frame.mapping[key] = scalar(value, number)
    return root.mapping


def _pair(content: str, number: int) -> tuple[str, str]:
    if content.startswith(("'", '"')):
        quote = content[0]
        close = content.find(quote, 1)
        if close == -1 or not content[close + 1 :].lstrip().startswith(":"):
            raise FrontmatterError(f"line {number}: expected `key: value`")
        key = content[1:close]
        rest = content[close + 1 :].lstrip()[1:]
        return key, rest.strip()
    # The key ends at the first colon followed by a space or the end of the line, so values
    # such as "Use when: ..." or URLs keep their own colons.
    for position, char in enumerate(content):
        if char == ":" and (position + 1 == len(content) or content[position + 1] == " "):
            key = content[:position].strip()
            if key:
                return key, content[position + 1 :].strip()
            break
    raise FrontmatterError(f"line {number}: expected `key: value`, got {content[:40]!r}")


def scalar(value: str, number: int) -> str:
    """A plain or quoted scalar as a string; a trailing ` # comment` is dropped from plain ones."""
    if value.startswith('"'):
        end = _closing_double_quote(value)
        if end == -1:
            raise FrontmatterError(f"line {number}: unterminated double-quoted string")
        try:
            return str(json.loads(value[: end + 1]))
        except json.JSONDecodeError:
            # YAML allows escapes JSON does not; keep the text between the quotes.
            return value[1:end]
    if value.startswith("'"):
        text, position = [], 1
        while position < len(value):
            char = value[position]
            if char == "'":
                if value[position + 1 : position + 2] == "'":
                    text.append("'")
                    position += 2
                    continue
                return "".join(text)
            text.append(char)
            position += 1
        raise FrontmatterError(f"line {number}: unterminated single-quoted string")
    comment = value.find(" #")
    return (value[:comment] if comment != -1 else value).strip()


def _closing_double_quote(value: str) -> int:
    position = 1
    while position < len(value):
        if value[position] == "\\":
            position += 2
            continue
        if value[position] == '"':
            return position
        position += 1
    return -1


def _block(lines: list[str], index: int, key_indent: int, *, folded: bool) -> tuple[str, int]:
    """The lines of a `|` or `>` scalar: everything indented deeper than its key."""
    body: list[str] = []
    while index < len(lines):
        raw = lines[index]
        if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= key_indent:
            break
        body.append(raw)
        index += 1
    while body and not body[-1].strip():
        body.pop()
    depth = min((len(line) - len(line.lstrip(" ")) for line in body if line.strip()), default=0)
    stripped = [line[depth:] for line in body]
    if folded:
        return " ".join(line.strip() for line in stripped if line.strip()), index
    return "\n".join(stripped), index


def _list(lines: list[str], index: int, indent: int, first_line: int) -> tuple[list[str], int]:
    """`- item` lines at `indent`; an item written as a mapping is kept as its text."""
    items: list[str] = []
    while index < len(lines):
        raw = lines[index]
        if not raw.strip() or raw.lstrip().startswith("#"):
            index += 1
            continue
        here = len(raw) - len(raw.lstrip(" "))
        content = raw.strip()
        if here < indent or (here == indent and not content.startswith("-")):
            break
        if here == indent:
            items.append(scalar(content[1:].strip(), first_line + index))
        elif items:
            # A continuation of a mapping item: kept verbatim, skills never rely on it.
            items[-1] = f"{items[-1]} {content}"
        index += 1
    return items, index
