"""The EditorContext port: what only the editor knows, asked for while a turn runs.

A front door whose client is an editor that can answer (the language server, when the client
declares `experimental.codex.editorContext`) gives each session one; the `editor_*` tools
(`engine.editor_tools`) read through it. Without one, those tools are not offered. Files are
named by URI on the wire and by path here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from codex_lsp.protocol.editor import (
    DiagnosticsResult,
    OpenBuffersResult,
    ReadBufferResult,
    SelectionResult,
)


class EditorContextError(Exception):
    """The editor could not answer (an error, no answer in time, the connection gone)."""


class EditorContext(Protocol):
    async def open_buffers(self) -> OpenBuffersResult:
        """The files open in the editor."""
        ...

    async def read_buffer(self, path: Path) -> ReadBufferResult | None:
        """The text of the buffer showing `path`, unsaved changes included; None if none does."""
        ...

    async def selection(self) -> SelectionResult | None:
        """The focused file's selections and cursor; None when no file has the focus."""
        ...

    async def diagnostics(self, path: Path | None) -> DiagnosticsResult:
        """Every language server's diagnostics for `path`, or for every file when None."""
        ...


def uri_path(uri: str) -> Path | None:
    """The local path of a `file:` URI; None for any other kind of URI."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    return Path(unquote(parts.path))
