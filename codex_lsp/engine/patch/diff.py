"""Unified diffs of whole-file text, in time linear in the size of the files.

Two entry points, both pure functions of text:

* `unified_diff(old, new, ...)` compares two texts with no other knowledge. Lines common to
  both ends are trimmed, lines that occur exactly once on each side anchor the match (the
  patience diff), and what lies between anchors is compared by a Myers search. A work budget
  proportional to the input caps the whole computation: a region it cannot afford is shown as
  removed and re-added, which is still a correct diff, only a larger one. `difflib` has no such
  bound and takes minutes on an 80,000-line file with many changes.
* `unified_diff_of_edits(old, new, edits, ...)` is given the line ranges a patch replaced (its
  own hunks, located in the file), so only those ranges are compared and everything else is
  known to be equal.

Lines end at "\\n" only; a last line without one is marked `\\ No newline at end of file`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

DEFAULT_CONTEXT = 3
NO_NEWLINE_MARKER = "\\ No newline at end of file\n"

# Comparisons allowed per input line, plus a floor so small files always get a minimal diff.
_WORK_PER_LINE = 8
_MIN_WORK = 1 << 18


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Lines `old_start:old_start+old_count` of the old text became lines
    `new_start:new_start+new_count` of the new one (0-based, in `split_lines` terms)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int


# (tag, i1, i2, j1, j2) as difflib's opcodes: "equal", "replace", "delete" or "insert".
Opcode = tuple[str, int, int, int, int]
_Match = tuple[int, int, int]  # (old index, new index, length)


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its "\\n" (the last one may lack it)."""
    # str.splitlines would also split on form feeds and U+2028.
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_diff(
    old: str, new: str, old_label: str, new_label: str, context: int = DEFAULT_CONTEXT
) -> str:
    """A unified diff from `old` to `new`, or "" when they are equal.

    Labels go on the `---`/`+++` lines verbatim; pass `/dev/null` for a side that is absent.
    """
    if old == new:
        return ""
    a, b = split_lines(old), split_lines(new)
    return _render(a, b, line_opcodes(a, b), old_label, new_label, context)


def unified_diff_of_edits(
    old: str,
    new: str,
    edits: Sequence[LineEdit],
    old_label: str,
    new_label: str,
    context: int = DEFAULT_CONTEXT,
) -> str:
    """Like `unified_diff`, comparing only the ranges in `edits` (sorted, not overlapping).

    Falls back to comparing the whole texts when the edits do not account for the difference
    between them, so a wrong hint costs time, never correctness.
    """
    if old == new:
        return ""
    a, b = split_lines(old), split_lines(new)
    blocks = _blocks_from_edits(a, b, edits)
    if blocks is None:
        return _render(a, b, line_opcodes(a, b), old_label, new_label, context)
    return _render(a, b, _opcodes(blocks, len(a), len(b)), old_label, new_label, context)


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """How to turn `a` into `b`, as difflib-style opcodes covering both sequences."""
    matcher = _Matcher(a, b, _MIN_WORK + _WORK_PER_LINE * (len(a) + len(b)))
    matcher.match(0, len(a), 0, len(b))
    return _opcodes(matcher.blocks, len(a), len(b))


# -- matching ------------------------------------------------------------------------------------


