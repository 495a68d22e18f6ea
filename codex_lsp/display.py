"""Untrusted text made safe to show a person: every control and invisible character visible.

A command, a path, a file name, a command's output or the model's words can carry characters
that change what a terminal or an editor shows instead of being shown: ESC starts an ANSI or
OSC sequence (recolouring, moving the cursor, writing the clipboard), CR and BS overwrite what
came before, U+202E and its kin reorder the line, zero-width characters hide text in plain
sight. A prompt built from such text can say one thing while the command does another.

`visible` turns each of them into text that names it: C0 and C1 controls and DEL as
`\\x1b`-style escapes (`\\r`, `\\t`, `\\n` by their usual names), format, bidi, zero-width and
line-separator characters and lone surrogates as `<U+202E>`. Newline stays a newline only
where the display is multi-line; a command shown on one line shows `\\n`. Every door that shows
text to a person goes through it; what goes to a program (app-server JSON, `exec --json`,
piped output) stays as it was.

The editor shims carry the same rules in their own languages
(`editors/vscode/src/shared/visible.ts`, `editors/neovim/lua/codex/visible.lua`).
"""

from __future__ import annotations

import re
import unicodedata

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Cc: C0, DEL, C1. Cf: bidi embeddings, overrides and isolates, LRM/RLM/ALM, zero-width
# space/joiners, word joiner, BOM, tag characters. Zl/Zp: line and paragraph separators,
# which break a line the reader believes is one. Cs: lone surrogates, which no display can
# show and no encoder can write.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})

# Printable ASCII needs no look; everything else is judged by its Unicode category.
_CANDIDATES = re.compile("[^\x20-\x7e]")


def is_hidden(char: str) -> bool:
    """Whether `char` acts on the display instead of appearing in it."""
    return unicodedata.category(char) in _HIDDEN_CATEGORIES


def _name(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0xA0:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def visible(text: str, *, multiline: bool = False) -> str:
    """`text` with every control, bidi and invisible character shown by name.

    With `multiline`, newlines (and CR LF pairs, as one newline) and tabs stay as they are,
    for a display that shows several lines; without it, a newline shows as `\\n`.
    """
    if multiline:
        text = text.replace("\r\n", "\n")

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        if multiline and char in "\n\t":
            return char
        if not is_hidden(char):
            return char
        return _name(char)

    return _CANDIDATES.sub(replace, text)
