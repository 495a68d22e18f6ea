"""Raw clients for both doors, for tests that send what no well-behaved client would.

Each client runs the real server process and writes bytes to its stdin as they are given; it
reads the server's stdout only when a test asks for a message, so a test can also be a client
that stops reading. `AppServerDoor` speaks JSONL (`codex-lsp app-server`), `LspDoor` speaks
`Content-Length` framing (`codex-lsp serve`) and prefixes v2 methods with `codex/`. Both offer
the same calls, so one test can be run against each door.

Waiting is bounded by a generous timeout that only turns a hang into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

WAIT_S = 60.0
REPO = Path(__file__).resolve().parents[2]

Message = dict[str, Any]


class Door:
    """What both doors share: a process, a byte pipe each way, messages read on demand."""

    name = ""

    def __init__(
        self, argv: list[str], home: Path, cwd: Path, env: dict[str, str] | None = None
    ) -> None:
        self.home = home
        self.stderr_path = home / f"{self.name}-{os.urandom(3).hex()}.stderr"
        environ = dict(os.environ, CODEX_HOME=str(home), PYTHONPATH=str(REPO))
        environ.pop("OPENAI_API_KEY", None)
        environ.update(env or {})
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=cwd,
            env=environ,
        )
        self._buffer = bytearray()
        self._ids = iter(range(1000, 10**9))
        self.seen: list[Message] = []  # every message read, in order

    # -- to override ------------------------------------------------------------------------

    def method(self, v2_method: str) -> str:
        return v2_method

    def frame(self, body: bytes) -> bytes:
        raise NotImplementedError

    def _parse_one(self) -> Message | None:
        raise NotImplementedError

    def initialize(self) -> None:
        raise NotImplementedError

    # -- writing ----------------------------------------------------------------------------

    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send_body(self, body: bytes) -> None:
        """One message body, framed as this door frames messages."""
        self.send_bytes(self.frame(body))

    def message(self, fields: Message) -> bytes:
        return json.dumps(fields).encode()

    def send(self, fields: Message) -> None:
        self.send_body(self.message(fields))

    def request(self, v2_method: str, params: Any = None, msg_id: Any = None) -> Any:
        msg_id = next(self._ids) if msg_id is None else msg_id
        fields: Message = {"id": msg_id, "method": self.method(v2_method)}
        if params is not None:
            fields["params"] = params
        self.send(fields)
        return msg_id

    # -- reading ----------------------------------------------------------------------------

    def _fill(self, timeout: float) -> None:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        assert ready, f"{self.name}: nothing from the server within {timeout}s\n{self.stderr()}"
        chunk = os.read(self.process.stdout.fileno(), 1 << 20)
        assert chunk, f"{self.name}: the server closed its output\n{self.stderr()}"
        self._buffer += chunk

    def read(self, timeout: float = WAIT_S) -> Message:
        """The next message from the server."""
        while (message := self._parse_one()) is None:
            self._fill(timeout)
        self.seen.append(message)
        return message

    def response(self, msg_id: Any, timeout: float = WAIT_S) -> Message:
        """The response to `msg_id`, reading past anything else."""
        while True:
            message = self.read(timeout)
            if "method" not in message and message.get("id") == msg_id:
                return message

    def next_response(self, timeout: float = WAIT_S) -> Message:
        """The next response (or error), skipping notifications and server requests."""
        while True:
            message = self.read(timeout)
            if "method" not in message:
                return message

    def notification(self, v2_method: str, timeout: float = WAIT_S) -> Message:
        wanted = self.method(v2_method)
        while True:
            message = self.read(timeout)
            if message.get("method") == wanted and "id" not in message:
                return message

    def call(self, v2_method: str, params: Any = None) -> Message:
        return self.response(self.request(v2_method, params))

    def call_with_id(self, v2_method: str, msg_id: Any, params: Any = None) -> Message:
        return self.response(self.request(v2_method, params, msg_id))

    def result(self, v2_method: str, params: Any = None) -> Any:
        answer = self.call(v2_method, params)
        assert "result" in answer, f"{v2_method} failed: {answer}"
        return answer["result"]

    def assert_serving(self) -> None:
        """A normal request still gets its normal answer."""
        models = self.result("model/list", {})
        assert models["data"], models

    # -- the process ------------------------------------------------------------------------

    def rss_kib(self) -> int:
        """The server's resident memory (VmRSS), in KiB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(line.split()[1])

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]

    def close(self) -> int:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            code = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._stderr.close()
        return code


class AppServerDoor(Door):
    name = "app-server"

    def __init__(
        self, home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
    ) -> None:
        super().__init__([sys.executable, "-m", "codex_lsp", "app-server", *args], home, cwd, env)

    def frame(self, body: bytes) -> bytes:
        return body + b"\n"

    def _parse_one(self) -> Message | None:
        end = self._buffer.find(b"\n")
        if end < 0:
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return json.loads(line)

    def initialize(self) -> None:
        info = {"name": "robustness", "title": "Robustness", "version": "1.0"}
        self.result("initialize", {"clientInfo": info})
        self.send({"method": "initialized"})


class LspDoor(Door):
    name = "lsp"

    def __init__(
        self, home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
    ) -> None:
        super().__init__([sys.executable, "-m", "codex_lsp", "serve", *args], home, cwd, env)

    def method(self, v2_method: str) -> str:
        if v2_method in ("initialize", "initialized", "shutdown", "exit"):
            return v2_method
        return f"codex/{v2_method}"

    def frame(self, body: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def message(self, fields: Message) -> bytes:
        return json.dumps({"jsonrpc": "2.0", **fields}).encode()

    def _parse_one(self) -> Message | None:
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        header = bytes(self._buffer[:end]).decode("ascii")
        length = next(
            int(line.split(":", 1)[1])
            for line in header.split("\r\n")
            if line.lower().startswith("content-length:")
        )
        start = end + 4
        if len(self._buffer) < start + length:
            return None
        body = bytes(self._buffer[start : start + length])
        del self._buffer[: start + length]
        return json.loads(body)

    def initialize(self) -> None:
        # A client of the codex/* methods: it is sent the codex/* notifications.
        capabilities = {"experimental": {"codex": {}}}
        self.result("initialize", {"capabilities": capabilities, "processId": None})
        self.send({"method": "initialized", "params": {}})


DOORS: dict[str, type[Door]] = {"app-server": AppServerDoor, "lsp": LspDoor}
