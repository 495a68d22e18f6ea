"""Exceptions raised while parsing, verifying and writing an apply_patch patch.

Every failure is a `PatchApplyError`. The engine reports verification failures to the model as
`apply_patch verification failed: <err>`; `model_message` builds that text so callers never
have to know which subclass they caught.
"""

from __future__ import annotations

VERIFICATION_PREFIX = "apply_patch verification failed: "


class PatchApplyError(Exception):
    """A patch could not be applied; nothing was written.

    `reason` is the bare cause (for instance `Failed to find context 'x' in a.py`). When the
    failure belongs to one file operation, `hunk` (1-based position in the patch), `path` (as
    written in the patch) and, for updates, `chunk` (1-based) say where, and the rendered
    message starts with that location.
    """

    def __init__(
        self,
        reason: str,
        *,
        hunk: int | None = None,
        path: str | None = None,
        chunk: int | None = None,
        header: str | None = None,
    ) -> None:
        self.reason = reason
        self.hunk = hunk
        self.path = path
        self.chunk = chunk
        self.header = header
        super().__init__(self._render())

    def _render(self) -> str:
        if self.hunk is None:
            return self.reason
        where = f"hunk {self.hunk}"
        if self.header is not None:
            where += f" ({self.header})"
        if self.chunk is not None:
            where += f", chunk {self.chunk}"
        return f"{where}: {self.reason}"

    @property
    def model_message(self) -> str:
        """The text the model sees for this failure."""
        return f"{VERIFICATION_PREFIX}{self}"


class PatchParseError(PatchApplyError):
    """The patch text does not follow the apply_patch grammar.

    The message is exactly the parser's own (`invalid patch: ...` or
    `invalid hunk at line N, ...`): the line number already says where.
    """

    def __init__(self, message: str, *, line_number: int | None = None) -> None:
        self.line_number = line_number
        super().__init__(message)


class PatchWriteError(PatchApplyError):
    """Verification passed but writing to the workspace failed.

    Writers that support it roll back first, so `rolled_back` tells whether the workspace is
    as it was before the patch.
    """

    def __init__(self, reason: str, *, rolled_back: bool, path: str | None = None) -> None:
        self.rolled_back = rolled_back
        super().__init__(reason, path=path)

    @property
    def model_message(self) -> str:
        # The patch was valid, so "verification failed" would mislead the model into rewriting it.
        return str(self)
