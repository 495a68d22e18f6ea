"""A small strict JSON reader for the launcher's `--policy` argument.

`json` pulls in `re` and its compiled patterns, about 5 ms of the launcher's start-up
budget, to read one short object. This reader covers all of JSON (objects, arrays,
strings with escapes, numbers, literals) and raises ValueError on anything else.
"""

from __future__ import annotations

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_WS = " \t\n\r"
_NUMBER_CHARS = frozenset("0123456789+-.eE")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, what: str) -> ValueError:
        return ValueError(f"invalid JSON at offset {self.pos}: {what}")

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _WS:
            self.pos += 1

    def peek(self) -> str:
        self.skip_ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r}")
        self.pos += 1

    def value(self) -> object:
        char = self.peek()
        if char == "{":
            return self.obj()
        if char == "[":
            return self.array()
        if char == '"':
            return self.string()
        for word, result in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return result
        return self.number()

    def obj(self) -> dict[str, object]:
        self.expect("{")
        out: dict[str, object] = {}
        if self.peek() == "}":
            self.pos += 1
            return out
        while True:
            if self.peek() != '"':
                raise self.error("expected a string key")
            key = self.string()
            self.expect(":")
            out[key] = self.value()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("}")
            return out

    def array(self) -> list[object]:
        self.expect("[")
        out: list[object] = []
        if self.peek() == "]":
            self.pos += 1
            return out
        while True:
            out.append(self.value())
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("]")
            return out

    def string(self) -> str:
        self.pos += 1  # opening quote, checked by the caller
        parts: list[str] = []
        text = self.text
        while True:
            end = self.pos
            while end < len(text) and text[end] not in '"\\' and text[end] >= " ":
                end += 1
            parts.append(text[self.pos : end])
            self.pos = end
            if end >= len(text):
                raise self.error("unterminated string")
            char = text[end]
            if char == '"':
                self.pos += 1
                return "".join(parts)
            if char != "\\":
                raise self.error("control character in string")
            code = text[end + 1 : end + 2]
            if code in _ESCAPES:
                parts.append(_ESCAPES[code])
                self.pos = end + 2
            elif code == "u":
                unit = self.hex4(end + 2)
                self.pos = end + 6
                # A UTF-16 surrogate pair spells one character outside the BMP.
                if 0xD800 <= unit < 0xDC00 and text.startswith("\\u", self.pos):
                    low = self.hex4(self.pos + 2)
                    if 0xDC00 <= low < 0xE000:
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        self.pos += 6
                parts.append(chr(unit))
            else:
                raise self.error("bad escape")

    def hex4(self, at: int) -> int:
        digits = self.text[at : at + 4]
        if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise self.error("bad \\u escape")
        return int(digits, 16)

    def number(self) -> int | float:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _NUMBER_CHARS:
            self.pos += 1
        token = self.text[start : self.pos]
        if not token:
            raise self.error("unexpected character")
        try:
            return float(token) if any(c in token for c in ".eE") else int(token)
        except ValueError:
            raise self.error(f"bad number {token!r}") from None


def loads(text: str) -> object:
    """Parse one JSON document; trailing garbage is an error."""
    reader = _Reader(text)
    result = reader.value()
    if reader.peek():
        raise reader.error("trailing data")
    return result
