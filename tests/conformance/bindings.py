"""Reading the real server's TypeScript bindings (`codex app-server generate-ts`).

Only what the conformance check needs: for each exported type, its object shape (field ->
optional `?:` or not, nullable `| null` or not) or, for a union of tagged objects, the shape of
each variant by its `type`. `{ a } & ({ "type": "x", b } | { "type": "y", c })` distributes into
one shape per variant. Other types (aliases, string unions) read as having no shape.

The grammar is the subset ts-rs writes: object literals, unions, intersections, parentheses,
generics (`Array<T>`, `{ [key in string]?: T }`), string and number literals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_EXPORT = re.compile(r"export type (\w+)\s*=\s*", re.S)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_$][\w$]*|-?\d+(?:\.\d+)?|\S')


@dataclass(frozen=True)
class Field:
    optional: bool  # `name?: T`: may be left out
    nullable: bool  # `| null` among the alternatives


@dataclass
class Shape:
    """An object type: its fields, and its `type` tag when it has a string literal one."""

    fields: dict[str, Field] = field(default_factory=dict)
    tag: str | None = None


@dataclass
class TsType:
    """A parsed type: the object shapes it can take (several for a tagged union), or none."""

    shapes: list[Shape] = field(default_factory=list)
    nullable: bool = False


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _TOKEN.findall(text)
        self.pos = 0

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if expected is not None and token != expected:
            context = " ".join(self.tokens[max(0, self.pos - 5) : self.pos + 5])
            raise ValueError(f"expected {expected!r}, got {token!r} near: {context}")
        self.pos += 1
        return token

    def union(self) -> TsType:
        result = TsType()
        self._add(result, self.intersection())
        while self.peek() == "|":
            self.take()
            self._add(result, self.intersection())
        return result

    @staticmethod
    def _add(into: TsType, part: TsType) -> None:
        into.shapes += part.shapes
        into.nullable = into.nullable or part.nullable

    def intersection(self) -> TsType:
        result = self.primary()
        while self.peek() == "&":
            self.take()
            right = self.primary()
            if result.shapes and right.shapes:
                result = TsType(
                    [_merge(a, b) for a in result.shapes for b in right.shapes],
                    result.nullable and right.nullable,
                )
            elif right.shapes:
                result = right
        return result

    def primary(self) -> TsType:
        token = self.peek()
        if token == "(":
            self.take()
            inner = self.union()
            self.take(")")
            return self._suffix(inner)
        if token == "{":
            return self._suffix(TsType([self.object()]))
        self.take()
        if token == "null":
            return TsType(nullable=True)
        if self.peek() == "<":
            self._skip_generic()
        return self._suffix(TsType())

    def _suffix(self, parsed: TsType) -> TsType:
        while self.peek() == "[" and self.tokens[self.pos + 1 : self.pos + 2] == ["]"]:
            self.pos += 2
            parsed = TsType()  # an array of it: no shape of its own
        return parsed

    def _skip_generic(self) -> None:
        depth = 0
        while True:
            token = self.take()
            depth += {"<": 1, ">": -1}.get(token, 0)
            if depth == 0:
                return

    def object(self) -> Shape:
        self.take("{")
        shape = Shape()
        while self.peek() != "}":
            if self.peek() == "[":  # `[key in string]?: T`: a map, not named fields
                while self.take() != "]":
                    pass
                name = None
            else:
                name = self.take().strip('"')
            optional = self.peek() == "?"
            if optional:
                self.take()
            self.take(":")
            start = self.pos
            value = self.union()
            if name is not None:
                shape.fields[name] = Field(optional, value.nullable)
                if name == "type" and self.pos == start + 1 and self.tokens[start][0] == '"':
                    shape.tag = self.tokens[start].strip('"')
            if self.peek() == ",":
                self.take()
        self.take("}")
        return shape


def _merge(a: Shape, b: Shape) -> Shape:
    return Shape({**a.fields, **b.fields}, b.tag or a.tag)


def parse_type(text: str) -> TsType:
    """The type expression `text` (comments already removed)."""
    return _Parser(text).union()


def load_bindings(directory: Path) -> dict[str, TsType]:
    """Every `export type Name = ...;` under `directory`, by name (`v2/` wins over the root
    for a name both define, as the v2 protocol is the one compared)."""
    types: dict[str, TsType] = {}
    files = sorted(directory.rglob("*.ts"), key=lambda p: (p.parent.name == "v2", str(p)))
    for path in files:
        text = _COMMENT.sub(" ", path.read_text())
        for match in _EXPORT.finditer(text):
            body = text[match.end() :]
            end = _statement_end(body)
            types[match.group(1)] = parse_type(body[:end])
    return types


def _statement_end(body: str) -> int:
    """Where the type expression ends: the first `;` outside brackets and strings."""
    depth, in_string = 0, False
    for index, char in enumerate(body):
        if in_string:
            in_string = char != '"' or body[index - 1] == "\\"
        elif char == '"':
            in_string = True
        elif char in "{(<[":
            depth += 1
        elif char in "})>]":
            depth -= 1
        elif char == ";" and depth == 0:
            return index
    return len(body)
