"""Server logs: stderr for the process, `window/logMessage` for the editor's output panel.

Only warnings and errors reach the editor. Secrets never do: the configured ones
(`store/secrets.py`) and anything shaped like an API key or a bearer token are masked before
a record is written anywhere, since a failing
`account/login/start` request carries the key in its params and pygls logs those.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from codex_lsp.store.secrets import Redactor

_SECRET_PATTERNS = (
    # "apiKey": "..." / api_key=... / Authorization: Bearer ... in JSON, reprs, headers
    re.compile(
        r"(?i)((?:api[_-]?key|access[_-]?token|authorization)['\"]?\s*[:=]\s*['\"]?"
        r"(?:bearer\s+)?)[^'\",}\s]+"
    ),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{8,}"),
)
MASK = "***"

# Messages pygls logs for conditions this server already answers on the wire.
_ANSWERED = ("Unable to deserialize message", "Failed to handle request %r, unknown method")


def redact(text: str) -> str:
    """`text` with the configured secrets and anything that looks like a credential masked."""
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    # Looked up, not imported: a cold `serve` answers `initialize` before it loads the config
    # (and pydantic with it), and until the config is loaded no secret is configured.
    loaded = sys.modules.get("codex_lsp.store.secrets")
    if loaded is None:
        return text
    configured = cast("Redactor", loaded.known())
    return configured.values(text)


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _ExpectedErrors(logging.Filter):
    """Drop pygls's tracebacks for errors that were sent to the client as JSON-RPC errors.

    An `ApiError` (unknown thread, invalid params) is the client's mistake, already answered;
    writing it to the editor's log as a traceback would only bury real problems. Unexpected
    exceptions reach pygls as themselves, not as `JsonRpcException`, and are kept.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("pygls"):
            return True
        # Imported here: the process's logging is set up before pygls is loaded.
        from pygls.exceptions import JsonRpcException

        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, JsonRpcException):
            return False  # raised on purpose, with a message meant for the client
        return not str(record.msg).startswith(_ANSWERED)


class EditorLogHandler(logging.Handler):
    """Forward records to the editor through `send(level, message)`.

    Sending may itself log (pygls logs a failed write); the per-thread guard keeps that from
    looping back here.
    """

    def __init__(self, send: Callable[[int, str], None], level: int = logging.WARNING) -> None:
        super().__init__(level)
        self._send = send
        self._busy = threading.local()
        self.setFormatter(RedactingFormatter("%(name)s: %(message)s"))
        self.addFilter(_ExpectedErrors())

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._busy, "active", False):
            return
        self._busy.active = True
        try:
            self._send(record.levelno, self.format(record))
        except Exception:
            pass  # the editor connection is gone; stderr still has the record
        finally:
            self._busy.active = False


def configure_process_logging() -> None:
    """stderr logging for the server process; `CODEX_LSP_LOG=debug` (or info) for more."""
    level_name = os.environ.get("CODEX_LSP_LOG", "warning").upper()
    level = getattr(logging, level_name, logging.WARNING)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_ExpectedErrors())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
