"""A JSON-RPC client for any app-server, over JSONL or LSP framing, that keeps a transcript.

`WireClient` starts a server process, reads what it writes on a thread, and records every
message both ways as the v2 protocol sees it. Over LSP (`codex-lsp serve`) the `codex/` prefix
is taken off each method, LSP's own traffic (progress, log messages, its handshake) is kept
apart, and the server's LSP requests are answered the way a plain editor would (`null`), so
both doors produce transcripts that compare directly.

Waiting is bounded by a generous timeout that only turns a hang into a failure.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

WAIT_S = 60.0
LSP_PREFIX = "codex/"

Message = dict[str, Any]
Framing = Literal["lines", "lsp"]


@dataclass(frozen=True)
class Entry:
    """One message of a transcript: `c2s` (client to server) or `s2c`, and, for a response,
    the method of the request it answers."""

    direction: Literal["c2s", "s2c"]
    message: Message
    answers: str | None = None


class WireClient:
    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        stderr_path: Path,
        framing: Framing = "lines",
    ) -> None:
        self.framing = framing
        self.transcript: list[Entry] = []
        self.lsp_traffic: list[Message] = []
        self.stderr_path = stderr_path
        self._cond = threading.Condition()
        self._cursor = 0
        self._ids = iter(range(1, 1_000_000))
        self._methods: dict[Any, str] = {}
        self._seen = 0  # transcript entries up to the last server message waited for
        self._stderr = open(stderr_path, "ab")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=cwd,
            env=env,
        )
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- framing ----------------------------------------------------------------------------

    def _write(self, message: Message) -> None:
        assert self.process.stdin is not None
        if self.framing == "lsp":
            message = {"jsonrpc": "2.0", **message}
        body = json.dumps(message).encode()
        if self.framing == "lsp":
            data = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        else:
            data = body + b"\n"
        with self._write_lock:
            self.process.stdin.write(data)
            self.process.stdin.flush()

    def _messages(self, stream: IO[bytes]) -> Any:
        if self.framing == "lines":
            for raw in stream:
                if raw.strip():
                    yield json.loads(raw)
            return
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b"\n"):
                if not line:
                    return
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if length is None:
                raise ValueError("an LSP message without Content-Length")
            yield json.loads(stream.read(length))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for message in self._messages(self.process.stdout):
            self._receive(message)
        with self._cond:
            self._cond.notify_all()

    def _receive(self, message: Message) -> None:
        method = message.get("method")
        if self.framing == "lsp":
            if isinstance(method, str) and not method.startswith(LSP_PREFIX):
                self._keep_lsp(message)
                if "id" in message:  # an editor without that feature answers null
                    self._write({"id": message["id"], "result": None})
                return
            if isinstance(method, str):
                message = {**message, "method": method.removeprefix(LSP_PREFIX)}
            message.pop("jsonrpc", None)
        answers = None
        if method is None and "id" in message:
            answers = self._methods.get(message["id"])
            if answers is None:  # LSP's own handshake
                self._keep_lsp(message)
                return
        with self._cond:
            self.transcript.append(Entry("s2c", message, answers))
            self._cond.notify_all()

    def _keep_lsp(self, message: Message) -> None:
        with self._cond:
            self.lsp_traffic.append(message)
            self._cond.notify_all()

    # -- sending ----------------------------------------------------------------------------

    def _wire_method(self, method: str) -> str:
        return LSP_PREFIX + method if self.framing == "lsp" else method

    def request(self, method: str, params: Any = None) -> int:
        request_id = next(self._ids)
        message: Message = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        with self._cond:
            self._methods[request_id] = method
            self.transcript.append(Entry("c2s", message))
        self._write({**message, "method": self._wire_method(method)})
        return request_id

    def notify(self, method: str, params: Any = None) -> None:
        message: Message = {"method": method}
        if params is not None:
            message["params"] = params
        with self._cond:
            self.transcript.append(Entry("c2s", message))
        self._write({**message, "method": self._wire_method(method)})

    def answer(self, request: Message, result: Any) -> None:
        message = {"id": request["id"], "result": result}
        with self._cond:
            self.transcript.append(Entry("c2s", message, request.get("method")))
        self._write(message)

    def lsp_handshake(self, capabilities: Message) -> None:
        """LSP's `initialize` / `initialized`, outside the v2 transcript."""
        request_id = next(self._ids)
        self._write(
            {
                "id": request_id,
                "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": capabilities},
            }
        )
        self._lsp_answer(request_id, WAIT_S)
        self._write({"method": "initialized", "params": {}})

    # -- waiting ----------------------------------------------------------------------------

    def _server_messages(self) -> list[Message]:
        return [e.message for e in self.transcript if e.direction == "s2c"]

    def _until(self, check: Callable[[], Any], timeout: float, what: str) -> Any:
        """Wait (holding the lock between looks) until `check()` returns something truthy."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (found := check()):
                left = deadline - time.monotonic()
                gone = self.process.poll() is not None and not self._reader.is_alive()
                if left <= 0 or gone:
                    last = [json.dumps(m)[:300] for m in self._server_messages()[-10:]]
                    raise AssertionError(
                        f"no {what} within {timeout}s; last messages: {last}\n"
                        f"stderr: {self.stderr()}"
                    )
                self._cond.wait(min(left, 0.5))
            return found

    def _find(self, pred: Callable[[Message], bool], timeout: float, from_start: bool) -> Message:
        def look() -> Message | None:
            received = [i for i, e in enumerate(self.transcript) if e.direction == "s2c"]
            for index in range(0 if from_start else self._cursor, len(received)):
                message = self.transcript[received[index]].message
                if pred(message):
                    if not from_start:
                        self._cursor = index + 1
                    self._seen = max(self._seen, received[index] + 1)
                    return message
            return None

        found: Message = self._until(look, timeout, "matching message")
        return found

    def _lsp_answer(self, request_id: int, timeout: float) -> None:
        self._until(
            lambda: any(m.get("id") == request_id for m in self.lsp_traffic),
            timeout,
            f"answer to LSP request {request_id}",
        )

    def wait(self, pred: Callable[[Message], bool], timeout: float = WAIT_S) -> Message:
        """The next server message (after the last one waited for) that matches `pred`."""
        return self._find(pred, timeout, from_start=False)

    def wait_method(self, method: str, timeout: float = WAIT_S, **params: Any) -> Message:
        def matches(m: Message) -> bool:
            got = m.get("params") or {}
            return m.get("method") == method and all(got.get(k) == v for k, v in params.items())

        return self.wait(matches, timeout)

    def response(self, request_id: int, timeout: float = WAIT_S) -> Message:
        return self._find(
            lambda m: m.get("id") == request_id and "method" not in m, timeout, from_start=True
        )

    def call(self, method: str, params: Any = None) -> Any:
        """Send a request and wait for its result (failing on an error answer)."""
        answer = self.response(self.request(method, params))
        assert "result" in answer, f"{method} failed: {answer}"
        return answer["result"]

    def seen(self) -> list[Entry]:
        """The transcript up to the last server message a wait returned: what came later
        (shutdown chatter, a notification racing the end) depends on timing, not behaviour."""
        with self._cond:
            return self.transcript[: self._seen]

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]

    # -- ending -----------------------------------------------------------------------------

    def close(self, timeout: float = 30.0) -> None:
        """End the session as a client does (stdin closed) and wait for the server to exit."""
        if self.process.poll() is None and self.framing == "lsp":
            request_id = next(self._ids)
            self._write({"id": request_id, "method": "shutdown"})
            self._lsp_answer(request_id, timeout)
            self._write({"method": "exit"})
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self._reader.join(5)
        self._stderr.close()
