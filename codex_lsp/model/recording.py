"""Model streams recorded to a file, for replaying a thread offline.

A recording is JSONL: a header (`{"type": "recording", "version", "wire_api", "model",
"retries"}`), then one `exchange` per HTTP attempt, in order:

    {"type": "exchange",
     "request": {"method", "path", "headers", "body"},
     "response": {"status", "headers", "body"}  |  {"error": "<why no answer came>"}}

`path` is relative to the provider's base URL (`/responses`), `body` the request's JSON and the
response's raw text (the SSE stream as it arrived, up to where the client stopped reading).

Secrets never reach the file: credential headers are dropped, and every secret the provider's
config holds or names (the API key, header values, static or from the environment, query
values, base_url's password) and anything shaped like a credential is replaced wherever it
appears, in headers, bodies and error text alike (`store/secrets.py`).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from codex_lsp.store.secrets import Redactor

VERSION = 1
REDACTED = "[REDACTED]"
# Headers that carry credentials or identify the account: never written.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "cookie",
        "set-cookie",
        "chatgpt-account-id",
        "openai-organization",
        "openai-project",
    }
)


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    return Redactor(secrets).text(text)


def _headers(headers: Mapping[str, str], secrets: Iterable[str | None]) -> dict[str, str]:
    kept = {k.lower(): v for k, v in headers.items() if k.lower() not in SECRET_HEADERS}
    return {k: scrub(v, secrets) for k, v in kept.items()}


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass(frozen=True)
class RecordedResponse:
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    # Set when no response came (the connection failed); the replay drops the connection.
    error: str | None = None


@dataclass(frozen=True)
class Exchange:
    request: RecordedRequest
    response: RecordedResponse


@dataclass(frozen=True)
class Recording:
    header: dict[str, Any]
    exchanges: list[Exchange]


class RecordingError(ValueError):
    """The file is not a model-stream recording this version can read."""


class StreamRecorder:
    """Appends the exchanges of one thread to its recording; safe to share between tasks."""

    def __init__(self, path: Path, header: Mapping[str, Any]) -> None:
        self.path = path
        self._header = dict(header)
        self._lock = threading.Lock()
        self._started = path.exists() and path.stat().st_size > 0

    def _write(self, entry: Mapping[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            if not self._started:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                header = {"type": "recording", "version": VERSION, **self._header}
                line = json.dumps(header, separators=(",", ":")) + "\n" + line
                self._started = True
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)

    def _request(self, request: httpx.Request, base_path: str, secrets: list[str | None]) -> Any:
        path = request.url.path
        if base_path and path.startswith(base_path):
            path = path[len(base_path) :] or "/"
        text = scrub(request.content.decode("utf-8", errors="replace"), secrets)
        try:
            body: Any = json.loads(text)
        except json.JSONDecodeError:
            body = text
        return {
            "method": request.method,
            "path": path,
            "headers": _headers(request.headers, secrets),
            "body": body,
        }

    def failed(
        self, request: httpx.Request, base_path: str, error: str, secrets: list[str | None]
    ) -> None:
        """An attempt that got no response."""
        self._write(
            {
                "type": "exchange",
                "request": self._request(request, base_path, secrets),
                "response": {"error": scrub(error, secrets)},
            }
        )

    def answered(
        self, response: httpx.Response, body: bytes, base_path: str, secrets: list[str | None]
    ) -> None:
        """A whole response already read (an error status)."""
        self._write(
            {
                "type": "exchange",
                "request": self._request(response.request, base_path, secrets),
                "response": {
                    "status": response.status_code,
                    "headers": _headers(response.headers, secrets),
                    "body": scrub(body.decode("utf-8", errors="replace"), secrets),
                },
            }
        )

    def tee(
        self, response: httpx.Response, base_path: str, secrets: list[str | None]
    ) -> httpx.Response:
        """`response` with its stream copied to the recording as it is read; the exchange is
        written when the stream is closed."""
        chunks: list[bytes] = []

        def closed() -> None:
            self.answered(response, b"".join(chunks), base_path, secrets)

        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_TeeStream(response.stream, chunks, closed),
            request=response.request,
            extensions=response.extensions,
        )


class _TeeStream(httpx.AsyncByteStream):
    def __init__(
        self, inner: httpx.AsyncByteStream | Any, chunks: list[bytes], closed: Any
    ) -> None:
        self._inner = inner
        self._chunks = chunks
        self._closed = closed
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._chunks.append(chunk)
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            if not self._done:
                self._done = True
                self._closed()


def recording_path(rollout: Path) -> Path:
    """Where the recording of the thread whose rollout is `rollout` goes: next to it."""
    name = rollout.name
    stem = name[len("rollout-") :] if name.startswith("rollout-") else name
    return rollout.with_name(f"model-streams-{stem}")


def rollout_path(recording: Path) -> Path:
    """The rollout a recording sits next to."""
    name = recording.name
    stem = name[len("model-streams-") :] if name.startswith("model-streams-") else name
    return recording.with_name(f"rollout-{stem}")


def read_recording(path: Path) -> Recording:
    """Read a recording; raises `RecordingError` for anything else, `OSError` on I/O."""
    header: dict[str, Any] | None = None
    exchanges: list[Exchange] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as err:
                raise RecordingError(f"{path}:{number}: not JSON ({err.msg})") from None
            if not isinstance(entry, dict):
                raise RecordingError(f"{path}:{number}: not a recording entry")
            if header is None:
                if entry.get("type") != "recording" or entry.get("version") != VERSION:
                    raise RecordingError(
                        f"{path}: not a model-stream recording (version {VERSION})"
                    )
                header = entry
                continue
            try:
                exchanges.append(_exchange(entry))
            except (KeyError, TypeError, ValueError) as err:
                raise RecordingError(f"{path}:{number}: malformed exchange ({err})") from None
    if header is None:
        raise RecordingError(f"{path}: the recording is empty")
    return Recording(header, exchanges)


def _exchange(entry: dict[str, Any]) -> Exchange:
    req, res = entry["request"], entry["response"]
    request = RecordedRequest(
        str(req["method"]), str(req["path"]), dict(req.get("headers") or {}), req.get("body")
    )
    if "error" in res:
        return Exchange(request, RecordedResponse(error=str(res["error"])))
    response = RecordedResponse(
        int(res["status"]), dict(res.get("headers") or {}), str(res.get("body") or "")
    )
    return Exchange(request, response)
