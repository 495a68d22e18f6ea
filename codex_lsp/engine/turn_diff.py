"""The aggregated diff of every file a turn changed, against how it was before the turn, in
git's format (`diff --git`, repository-relative paths, blob ids: see `git_diff`).

Each file's diff is rendered once per change to that file and kept, so the turn diff sent after
every patch costs only the files that patch touched. `unified_diff` is safe to run on a worker
thread while the turn goes on: it reads a snapshot of the tracked states.
"""

from __future__ import annotations

from pathlib import Path

from codex_lsp.engine.git_diff import display_path, git_file_diff


class TurnDiffTracker:
    def __init__(self) -> None:
        # Content before the turn first touched each path; None if it did not exist.
        self._baseline: dict[Path, str | None] = {}
        self._current: dict[Path, str | None] = {}
        # path -> (baseline, current, their diff), reused while both are the same objects.
        self._rendered: dict[Path, tuple[str | None, str | None, str]] = {}

    def on_change(self, path: Path, before: str | None, after: str | None) -> None:
        self._baseline.setdefault(path, before)
        self._current[path] = after

    def unified_diff(self) -> str:
        states = [(path, self._baseline[path], self._current.get(path)) for path in self._baseline]
        chunks: list[str] = []
        for path, before, after in sorted(states, key=lambda state: display_path(state[0])):
            if before == after:
                continue
            cached = self._rendered.get(path)
            if cached is not None and cached[0] is before and cached[1] is after:
                chunks.append(cached[2])
                continue
            diff = git_file_diff(path, before, after)
            self._rendered[path] = (before, after, diff)
            chunks.append(diff)
        return "".join(chunks)
