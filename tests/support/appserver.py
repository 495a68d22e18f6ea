"""A client for `codex-lsp app-server` run as a real subprocess over stdio (no tests here).

`AppServerClient` spawns `python -m codex_lsp app-server` with `CODEX_HOME` in a temp dir, reads
its stdout on a thread and keeps every message both ways in `transcript`, so a test can check
what a client would see, in order, and validate the whole conversation against the schema.
Waiting is bounded by a generous timeout that only turns a hang into a failure; no test asserts
on how long anything took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.engine import write_config

WAIT_S = 30.0
REPO = Path(__file__).resolve().parents[2]

Message = dict[str, Any]


class AppServerClient:
    def __init__(
        self,
        home: Path,
        cwd: Path,
        *,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.home = home
        self.cwd = cwd
        self.transcript: list[tuple[str, Message]] = []
        self.received: list[Message] = []
        self.stderr_path = home / "app-server.stderr"
        self._cond = threading.Condition()
        self._cursor = 0
        self._ids = iter(range(1, 1_000_000))
        environ = dict(os.environ, CODEX_HOME=str(home), PYTHONPATH=str(REPO))
        environ.pop("OPENAI_API_KEY", None)
        environ.update(env or {})
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "codex_lsp", "app-server", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=cwd,
            env=environ,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- wire -------------------------------------------------------------------------------

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            message = json.loads(raw)
            with self._cond:
                self.received.append(message)
                self.transcript.append(("server", message))
                self._cond.notify_all()

    def send(self, message: Message) -> None:
        with self._cond:
            self.transcript.append(("client", message))
        self.send_raw(json.dumps(message))

    def send_raw(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: Any = None) -> int:
        request_id = next(self._ids)
        message: Message = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    def response(self, request_id: Any, timeout: float = WAIT_S) -> Message:
        """The response to `request_id`, wherever it is in the stream."""
        return self._find(
            lambda m: m.get("id") == request_id and "method" not in m, timeout, from_start=True
        )

    def call(self, method: str, params: Any = None) -> Message:
        return self.response(self.request(method, params))

    def result(self, method: str, params: Any = None) -> Any:
        answer = self.call(method, params)
        assert "result" in answer, f"{method} failed: {answer}"
        return answer["result"]

    def answer(self, request: Message, result: Any) -> None:
        self.send({"id": request["id"], "result": result})

    # -- waiting ----------------------------------------------------------------------------

    def _find(
        self, pred: Callable[[Message], bool], timeout: float, *, from_start: bool
    ) -> Message:
        deadline = time.monotonic() + timeout
        with self._cond:
            start = 0 if from_start else self._cursor
            while True:
                for index in range(start, len(self.received)):
                    if pred(self.received[index]):
                        if not from_start:
                            self._cursor = index + 1
                        return self.received[index]
                start = len(self.received)
                left = deadline - time.monotonic()
                gone = self.process.poll() is not None and not self._reader.is_alive()
                if left <= 0 or gone:
                    last = [json.dumps(m)[:200] for m in self.received[-8:]]
                    raise AssertionError(
                        f"no matching message within {timeout}s; last messages: {last}\n"
                        f"stderr: {self.stderr()}"
                    )
                self._cond.wait(min(left, 0.5))

    def wait(self, pred: Callable[[Message], bool], timeout: float = WAIT_S) -> Message:
        """The next message (after the last one waited for) that matches `pred`."""
        return self._find(pred, timeout, from_start=False)

    def wait_method(self, method: str, timeout: float = WAIT_S, **params: Any) -> Message:
        return self.wait(_matcher(method, params), timeout)

    def first(self, method: str, **params: Any) -> Message:
        """The first message of `method` (with those params) received so far, or waited for."""
        return self._find(_matcher(method, params), WAIT_S, from_start=True)

    def since(self, message: Message) -> list[Message]:
        """Messages received after `message` (identity), in order."""
        with self._cond:
            index = next(i for i, m in enumerate(self.received) if m is message)
            return list(self.received[index + 1 :])

    def notifications(self, method: str, **params: Any) -> list[Message]:
        with self._cond:
            return [
                m
                for m in self.received
                if m.get("method") == method
                and "id" not in m
                and all((m.get("params") or {}).get(k) == v for k, v in params.items())
            ]

    # -- conveniences -----------------------------------------------------------------------

    def initialize(self, **capabilities: Any) -> Message:
        params: Message = {"clientInfo": {"name": "pytest", "title": "Tests", "version": "1.0"}}
        if capabilities:
            params["capabilities"] = capabilities
        result = self.result("initialize", params)
        self.send({"method": "initialized"})
        return result

    def start_thread(self, **params: Any) -> Message:
        params.setdefault("cwd", str(self.cwd))
        # No sandbox in tests: these machines may lack Landlock, and approvals come from policy.
        params.setdefault("sandbox", "danger-full-access")
        return self.result("thread/start", params)["thread"]

    def run_turn(self, thread_id: str, text: str, **params: Any) -> tuple[Message, Message]:
        """Start a turn and wait for its end; (the turn from the response, turn/completed)."""
        turn = self.result(
            "turn/start", {"threadId": thread_id, "input": [text_input(text)], **params}
        )["turn"]
        done = self.wait_method("turn/completed", threadId=thread_id)
        assert done["params"]["turn"]["id"] == turn["id"]
        return turn, done

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]

    def close(self, timeout: float = 20.0) -> int:
        """Close stdin (the end of the session) and wait for the server to exit."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(
                f"app-server did not exit after stdin closed\n{self.stderr()}"
            ) from None
        self._reader.join(5)
        self._stderr.close()
        return code


def _matcher(method: str, params: dict[str, Any]) -> Callable[[Message], bool]:
    def matches(m: Message) -> bool:
        got = m.get("params") or {}
        return m.get("method") == method and all(got.get(k) == v for k, v in params.items())

    return matches


def text_input(text: str) -> Message:
    return {"type": "text", "text": text, "text_elements": []}


def make_home(tmp_path: Path, base_url: str, **config: Any) -> tuple[Path, Path]:
    """A CODEX_HOME whose provider is the scripted server, and an empty workspace."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    write_config(home, base_url, **config)
    return home, workspace


@contextmanager
def app_server(
    home: Path, cwd: Path, *, initialize: bool = True, **kwargs: Any
) -> Iterator[AppServerClient]:
    client = AppServerClient(home, cwd, **kwargs)
    try:
        if initialize:
            client.initialize()
        yield client
    finally:
        if client.process.poll() is None:
            client.close()


def items_of(messages: list[Message], method: str, item_type: str) -> list[Message]:
    return [
        m["params"]["item"]
        for m in messages
        if m.get("method") == method and m["params"]["item"]["type"] == item_type
    ]
