"""Cut a diff to a size budget at file boundaries, remembering what was left out.

A reviewer that sees half of every file reviews nothing well; one that sees whole files and
knows which others exist can say so, or read them itself. So whole per-file sections are kept
while they fit, the first one that does not is cut at a line boundary when enough room is
left, and every other file is listed as not shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

# A partial file is only worth showing when this much room is left for it.
MIN_PARTIAL_CHARS = 2_000
_HEADER = re.compile(r"^diff --git a/(.*?) b/(.*)$")


@dataclass(frozen=True)
class FittedDiff:
    text: str
    truncated: bool = False
    # The file whose diff stops partway, if any.
    partial_file: str | None = None
    # Changed files whose diff is not in `text` at all.
    omitted_files: list[str] = field(default_factory=list)


def fit_diff(
    diff: str, max_chars: int, *, all_files: list[str] | None = None, cut_tail: bool = False
) -> FittedDiff:
    """`diff` within `max_chars`.

    `all_files` lists every changed file when `diff` itself is incomplete (git was stopped
    early), so files never read still show up as omitted; `cut_tail` says the last section
    of `diff` ends wherever git was stopped.
    """
    if len(diff) <= max_chars and not cut_tail and all_files is None:
        return FittedDiff(diff)
    sections = _split(diff)
    kept: list[str] = []
    shown: list[str] = []
    partial: str | None = None
    used = 0
    for index, (name, text) in enumerate(sections):
        is_tail = cut_tail and index == len(sections) - 1
        if used + len(text) <= max_chars and not is_tail:
            kept.append(text)
            used += len(text)
            if name is not None:
                shown.append(name)
            continue
        room = max_chars - used
        if room >= MIN_PARTIAL_CHARS or (name is None and room > 0):
            piece = _cut_at_line(text, room)
            if piece:
                kept.append(piece)
                partial = name
        break
    seen = set(shown) | ({partial} if partial else set())
    listed = all_files if all_files is not None else [n for n, _ in sections if n is not None]
    omitted = _unique(name for name in listed if name not in seen)
    return FittedDiff(
        text="".join(kept),
        truncated=True,
        partial_file=partial,
        omitted_files=omitted,
    )


def _split(diff: str) -> list[tuple[str | None, str]]:
    """(file, text) per `diff --git` section; text before the first one has no file."""
    sections: list[tuple[str | None, str]] = []
    current: list[str] = []
    name: str | None = None
    for line in diff.splitlines(keepends=True):
        header = _HEADER.match(line.rstrip("\n"))
        if header is not None:
            if current:
                sections.append((name, "".join(current)))
            current, name = [], header.group(2)
        current.append(line)
    if current:
        sections.append((name, "".join(current)))
    return sections


def _cut_at_line(text: str, room: int) -> str:
    head = text[:room]
    end = head.rfind("\n")
    return head[: end + 1] if end >= 0 else ""


def _unique(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        if name not in seen:
            seen.add(name)
            out.append(name)
    return out
