"""Run the real `codex-lsp` command as a user at a terminal would, and see what they see."""

from __future__ import annotations

import os
import subprocess
import sys
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
    )
