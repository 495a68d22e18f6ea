"""The recent log of this server process, kept in memory for `feedback/save`.

A bounded handler on the root logger keeps the last records (at whatever level the process
logs: warnings by default, more with `CODEX_LSP_LOG=info` or `debug`), so a bug report can
carry what the server said without the server ever writing a log file of its own.
"""

from __future__ import annotations

import logging
import threading
from collections import deque

MAX_RECORDS = 2000
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class RecentLog(logging.Handler):
    def __init__(self, capacity: int = MAX_RECORDS) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(_FORMAT))
        self._lines: deque[str] = deque(maxlen=capacity)
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # a record that cannot be formatted is not worth a crash
            return
        with self._guard:
            self._lines.append(line)

    def text(self) -> str:
        with self._guard:
            return "\n".join(self._lines) + ("\n" if self._lines else "")


_installed: RecentLog | None = None
_install_guard = threading.Lock()


def recent_log() -> RecentLog:
    """The process's recent-log handler, attached to the root logger on first use."""
    global _installed
    with _install_guard:
        if _installed is None:
            _installed = RecentLog()
            logging.getLogger().addHandler(_installed)
        return _installed