class _Matcher:
    """Collects matching blocks of `a` and `b` within a budget of line comparisons."""

    def __init__(self, a: Sequence[str], b: Sequence[str], budget: int) -> None:
        self.a, self.b = a, b
        self.budget = budget
        self.blocks: list[_Match] = []

    def match(self, alo: int, ahi: int, blo: int, bhi: int) -> None:
        # An explicit stack: nesting follows the input, and Python's stack is shallow.
        stack = [(alo, ahi, blo, bhi)]
        while stack:
            alo, ahi, blo, bhi = stack.pop()
            alo, ahi, blo, bhi = self._trim(alo, ahi, blo, bhi)
            if alo == ahi or blo == bhi or self.budget <= 0:
                continue
            anchors = self._unique_anchors(alo, ahi, blo, bhi)
            if anchors:
                starts = (alo, blo)
                for i, j in anchors:
                    stack.append((starts[0], i, starts[1], j))
                    self.blocks.append((i, j, 1))
                    starts = (i + 1, j + 1)
                stack.append((starts[0], ahi, starts[1], bhi))
                continue
            self._myers(alo, ahi, blo, bhi)

    def _trim(self, alo: int, ahi: int, blo: int, bhi: int) -> tuple[int, int, int, int]:
        a, b = self.a, self.b
        start_a, start_b = alo, blo
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            alo, blo = alo + 1, blo + 1
        if alo > start_a:
            self.blocks.append((start_a, start_b, alo - start_a))
        end_a = ahi
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
        if ahi < end_a:
            self.blocks.append((ahi, bhi, end_a - ahi))
        self.budget -= (alo - start_a) + (end_a - ahi) + 1
        return alo, ahi, blo, bhi

    def _unique_anchors(self, alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
        """Lines occurring once in each range, the longest run of them in the same order."""
        self.budget -= (ahi - alo) + (bhi - blo)
        seen_a: dict[str, int] = {}
        for i in range(alo, ahi):
            line = self.a[i]
            seen_a[line] = -1 if line in seen_a else i
        seen_b: dict[str, int] = {}
        for j in range(blo, bhi):
            line = self.b[j]
            if seen_a.get(line, -1) >= 0:
                seen_b[line] = -1 if line in seen_b else j
        pairs = [(seen_a[line], j) for line, j in seen_b.items() if j >= 0]
        if not pairs:
            return []
        pairs.sort()
        return _longest_increasing(pairs)

    def _myers(self, alo: int, ahi: int, blo: int, bhi: int) -> None:
        """Myers' greedy search for the shortest edit script, abandoned when over budget."""
        a, b = self.a, self.b
        n, m = ahi - alo, bhi - blo
        offset = n + m + 1
        frontier = [0] * (2 * offset + 1)
        trace: list[list[int]] = []
        for d in range(n + m + 1):
            self.budget -= d + 1
            if self.budget <= 0:
                return  # the region stays unmatched: shown as removed and added
            trace.append(frontier[offset - d : offset + d + 1])
            for k in range(-d, d + 1, 2):
                if k == -d or (k != d and frontier[offset + k - 1] < frontier[offset + k + 1]):
                    x = frontier[offset + k + 1]
                else:
                    x = frontier[offset + k - 1] + 1
                y = x - k
                start = x
                while x < n and y < m and a[alo + x] == b[blo + y]:
                    x, y = x + 1, y + 1
                self.budget -= x - start
                frontier[offset + k] = x
                if x >= n and y >= m:
                    self._backtrack(trace, offset, d, alo, blo, n, m)
                    return

    def _backtrack(
        self, trace: list[list[int]], offset: int, d: int, alo: int, blo: int, n: int, m: int
    ) -> None:
        x, y = n, m
        for step in range(d, 0, -1):
            # The frontier before this step, diagonal k at index k + step.
            row = trace[step]
            k = x - y
            down = k == -step or (k != step and row[k - 1 + step] < row[k + 1 + step])
            prev_k = k + 1 if down else k - 1
            prev_x = row[prev_k + step]
            prev_y = prev_x - prev_k
            # The snake after the edit: x, y walked back to where the edit landed.
            start_x = prev_x if prev_k == k + 1 else prev_x + 1
            start_y = start_x - k
            if x > start_x:
                self.blocks.append((alo + start_x, blo + start_y, x - start_x))
            x, y = prev_x, prev_y
        if x > 0:
            self.blocks.append((alo, blo, x))


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` (sorted by first item) increasing in the second."""
    tails: list[int] = []  # the smallest second item ending a run of each length
    tail_index: list[int] = []
    previous = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        length = bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[length] = j
            tail_index[length] = index
        previous[index] = tail_index[length - 1] if length else -1
    run: list[tuple[int, int]] = []
    index = tail_index[-1]
    while index >= 0:
        run.append(pairs[index])
        index = previous[index]
    run.reverse()
    return run


def _blocks_from_edits(
    a: Sequence[str], b: Sequence[str], edits: Sequence[LineEdit]
) -> list[_Match] | None:
    """Matching blocks given where the edits are; None when they do not fit the texts."""
    blocks: list[_Match] = []
    matcher = _Matcher(a, b, _MIN_WORK + _WORK_PER_LINE * (len(a) + len(b)))
    i = j = 0
    for edit in edits:
        if edit.old_start < i or edit.old_start - i != edit.new_start - j:
            return None
        gap = edit.old_start - i
        if a[i : edit.old_start] != b[j : edit.new_start]:
            return None
        if gap:
            blocks.append((i, j, gap))
        i, j = edit.old_start + edit.old_count, edit.new_start + edit.new_count
        if i > len(a) or j > len(b):
            return None
        matcher.match(edit.old_start, i, edit.new_start, j)
    if len(a) - i != len(b) - j or a[i:] != b[j:]:
        return None
    if len(a) > i:
        blocks.append((i, j, len(a) - i))
    return blocks + matcher.blocks


def _opcodes(blocks: list[_Match], n: int, m: int) -> list[Opcode]:
    merged: list[_Match] = []
    for bi, bj, size in sorted(blocks):
        if size <= 0:
            continue
        if merged and merged[-1][0] + merged[-1][2] == bi and merged[-1][1] + merged[-1][2] == bj:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
        else:
            merged.append((bi, bj, size))
    codes: list[Opcode] = []
    i = j = 0
    for bi, bj, size in merged:
        if i < bi or j < bj:
            tag = "replace" if i < bi and j < bj else ("delete" if i < bi else "insert")
            codes.append((tag, i, bi, j, bj))
        codes.append(("equal", bi, bi + size, bj, bj + size))
        i, j = bi + size, bj + size
    if i < n or j < m:
        tag = "replace" if i < n and j < m else ("delete" if i < n else "insert")
        codes.append((tag, i, n, j, m))
    return codes


# -- rendering -----------------------------------------------------------------------------------


def _groups(codes: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """The opcodes cut into hunks with `context` equal lines around each change."""
    if not codes or (len(codes) == 1 and codes[0][0] == "equal"):
        return
    codes = list(codes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            yield group
            group = []
            i1, j1 = i2 - context, j2 - context
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    # An empty range names the line before it, as diff(1) and git do.
    first = start + 1 if length else start
    return f"{first},{length}"


def _emit(prefix: str, line: str, out: list[str]) -> None:
    if line.endswith("\n"):
        out.append(prefix + line)
    else:
        out.append(prefix + line + "\n")
        out.append(NO_NEWLINE_MARKER)


def _render(
    a: Sequence[str],
    b: Sequence[str],
    codes: list[Opcode],
    old_label: str,
    new_label: str,
    context: int,
) -> str:
    out: list[str] = []
    for group in _groups(codes, context):
        if not out:
            out.append(f"--- {old_label}\n")
            out.append(f"+++ {new_label}\n")
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in a[i1:i2]:
                    _emit(" ", line, out)
                continue
            for line in a[i1:i2]:
                _emit("-", line, out)
            for line in b[j1:j2]:
                _emit("+", line, out)
    return "".join(out)
