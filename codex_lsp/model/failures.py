"""Turn what a server says went wrong into a `ModelError` the user can act on.

Two sources: an HTTP error status with its body (before any SSE), and an error code inside the
stream (`response.failed`, `error` events). Both use the same codes, so one table serves both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from codex_lsp.model.errors import ModelError, quote_server_text, stream_disconnected
from codex_lsp.model.retry import parse_try_again

_OVERLOADED_CODES = frozenset({"server_is_overloaded", "slow_down"})
_QUOTA_CODES = frozenset({"insufficient_quota", "usage_limit_reached", "usage_not_included"})


def server_error_fields(body: Any) -> tuple[str, str | None, str | None]:
    """(message, code, type) from the error shapes servers use.

    OpenAI: `{"error": {"message", "type", "code"}}`; vLLM: `{"message", "type", "code"}` at the
    top; Ollama and others: `{"error": "text"}`; anything else: the raw text.
    """
    if isinstance(body, (str, bytes)):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        try:
            body = json.loads(text)
        except ValueError:
            return text.strip(), None, None
    if not isinstance(body, dict):
        return str(body), None, None
    error = body.get("error", body)
    if isinstance(error, str):
        return error, None, None
    if not isinstance(error, dict):
        return json.dumps(body), None, None
    message = error.get("message") or error.get("detail") or ""
    if not isinstance(message, str):
        message = json.dumps(message)
    code = error.get("code")
    kind = error.get("type")
    return (
        message,
        str(code) if code is not None else None,
        str(kind) if kind is not None else None,
    )


def error_for_code(
    code: str | None,
    message: str,
    *,
    kind: str | None = None,
    secrets: Iterable[str | None] = (),
    http_status: int | None = None,
) -> ModelError:
    """Map a server error code (from `response.failed`, an `error` event or an HTTP body)."""
    said = quote_server_text(message, secrets) if message else ""
    suffix = f" (server said: {said})" if said else ""
    if code == "context_length_exceeded":
        return ModelError(
            "The conversation no longer fits in the model's context window. "
            "Start a new thread, or compact this one, to continue." + suffix,
            codex_error_info="context_window_exceeded",
            http_status=http_status,
        )
    if code in _QUOTA_CODES or kind in _QUOTA_CODES:
        return ModelError(
            "You have hit your usage limit or quota for this model provider. "
            "Check your plan and billing, or wait for the limit to reset." + suffix,
            codex_error_info="usage_limit_exceeded",
            http_status=http_status,
        )
    if code == "cyber_policy":
        return ModelError(
            "The request was blocked by the provider's usage policy." + suffix,
            codex_error_info="cyber_policy",
            http_status=http_status,
        )
    if code == "invalid_prompt":
        return ModelError(
            "The model provider rejected the request as invalid." + suffix,
            codex_error_info="bad_request",
            http_status=http_status,
        )
    if code in _OVERLOADED_CODES:
        return ModelError(
            "The model server is overloaded. Try again in a little while." + suffix,
            codex_error_info="server_overloaded",
            http_status=http_status,
        )
    err = stream_disconnected(f"The model response failed: {said or code or 'no details given'}")
    err.retry_after_s = parse_try_again(message)
    err.http_status = http_status
    return err


def error_for_status(
    status: int,
    body: bytes,
    *,
    url: str,
    env_key: str | None,
    secrets: Iterable[str | None] = (),
) -> ModelError:
    """A fatal or retryable error for a non-2xx answer that was not retried (or ran out)."""
    message, code, kind = server_error_fields(body)
    said = quote_server_text(message, secrets) if message else ""
    suffix = f" Server said: {said}" if said else ""
    if status == 401:
        where = f"set {env_key} to a valid key" if env_key else "configure a valid API key"
        return ModelError(
            f"The model provider rejected the credentials (HTTP 401). Sign in again or {where}."
            + suffix,
            codex_error_info="unauthorized",
            http_status=status,
        )
    if status == 403:
        return ModelError(
            "The model provider refused access (HTTP 403). Check that your account or key may "
            "use this model." + suffix,
            codex_error_info="unauthorized",
            http_status=status,
        )
    if status == 404:
        return ModelError(
            f"The model endpoint {url} was not found (HTTP 404). Check the provider's base_url "
            "and the model name." + suffix,
            codex_error_info="bad_request",
            http_status=status,
        )
    if code or kind in _QUOTA_CODES:
        known = error_for_code(code, message, kind=kind, secrets=secrets, http_status=status)
        if not known.retryable:
            return known
    if status >= 500:
        return ModelError(
            f"The model server failed (HTTP {status})." + suffix,
            codex_error_info={"http_connection_failed": {"http_status_code": status}},
            retryable=True,
            http_status=status,
        )
    return ModelError(
        f"The model provider rejected the request (HTTP {status})." + suffix,
        codex_error_info="bad_request",
        http_status=status,
    )
