"""Escape 5: other sessions' terminals.

Under `/dev/pts` a sandboxed command could open any terminal of the same user: it wrote
a fake prompt into one and read what was typed into it. A command sees only its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.helpers import PY, run

PROBE = r"""
import os, sys
name = sys.argv[1]
try:
    fd = os.open(name, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)
except OSError as exc:
    print("open refused:", exc)
    raise SystemExit(0)
os.write(fd, b"FAKE PROMPT $ ")
try:
    print("read:", os.read(fd, 100))
except BlockingIOError:
    print("read: nothing")
"""


@pytest.fixture
def terminal() -> Iterator[tuple[int, str]]:
    """Another session's terminal, with something typed into it and not yet read."""
    master, slave = os.openpty()
    name = os.ttyname(slave)
    os.write(master, b"typed-secret\n")
    os.set_blocking(master, False)
    yield master, name
    os.close(master)
    os.close(slave)


def _shown_on(master: int) -> bytes:
    try:
        return os.read(master, 1000)
    except (BlockingIOError, OSError):
        return b""


def test_other_terminals_cannot_be_opened(ws: Path, terminal: tuple[int, str], mode: str) -> None:
    master, name = terminal
    result = run([PY, "-c", PROBE, name], ws, mode)
    assert "open refused" in result.output, result.output
    assert "typed-secret" not in result.output
    assert b"FAKE PROMPT" not in _shown_on(master)


def test_the_command_has_a_devpts_of_its_own(ws: Path, terminal: tuple[int, str]) -> None:
    _master, name = terminal
    result = run(
        "ls /dev/pts; python3 -c 'import os, pty; m, s = os.openpty(); print(os.ttyname(s))'",
        ws,
    )
    assert result.code == 0, result.output
    listed = result.output.split()
    assert os.path.basename(name) not in listed[: listed.index("ptmx") + 1]
    # Pseudo-terminals made inside come from the command's own instance.
    assert "/dev/pts/0" in result.output
