"""Following line spans through an edit, by comparing the text before and after it.

A diagnostic must stay on the code it is about while the user types above it, and go away
once that code is rewritten. Comparing whole texts (rather than summing the line deltas of each
`didChange` range) gives the same answer for precise incremental edits and stays right for
editors that send the whole document, or one change covering all of it, for every keystroke.

Lines only LSP's terminators end (`\\n`, `\\r\\n`, `\\r`) count; a span survives when every one
of its lines is unchanged and they stayed together.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

Span = tuple[int, int]  # 0-based first and last line, inclusive

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Past this many changed lines on each side, matching them up costs more than it saves: spans
# inside such a rewrite are dropped, spans around it still move.
MAX_MATCHED_LINES = 5_000


def split_lines(text: str) -> list[str]:
    return _LINE_BREAK.split(text)


def follow_edit(before: str, after: str, spans: list[Span]) -> list[Span | None]:
    """Where each span of `before` is in `after`; None for a span whose lines were changed."""
    old, new = split_lines(before), split_lines(after)
    blocks = _unchanged_blocks(old, new)
    return [_moved(span, blocks) for span in spans]


def _unchanged_blocks(old: list[str], new: list[str]) -> list[tuple[int, int, int]]:
    """Runs of identical lines as (old start, new start, length)."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    blocks = [(0, 0, head)]
    old_middle, new_middle = old[head : len(old) - tail], new[head : len(new) - tail]
    if old_middle and new_middle and max(len(old_middle), len(new_middle)) <= MAX_MATCHED_LINES:
        matcher = SequenceMatcher(None, old_middle, new_middle, autojunk=False)
        blocks += [
            (head + a, head + b, size) for a, b, size in matcher.get_matching_blocks() if size
        ]
    blocks.append((len(old) - tail, len(new) - tail, tail))
    return blocks


def _moved(span: Span, blocks: list[tuple[int, int, int]]) -> Span | None:
    first, last = span
    for old_start, new_start, size in blocks:
        if old_start <= first and last < old_start + size:
            shift = new_start - old_start
            return first + shift, last + shift
    return None
