"""Run the real `codex-lsp` command as a user at a terminal would, and see what they see."""

from __future__ import annotations

import os
import pty
import queue
import select
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

CLI = [sys.executable, "-m", "codex_lsp"]


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user whose `$CODEX_HOME` is `home`."""
    env = {**os.environ, "CODEX_HOME": str(home), **extra}
    # A test never opens a real browser: `true URL` stands in for one.
    env["BROWSER"] = "true"
    return env


def run_cli(
    home: Path,
    *args: str,
    stdin: str = "",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """`codex-lsp ARGS` to completion: its exit code, stdout and stderr."""
    return subprocess.run(
        [*CLI, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env if env is not None else cli_env(home),
        timeout=timeout,
        # No controlling terminal: an approval prompt cannot wait on the developer's.
        start_new_session=True,
    )


def run_on_a_terminal(home: Path, args: list[str], answer: str) -> tuple[int, str]:
    """Run `codex-lsp ARGS` with a terminal for stdin, stdout and stderr; type `answer` at the
    first approval prompt. The exit status and every byte the terminal received."""
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST  # no LF -> CR LF: a CR read is one the program wrote
    attrs[3] &= ~termios.ECHO  # the typed answer is not part of what the program wrote
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen(
        [*CLI, *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=cli_env(home, TERM="xterm"),
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    answered = False
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every writer has gone
                    break
                if not chunk:
                    break
                seen += chunk
                if not answered and b"[q]uit turn: " in seen:
                    os.write(master, answer.encode())
                    answered = True
            elif proc.poll() is not None:
                break
        status = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return status, seen.decode("utf-8", errors="surrogateescape")


class StderrLines:
    """Lines from a running process's stderr, with a deadline on each wait."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self._lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []

        def pump() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                self._lines.put(line)

        self._thread = threading.Thread(target=pump, daemon=True)
        self._thread.start()

    def until(self, marker: str, timeout: float = 30) -> str:
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no {marker!r} on stderr; saw {self.seen!r}") from None
            self.seen.append(line)
            if marker in line:
                return line

    def rest(self) -> str:
        """Everything, once the process has closed its stderr."""
        self._thread.join(timeout=30)
        while not self._lines.empty():
            self.seen.append(self._lines.get())
        return "".join(self.seen)
