"""The one exception the model layer raises, and how its messages stay free of secrets.

`ModelError.retryable` tells the engine whether re-running the whole sampling request can help
(the turn-level retry of §2.5); `retry_after_s` is the wait the server asked for, when it said.
`codex_error_info` uses the core protocol's `CodexErrorInfo` wire form so the engine can put it
straight into an `error` / `stream_error` event.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from codex_lsp.store.secrets import Redactor

CodexErrorInfo = str | dict[str, Any]

# Longest server-provided text we quote in an error; error pages can be whole HTML documents.
_MAX_QUOTED = 500


class ModelError(Exception):
    """A model request failed. `str(err)` is a message fit to show the user as is."""

    def __init__(
        self,
        message: str,
        *,
        codex_error_info: CodexErrorInfo = "other",
        retryable: bool = False,
        retry_after_s: float | None = None,
        http_status: int | None = None,
        requests: int = 1,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.codex_error_info = codex_error_info
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.http_status = http_status
        # How many HTTP requests this failure took, retries included.
        self.requests = requests

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return (
            f"ModelError({self.message!r}, codex_error_info={self.codex_error_info!r}, "
            f"retryable={self.retryable}, retry_after_s={self.retry_after_s})"
        )


def stream_disconnected(message: str) -> ModelError:
    """A retryable failure after the response started: re-running the request may succeed."""
    return ModelError(
        message,
        codex_error_info={"response_stream_disconnected": {"http_status_code": None}},
        retryable=True,
    )


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with known secrets and anything shaped like a credential masked.

    Servers do echo keys back (e.g. "Incorrect API key provided: sk-..."), and error messages
    end up in editor notifications, logs and rollouts.
    """
    return Redactor(secrets).text(text)


def quote_server_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Server-provided text, shortened and redacted, for inclusion in a message."""
    text = " ".join(text.split())
    if len(text) > _MAX_QUOTED:
        text = text[:_MAX_QUOTED] + "..."
    return redact(text, secrets)
