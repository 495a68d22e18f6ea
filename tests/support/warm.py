"""The per-user warm server in tests: a private runtime directory of the test's own, and the
server started in it stopped at the end (rather than lingering until it is idle)."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path


def stop_warm_server(runtime: Path) -> None:
    """End the servers whose logs are in `runtime` (each log names its pid when serving)."""
    for log in runtime.glob("codex-lsp/*.log"):
        for line in log.read_text().splitlines():
            if " serving " in line:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(line.split()[2]), signal.SIGTERM)


@contextlib.contextmanager
def warm_runtime() -> Iterator[Path]:
    """A short, private XDG_RUNTIME_DIR (socket paths are limited to 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="codex-run-") as path:
        try:
            yield Path(path)
        finally:
            stop_warm_server(Path(path))
