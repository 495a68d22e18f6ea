"""Which recorded session a command means: by id, by name, or the most recent one.

`exec resume`, `resume` and `fork` take a session id (a UUID), a thread name, or `--last`:
the newest session started in the working directory (in any directory with `--all`).
"""

from __future__ import annotations

from pathlib import Path

from codex_lsp.store.rollout_files import find_rollout, is_thread_id
from codex_lsp.store.thread_index import load_thread_names
from codex_lsp.store.threads import list_threads


class SessionNotFound(Exception):
    pass


def find_session(
    home: Path, wanted: str | None, *, last: bool, cwd: Path, any_folder: bool = False
) -> Path:
    """The rollout file of the session the user named; `SessionNotFound` says why not."""
    if wanted is not None:
        if is_thread_id(wanted):
            path = find_rollout(home, wanted.lower())
            if path is not None:
                return path
        named = [tid for tid, name in load_thread_names(home).items() if name == wanted]
        for thread_id in named:
            path = find_rollout(home, thread_id)
            if path is not None:
                return path
        raise SessionNotFound(f"no session {wanted!r} in {home / 'sessions'}")
    if not last:
        raise SessionNotFound("name the session to resume (its id or name), or pass --last")
    folder = None if any_folder else str(cwd.resolve())
    page = list_threads(home, limit=1, sort_key="updated_at", cwd=folder)
    if not page.items:
        where = "" if any_folder else f" started in {cwd} (--all looks in every folder)"
        raise SessionNotFound(f"no recorded session{where}")
    return page.items[0].path
