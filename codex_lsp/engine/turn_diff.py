"""The aggregated diff of every file a turn changed, against how it was before the turn."""

from __future__ import annotations

import difflib
from pathlib import Path


class TurnDiffTracker:
    def __init__(self) -> None:
        # Content before the turn first touched each path; None if it did not exist.
        self._baseline: dict[Path, str | None] = {}
        self._current: dict[Path, str | None] = {}

    def on_change(self, path: Path, before: str | None, after: str | None) -> None:
        self._baseline.setdefault(path, before)
        self._current[path] = after

    def unified_diff(self) -> str:
        chunks: list[str] = []
        for path in sorted(self._baseline):
            before, after = self._baseline[path], self._current.get(path)
            if before == after:
                continue
            chunks.extend(
                difflib.unified_diff(
                    (before or "").splitlines(keepends=True),
                    (after or "").splitlines(keepends=True),
                    fromfile=f"a/{path}" if before is not None else "/dev/null",
                    tofile=f"b/{path}" if after is not None else "/dev/null",
                )
            )
        return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)
