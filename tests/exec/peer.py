"""The real `codex app-server` and ours, driven alike over stdio (no tests here).

`Server.start(side, home, cwd)` spawns `codex app-server` (the 0.171.0 binary the editors'
set-up installs) or `codex-lsp app-server`, initializes it, and reads its messages on a thread;
`answer_requests` answers the approvals it asks. Both get a `CODEX_HOME` outside the system
temporary directory (the real binary refuses to set itself up in there) whose config points at
the scripted model, with the plugin, apps and remote-plugin features off so neither reaches past
loopback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pytest

REPO = Path(__file__).resolve().parents[2]
_TAIL = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
CACHE = Path(
    os.environ.get("CODEX_LSP_EDITORS_CACHE", Path.home() / ".cache" / "codex-lsp" / "editors")
)
# Where the test set-up installs the peer; a developer's own install is the fallback.
PEER_CANDIDATES = (CACHE / "codex-peer" / _TAIL, Path.home() / ".cache" / "codex-peer" / _TAIL)
# Only a bound on a hang: the reference runs commands in the user's login shell, whose profile
# may be slow on a busy machine.
WAIT_S = 180.0

Side = Literal["real", "ours"]
Message = dict[str, Any]


def peer_binary() -> Path:
    """The real `codex` binary; a missing one fails the test and says how to install it."""
    for candidate in PEER_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(
        f"the real codex binary is missing (looked in {', '.join(map(str, PEER_CANDIDATES))}): "
        "run scripts/setup-editors, which installs @openai/codex@0.171.0 from npm"
    )


def config_toml(base_url: str, *, model: str, extra: str = "") -> str:
    return (
        f'model = "{model}"\n'
        'model_provider = "scripted"\n'
        'approval_policy = "on-request"\n'
        'sandbox_mode = "workspace-write"\n'
        f"{extra}\n"
        "[features]\nplugins = false\napps = false\nremote_plugin = false\n\n"
        "[model_providers.scripted]\n"
        'name = "Scripted"\n'
        f'base_url = "{base_url}"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )


@contextmanager
def peer_home(base_url: str, *, model: str = "gpt-5.5", extra: str = "") -> Iterator[Path]:
    """A CODEX_HOME (outside the system temp dir) with a `ws` workspace in it."""
    parent = Path.home() / ".cache" / "codex-lsp"
    parent.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="peer-home-", dir=parent))
    try:
        (home / "config.toml").write_text(config_toml(base_url, model=model, extra=extra))
        (home / "ws").mkdir()
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


class Server:
    """One app-server process and everything it said."""

    def __init__(self, argv: list[str], home: Path, cwd: Path) -> None:
        # HOME is the empty CODEX_HOME: both servers run commands in the user's login shell, and
        # the test machine's own profile (version managers, their lock files) is not under test.
        env = dict(
            os.environ, CODEX_HOME=str(home), HOME=str(home), RUST_LOG="error", PYTHONPATH=str(REPO)
        )
        env.pop("OPENAI_API_KEY", None)
        self._stderr = open(home / "stderr.log", "wb")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=cwd,
            env=env,
        )
        self.received: list[Message] = []
        self._cond = threading.Condition()
        self._next_id = 0
        self._answered: set[Any] = set()
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def start(cls, side: Side, home: Path, cwd: Path) -> Server:
        if side == "real":
            argv = [str(peer_binary()), "app-server"]
        else:
            argv = [sys.executable, "-m", "codex_lsp", "app-server"]
        server = cls(argv, home, cwd)
        server.result("initialize", {"clientInfo": {"name": "peer-test", "version": "1.0"}})
        server.send({"method": "initialized"})
        return server

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._cond:
                self.received.append(json.loads(line))
                self._cond.notify_all()

    def send(self, message: Message) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def request(self, method: str, params: Message) -> int:
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        return self._next_id

    def wait(self, pred: Callable[[Message], bool], start: int = 0) -> Message:
        deadline = time.monotonic() + WAIT_S
        with self._cond:
            while True:
                for message in self.received[start:]:
                    if pred(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    last = [json.dumps(m)[:200] for m in self.received[-5:]]
                    raise AssertionError(f"no such message; last: {last}")
                self._cond.wait(min(left, 0.2))

    def call(self, method: str, params: Message) -> Message:
        request_id = self.request(method, params)
        return self.wait(lambda m: m.get("id") == request_id and "method" not in m)

    def result(self, method: str, params: Message) -> Any:
        answer = self.call(method, params)
        assert "result" in answer, f"{method}: {answer}"
        return answer["result"]

    def start_thread(self, **params: Any) -> str:
        return str(self.result("thread/start", params)["thread"]["id"])

    def run_turn(
        self, thread_id: str, text: str, *, decision: Any = "accept"
    ) -> tuple[list[Message], list[Message]]:
        """Run a turn, answering approvals with `decision`; (its messages, the requests)."""
        start = len(self.received)
        self.result(
            "turn/start",
            {"threadId": thread_id, "input": [{"type": "text", "text": text, "text_elements": []}]},
        )
        asked: list[Message] = []

        def done(message: Message) -> bool:
            if "method" in message and "id" in message and message["id"] not in self._answered:
                self._answered.add(message["id"])
                asked.append(message)
                self.send({"id": message["id"], "result": {"decision": decision}})
            return message.get("method") == "turn/completed" and (
                message["params"]["threadId"] == thread_id
            )

        self.wait(done, start)
        return self.received[start:], asked

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stderr.close()


@contextmanager
def running(side: Side, home: Path) -> Iterator[Server]:
    server = Server.start(side, home, home / "ws")
    try:
        yield server
    finally:
        server.close()


@contextmanager
def session(
    side: Side, base_url: str, *, model: str = "gpt-5.5", extra: str = ""
) -> Iterator[tuple[Path, Server]]:
    """A fresh home and a started server of `side` in it: `(home, server)`."""
    with peer_home(base_url, model=model, extra=extra) as home, running(side, home) as server:
        yield home, server
