"""What `ExecProcess` starts and how: the spawn spec, the terminal size, the child's set-up
between fork and exec, and the exit code a finished process reports."""

from __future__ import annotations

import fcntl
import struct
import termios
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codex_lsp.sandbox import block_stop_now

# How much output is kept, per buffer, whatever a process prints (Codex keeps 1 MiB).
OUTPUT_RETAINED_BYTES = 1024 * 1024
# Shells report death by signal N as 128 + N; so do we.
SIGNAL_EXIT_BASE = 128


@dataclass(frozen=True, slots=True)
class TerminalSize:
    rows: int
    cols: int


DEFAULT_TERMINAL_SIZE = TerminalSize(rows=24, cols=80)


@dataclass(frozen=True, slots=True)
class SpawnSpec:
    """What to start. `argv` runs as given: wrap it for the sandbox before it gets here.

    `stdin`: `"none"` reads `/dev/null`; `"pipe"` keeps a pipe open for `write`. A `tty`
    process always has its terminal as stdin. `retained_bytes` caps each kept transcript.
    """

    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    tty: bool = False
    size: TerminalSize = DEFAULT_TERMINAL_SIZE
    stdin: Literal["none", "pipe"] = "none"
    retained_bytes: int = OUTPUT_RETAINED_BYTES
    # `argv` runs the sandbox launcher (`wrap_command`'s argv), which `terminate` asks to
    # end the command's whole tree.
    sandboxed: bool = False
    # Descriptors the child inherits: the sandbox launcher's (`PreparedCommand.pass_fds`).
    pass_fds: tuple[int, ...] = ()


class ProcessError(RuntimeError):
    """The process cannot do what was asked (start, take input, resize)."""


class StdinClosedError(ProcessError):
    """The process has no stdin to write to: it was started without one, or it was closed."""


def set_winsize(fd: int, size: TerminalSize) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size.rows, size.cols, 0, 0))


def _take_controlling_terminal() -> None:  # pragma: no cover - runs in the forked child
    # The child is a session leader by now (start_new_session); its stdin is the PTY.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _start_launcher_on_terminal() -> None:  # pragma: no cover - runs in the forked child
    _take_controlling_terminal()
    block_stop_now()


def child_setup(spec: SpawnSpec) -> Callable[[], None] | None:
    """What the child does between fork and exec, if anything."""
    if spec.sandboxed:
        return _start_launcher_on_terminal if spec.tty else block_stop_now
    return _take_controlling_terminal if spec.tty else None


def exit_code(returncode: int | None) -> int | None:
    if returncode is None:
        return None
    if returncode < 0:
        return SIGNAL_EXIT_BASE - returncode
    return returncode
