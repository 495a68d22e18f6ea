"""The aggregated diff of every file a turn changed, against how it was before the turn, in
git's format (`diff --git`, repository-relative paths, blob ids: see `git_diff`)."""

from __future__ import annotations

from pathlib import Path

from codex_lsp.engine.git_diff import display_path, git_file_diff


class TurnDiffTracker:
    def __init__(self) -> None:
        # Content before the turn first touched each path; None if it did not exist.
        self._baseline: dict[Path, str | None] = {}
        self._current: dict[Path, str | None] = {}

    def on_change(self, path: Path, before: str | None, after: str | None) -> None:
        self._baseline.setdefault(path, before)
        self._current[path] = after

    def unified_diff(self) -> str:
        paths = sorted(self._baseline, key=display_path)
        return "".join(
            git_file_diff(path, self._baseline[path], self._current.get(path)) for path in paths
        )
