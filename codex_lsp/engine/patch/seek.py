"""Locate a run of lines inside a file, tolerating the small differences models introduce.

Models copy context lines from memory, so they drift from the file in predictable ways: trailing
whitespace vanishes, indentation changes, and ASCII punctuation turns typographic (en dashes,
curly quotes, no-break spaces). The search tries four passes, strictest first, and the first pass
that matches anywhere wins, so an exact match is never shadowed by a fuzzy one earlier in the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# Characters that render like ASCII punctuation and that models (or word processors upstream of
# the code) substitute for it.
_PUNCTUATION_FOLD = str.maketrans(
    {
        **dict.fromkeys(
            ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212"],
            "-",
        ),
        **dict.fromkeys(["\u2018", "\u2019", "\u201a", "\u201b"], "'"),
        **dict.fromkeys(["\u201c", "\u201d", "\u201e", "\u201f"], '"'),
        **dict.fromkeys(
            [
                "\u00a0",
                "\u2002",
                "\u2003",
                "\u2004",
                "\u2005",
                "\u2006",
                "\u2007",
                "\u2008",
                "\u2009",
                "\u200a",
                "\u202f",
                "\u205f",
                "\u3000",
            ],
            " ",
        ),
    }
)


def normalise_punctuation(line: str) -> str:
    """Trim `line` and fold typographic dashes, quotes and spaces to ASCII."""
    return line.strip().translate(_PUNCTUATION_FOLD)


def _exact(line: str) -> str:
    return line


def _rstrip(line: str) -> str:
    return line.rstrip()


def _strip(line: str) -> str:
    return line.strip()


_PASSES: tuple[Callable[[str], str], ...] = (_exact, _rstrip, _strip, normalise_punctuation)


def seek_sequence(
    lines: Sequence[str], pattern: Sequence[str], start: int, eof: bool = False
) -> int | None:
    """Return the index in `lines` where `pattern` begins, searching from `start`.

    With `eof`, the pattern must sit at the very end of the file, so only the last possible
    window is tried (and `start` is ignored). An empty pattern matches at `start`; a pattern
    longer than the file never matches.
    """
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    last_start = len(lines) - len(pattern)
    first_start = last_start if eof else start
    if first_start > last_start:
        return None

    for fold in _PASSES:
        found = _search(lines, [fold(line) for line in pattern], first_start, last_start, fold)
        if found is not None:
            return found
    return None


def _search(
    lines: Sequence[str], wanted: list[str], first: int, last: int, fold: Callable[[str], str]
) -> int | None:
    # Lines are folded as the search reaches them: a patch of many chunks to a long file
    # searches from each chunk's predecessor, and folding the whole rest of the file for
    # every chunk made that quadratic.
    head = wanted[0]
    if fold is _exact:
        index = first
        while True:
            try:
                index = lines.index(head, index, last + 1)
            except ValueError:
                return None
            if lines[index : index + len(wanted)] == wanted:
                return index
            index += 1
    for index in range(first, last + 1):
        if fold(lines[index]) == head and all(
            fold(lines[index + k]) == line for k, line in enumerate(wanted) if k
        ):
            return index
    return None
