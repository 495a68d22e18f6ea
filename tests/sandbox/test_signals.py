"""Escape 3: signals to processes outside the command's own tree.

A sandboxed command killed an unrelated process of the same user and the engine itself
(`kill -9 $PPID`). Both must survive; signals inside the command's own tree still work.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.helpers import wrap

# Stands in for the engine: it runs the wrapped command as its child and reports its status.
# Passes on the launcher's descriptors, as the engine does.
ENGINE = (
    "import subprocess, sys; "
    "print('engine survived', subprocess.call(sys.argv[1:], close_fds=False))"
)


@pytest.fixture
def victim() -> Iterator[subprocess.Popen[bytes]]:
    """An unrelated process of the same user."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    proc.kill()
    proc.wait()


def test_signals_outside_the_tree_are_refused(
    ws: Path, victim: subprocess.Popen[bytes], mode: str
) -> None:
    script = (
        f"kill -9 {victim.pid}; echo victim=$?; kill -9 $PPID; echo parent=$?; "
        "sleep 30 & kill -TERM $! && wait $!; echo own-child=$?"
    )
    with wrap(["bash", "-c", script], ws, mode) as wrapped:
        engine = subprocess.run(
            [sys.executable, "-c", ENGINE, *wrapped.argv],
            env=wrapped.env,
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=120,
            pass_fds=wrapped.pass_fds,
        )
    output = engine.stdout + engine.stderr
    assert victim.poll() is None, output
    assert engine.returncode == 0, output
    assert "engine survived 0" in output
    assert "victim=1" in output
    # The command's own children are its to signal: 128 + SIGTERM.
    assert "own-child=143" in output
