"""Parse apply_patch text into file hunks.

The parser is lenient the way the Codex engine is: the text is trimmed, a shell heredoc wrapper
(`<<EOF` ... `EOF`) is peeled off, file headers are recognised after trimming, the first chunk of
an update may omit its `@@` marker, and blank lines between hunks and chunks are skipped. Error
messages match the engine's word for word, because models learn to fix patches from them.

One extension over the engine: consecutive `@@ <context>` markers at the start of a chunk are
nested anchors (`@@ class Foo` then `@@ def bar():`), each searched after the previous one, which
is what the tool description promises the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import PatchParseError
from .grammar import (
    APPLY_PATCH_FREEFORM_DESCRIPTION,
    APPLY_PATCH_FUNCTION_DESCRIPTION,
    APPLY_PATCH_LARK_GRAMMAR,
)

__all__ = [
    "APPLY_PATCH_FREEFORM_DESCRIPTION",
    "APPLY_PATCH_FUNCTION_DESCRIPTION",
    "APPLY_PATCH_LARK_GRAMMAR",
    "AddFile",
    "DeleteFile",
    "Hunk",
    "UpdateChunk",
    "UpdateFile",
    "parse_patch",
]

BEGIN_PATCH = "*** Begin Patch"
END_PATCH = "*** End Patch"
ADD_FILE = "*** Add File: "
DELETE_FILE = "*** Delete File: "
UPDATE_FILE = "*** Update File: "
MOVE_TO = "*** Move to: "
END_OF_FILE = "*** End of File"
BARE_CONTEXT = "@@"
CONTEXT_PREFIX = "@@ "

_HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')


@dataclass(frozen=True)
class UpdateChunk:
    """One `@@` section of an Update File hunk.

    `change_context` is the innermost anchor line; `outer_contexts` holds the anchors of nested
    markers that precede it, outermost first.
    """

    change_context: str | None
    old_lines: list[str]
    new_lines: list[str]
    is_end_of_file: bool = False
    outer_contexts: tuple[str, ...] = ()

    @property
    def contexts(self) -> tuple[str, ...]:
        """Every anchor of the chunk, outermost first."""
        if self.change_context is None:
            return self.outer_contexts
        return (*self.outer_contexts, self.change_context)


@dataclass(frozen=True)
class AddFile:
    """Create (or overwrite) `path` with `contents`."""

    path: str
    contents: str

    @property
    def header(self) -> str:
        return f"Add File: {self.path}"


@dataclass(frozen=True)
class DeleteFile:
    """Remove the file at `path`."""

    path: str

    @property
    def header(self) -> str:
        return f"Delete File: {self.path}"


@dataclass(frozen=True)
class UpdateFile:
    """Edit `path` chunk by chunk, then optionally move it to `move_path`."""

    path: str
    move_path: str | None
    chunks: list[UpdateChunk] = field(default_factory=list)

    @property
    def header(self) -> str:
        return f"Update File: {self.path}"


Hunk = AddFile | DeleteFile | UpdateFile


def _hunk_error(message: str, line_number: int) -> PatchParseError:
    text = f"invalid hunk at line {line_number}, {message}"
    return PatchParseError(text, line_number=line_number)


def _split_lines(text: str) -> list[str]:
    # Split on "\n" only: str.splitlines would also break on form feeds and U+2028, which are
    # ordinary characters inside source lines. A trailing "\r" is a CRLF artefact, not content.
    return [line.removesuffix("\r") for line in text.split("\n")]


def _boundary_error(lines: list[str]) -> str | None:
    if not lines or lines[0].strip() != BEGIN_PATCH:
        return "The first line of the patch must be '*** Begin Patch'"
    if len(lines) < 2 or lines[-1].strip() != END_PATCH:
        return "The last line of the patch must be '*** End Patch'"
    return None


def _body_lines(text: str) -> list[str]:
    """Return the lines between the Begin and End markers, unwrapping a heredoc if needed."""
    lines = _split_lines(text.strip())
    error = _boundary_error(lines)
    if error is None:
        return lines[1:-1]
    # Models sometimes pass the whole `<<'EOF' ... EOF` shell form as the patch text.
    if len(lines) >= 4 and lines[0].strip() in _HEREDOC_OPENERS and lines[-1].endswith("EOF"):
        inner = lines[1:-1]
        if _boundary_error(inner) is None:
            return inner[1:-1]
    raise PatchParseError(f"invalid patch: {error}")


def parse_patch(text: str) -> list[Hunk]:
    """Parse patch text into hunks, in patch order.

    Raises `PatchParseError`. An envelope with no hunks parses to an empty list; refusing it is
    the applier's job (`No files were modified.`).
    """
    body = _body_lines(text)
    hunks: list[Hunk] = []
    index = 0
    while index < len(body):
        if not body[index].strip():
            index += 1
            continue
        hunk, consumed = _parse_hunk(body, index)
        hunks.append(hunk)
        index += consumed
    return hunks


def _line_number(index: int) -> int:
    # Body index 0 is the line after "*** Begin Patch", i.e. line 2 of the patch.
    return index + 2


def _parse_hunk(body: list[str], start: int) -> tuple[Hunk, int]:
    header = body[start].strip()
    if header.startswith(ADD_FILE):
        index = start + 1
        contents: list[str] = []
        while index < len(body) and body[index].startswith("+"):
            contents.append(body[index][1:] + "\n")
            index += 1
        return AddFile(header[len(ADD_FILE) :], "".join(contents)), index - start

    if header.startswith(DELETE_FILE):
        return DeleteFile(header[len(DELETE_FILE) :]), 1

    if header.startswith(UPDATE_FILE):
        return _parse_update(body, start, header[len(UPDATE_FILE) :])

    raise _hunk_error(
        f"'{header}' is not a valid hunk header. Valid hunk headers: '*** Add File: {{path}}', "
        "'*** Delete File: {path}', '*** Update File: {path}'",
        _line_number(start),
    )


def _parse_update(body: list[str], start: int, path: str) -> tuple[UpdateFile, int]:
    index = start + 1
    move_path: str | None = None
    if index < len(body) and body[index].strip().startswith(MOVE_TO):
        move_path = body[index].strip()[len(MOVE_TO) :]
        index += 1

    chunks: list[UpdateChunk] = []
    while index < len(body):
        line = body[index]
        if not line.strip():
            index += 1
            continue
        # Any "*..." line is the next file header (or garbage the top level will report).
        if line.startswith("*"):
            break
        chunk, consumed = _parse_chunk(body, index, allow_missing_context=not chunks)
        chunks.append(chunk)
        index += consumed

    if not chunks:
        raise _hunk_error(f"Update file hunk for path '{path}' is empty", _line_number(start))
    return UpdateFile(path, move_path, chunks), index - start


def _context_of(line: str) -> tuple[bool, str | None]:
    """Classify a chunk marker: (is_marker, anchor text or None for a bare `@@`)."""
    if line.rstrip() == BARE_CONTEXT:
        return True, None
    if line.startswith(CONTEXT_PREFIX):
        anchor = line[len(CONTEXT_PREFIX) :]
        # "@@   " carries no anchor; searching for a blank line would match almost anywhere.
        return True, anchor if anchor.strip() else None
    return False, None


def _parse_chunk(
    body: list[str], start: int, *, allow_missing_context: bool
) -> tuple[UpdateChunk, int]:
    index = start
    anchors: list[str] = []
    is_marker, anchor = _context_of(body[index])
    if is_marker:
        index += 1
        if anchor is not None:
            anchors.append(anchor)
            # Further "@@ <anchor>" lines right after an anchored marker narrow the search.
            while index < len(body) and body[index].startswith(CONTEXT_PREFIX):
                _, nested = _context_of(body[index])
                if nested is None:
                    break
                anchors.append(nested)
                index += 1
    elif not allow_missing_context:
        raise _hunk_error(
            f"Expected update hunk to start with a @@ context marker, got: '{body[index]}'",
            _line_number(index),
        )

    old_lines: list[str] = []
    new_lines: list[str] = []
    is_end_of_file = False
    parsed = 0
    while index < len(body):
        line = body[index]
        if line.rstrip() == END_OF_FILE:
            if parsed == 0:
                raise _hunk_error("Update hunk does not contain any lines", _line_number(index))
            is_end_of_file = True
            index += 1
            break
        if line == "":
            # Editors and models drop the lone space of an empty context line.
            old_lines.append("")
            new_lines.append("")
        elif line[0] == " ":
            old_lines.append(line[1:])
            new_lines.append(line[1:])
        elif line[0] == "-":
            old_lines.append(line[1:])
        elif line[0] == "+":
            new_lines.append(line[1:])
        else:
            if parsed == 0:
                raise _hunk_error(
                    f"Unexpected line found in update hunk: '{line}'. Every line should start "
                    "with ' ' (context line), '+' (added line), or '-' (removed line)",
                    _line_number(index),
                )
            break
        parsed += 1
        index += 1

    if parsed == 0:
        raise _hunk_error("Update hunk does not contain any lines", _line_number(index))

    chunk = UpdateChunk(
        change_context=anchors[-1] if anchors else None,
        old_lines=old_lines,
        new_lines=new_lines,
        is_end_of_file=is_end_of_file,
        outer_contexts=tuple(anchors[:-1]),
    )
    return chunk, index - start
