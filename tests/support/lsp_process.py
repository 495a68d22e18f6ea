"""A plain LSP client over a server process's stdio: any command line, environment and cwd.

pytest-lsp starts `python -m codex_lsp serve` in the test's own directory; the warm start's
tests need the launcher instead, run from a directory of their choosing, and the process itself
(its pid, its exit status, a kill).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

READ_TIMEOUT_S = 60.0

Message = dict[str, Any]


class LspProcess:
    def __init__(
        self,
        argv: list[str],
        *,
        env: dict[str, str],
        cwd: Path,
        stderr: Path | None = None,
    ) -> None:
        self.cwd = cwd
        self._stderr = open(stderr, "wb") if stderr is not None else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=cwd,
        )
        self._buffer = b""
        self._next_id = 0
        self.received: list[Message] = []

    # -- the wire ----------------------------------------------------------------------------

    def send(self, message: Message) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()

    def _fill(self, deadline: float) -> None:
        assert self.process.stdout is not None
        ready, _, _ = select.select(
            [self.process.stdout], [], [], max(deadline - time.monotonic(), 0)
        )
        assert ready, "no message from the server in time"
        chunk = os.read(self.process.stdout.fileno(), 65536)
        assert chunk, "the server closed its output"
        self._buffer += chunk

    def read(self, timeout: float = READ_TIMEOUT_S) -> Message:
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self._buffer:
            self._fill(deadline)
        header, _, self._buffer = self._buffer.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(self._buffer) < length:
            self._fill(deadline)
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        message: Message = json.loads(body)
        if "method" in message and "id" in message:
            # A request to the editor (progress, prompts): accepted, as a quiet editor would.
            self.send({"id": message["id"], "result": None})
        self.received.append(message)
        return message

    def until(self, accept: Callable[[Message], bool], timeout: float = READ_TIMEOUT_S) -> Message:
        deadline = time.monotonic() + timeout
        while True:
            message = self.read(max(deadline - time.monotonic(), 0.01))
            if accept(message):
                return message

    # -- requests ----------------------------------------------------------------------------

    def request(self, method: str, params: Any = None) -> Message:
        """Send a request and return its answer (the whole message: `result` or `error`)."""
        self._next_id += 1
        request_id = self._next_id
        self.send({"id": request_id, "method": method, "params": params})
        return self.until(lambda m: m.get("id") == request_id and "method" not in m)

    def result(self, method: str, params: Any = None) -> Any:
        answer = self.request(method, params)
        assert "error" not in answer, answer
        return answer["result"]

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def initialize(self) -> Message:
        result = self.result(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.cwd.as_uri(),
                # A client of the codex/* methods: it is sent the codex/* notifications.
                "capabilities": {"workspace": {"applyEdit": True}, "experimental": {"codex": {}}},
            },
        )
        self.notify("initialized", {})
        return result  # type: ignore[no-any-return]

    def notifications(self, method: str) -> list[Message]:
        return [m["params"] for m in self.received if m.get("method") == method]

    # -- the end -----------------------------------------------------------------------------

    def shutdown(self, timeout: float = READ_TIMEOUT_S) -> int:
        """`shutdown` then `exit`: the process's exit status."""
        self.result("shutdown")
        self.notify("exit")
        return self.wait(timeout)

    def wait(self, timeout: float = READ_TIMEOUT_S) -> int:
        try:
            return self.process.wait(timeout)
        finally:
            if self._stderr is not subprocess.DEVNULL:
                self._stderr.close()  # type: ignore[union-attr]

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
