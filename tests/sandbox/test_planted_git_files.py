"""A `.git` pointer file, or the `commondir` it leads to, planted as a FIFO or a device.

The engine and the launcher read both to find the repository's git directories before
every command: a FIFO there must be passed over at once, not waited on.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest

from tests.sandbox.helpers import ISOLATED, Result, run


def _run_within(seconds: float, ws: Path, mode: str, fifos: list[Path]) -> Result:
    done: list[Result] = []
    worker = threading.Thread(
        target=lambda: done.append(run("echo ran", ws, mode, ISOLATED, timeout=30))
    )
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        # Release the reader stuck on the FIFO, so the test ends.
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
        pytest.fail(f"the sandbox waited on a FIFO planted at {fifos}")
    return done[0]


@pytest.mark.parametrize("where", ["commondir", "gitdir-file", "nested-commondir"])
def test_a_fifo_in_a_git_pointer_chain_is_passed_over(ws: Path, mode: str, where: str) -> None:
    gitdir = ws.parent / "elsewhere-gitdir"
    gitdir.mkdir()
    if where == "commondir":
        # The cwd is a worktree whose git directory's `commondir` is a FIFO.
        os.rename(ws / ".git", ws.parent / "real-git")
        (ws / ".git").write_text(f"gitdir: {gitdir}\n")
        fifos = [gitdir / "commondir"]
    elif where == "gitdir-file":
        # A nested checkout's `.git` pointer is a FIFO.
        (ws / "vendor").mkdir()
        fifos = [ws / "vendor" / ".git"]
    else:
        (ws / "vendor").mkdir()
        (ws / "vendor" / ".git").write_text(f"gitdir: {gitdir}\n")
        fifos = [gitdir / "commondir"]
    for fifo in fifos:
        os.mkfifo(fifo)
    result = _run_within(20, ws, mode, fifos)
    assert "ran" in result.output, result.output
