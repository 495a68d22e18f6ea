"""Compute a file's new text from the chunks of an Update File hunk.

All chunks are located first, top to bottom, each search starting where the previous chunk
ended; only then are the replacements spliced in, bottom to top, so earlier splices never shift
the positions found for later ones. Nothing here touches the filesystem.
"""

from __future__ import annotations

from collections.abc import Sequence

from .diff import LineEdit
from .parser import UpdateChunk
from .seek import seek_sequence


class ChunkMismatch(ValueError):
    """A chunk's anchor or old lines are not in the file. `chunk` is 1-based."""

    def __init__(self, reason: str, chunk: int) -> None:
        self.reason = reason
        self.chunk = chunk
        super().__init__(reason)


_Replacement = tuple[int, int, list[str]]  # (start line, lines removed, lines inserted)


def _uses_crlf(text: str) -> bool:
    newlines = text.count("\n")
    return newlines > 0 and text.count("\r\n") == newlines


def apply_chunks(original: str, chunks: Sequence[UpdateChunk], path_label: str) -> str:
    """Return `original` with `chunks` applied. Raises `ChunkMismatch`.

    `path_label` names the file in error messages. The result always ends with a newline, and
    a file whose lines all end in CRLF keeps CRLF on the lines the patch adds.
    """
    return apply_chunks_with_edits(original, chunks, path_label)[0]


def apply_chunks_with_edits(
    original: str, chunks: Sequence[UpdateChunk], path_label: str
) -> tuple[str, tuple[LineEdit, ...] | None]:
    """`apply_chunks`, with the line ranges it replaced: every line outside them is unchanged,
    so a diff need only compare those. None when the ranges alone do not tell the whole change
    (a last line that gains its newline, chunks landing at the same line)."""
    crlf = _uses_crlf(original)
    text = original.replace("\r\n", "\n") if crlf else original
    lines = text.split("\n")
    # A trailing newline terminates the last line; it does not start an empty one.
    if lines[-1] == "":
        lines.pop()

    replacements = _locate(lines, chunks, path_label)
    result = list(lines)
    for start, removed, inserted in sorted(replacements, key=lambda item: item[0], reverse=True):
        result[start : start + removed] = inserted

    if not result or result[-1] != "":
        result.append("")
    joined = "\n".join(result)
    edits = _line_edits(replacements) if not original or original.endswith("\n") else None
    return (joined.replace("\n", "\r\n") if crlf else joined), edits


def _line_edits(replacements: list[_Replacement]) -> tuple[LineEdit, ...] | None:
    edits: list[LineEdit] = []
    shift = 0
    end = -1
    for start, removed, inserted in sorted(replacements, key=lambda item: item[0]):
        if start <= end:
            return None
        edits.append(LineEdit(start, removed, start + shift, len(inserted)))
        shift += len(inserted) - removed
        end = start + max(removed, 1) - 1
    return tuple(edits)


def _locate(lines: list[str], chunks: Sequence[UpdateChunk], path_label: str) -> list[_Replacement]:
    replacements: list[_Replacement] = []
    line_index = 0
    for number, chunk in enumerate(chunks, start=1):
        anchored = False
        for anchor in chunk.contexts:
            found = seek_sequence(lines, [anchor], line_index)
            if found is None:
                raise ChunkMismatch(f"Failed to find context '{anchor}' in {path_label}", number)
            line_index = found + 1
            anchored = True

        if not chunk.old_lines:
            replacements.append((_insertion_point(lines, line_index, anchored), 0, chunk.new_lines))
            continue

        pattern: list[str] = chunk.old_lines
        new_lines: list[str] = chunk.new_lines
        found = seek_sequence(lines, pattern, line_index, chunk.is_end_of_file)
        if found is None and pattern[-1] == "":
            # A blank line between chunks is parsed as empty context; the file may not have it.
            pattern = pattern[:-1]
            if new_lines and new_lines[-1] == "":
                new_lines = new_lines[:-1]
            found = seek_sequence(lines, pattern, line_index, chunk.is_end_of_file)
        if found is None:
            expected = "\n".join(chunk.old_lines)
            raise ChunkMismatch(
                f"Failed to find expected lines in {path_label}:\n{expected}", number
            )
        replacements.append((found, len(pattern), new_lines))
        line_index = found + len(pattern)
    return replacements


def _insertion_point(lines: list[str], line_index: int, anchored: bool) -> int:
    # With an anchor, the model points at where the new lines go: right below it.
    if anchored:
        return line_index
    # Without one, a pure addition goes at the end, above a final blank line if there is one.
    if lines and lines[-1] == "":
        return len(lines) - 1
    return len(lines)
