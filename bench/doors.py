"""Clients for the servers the benches compare: the real `codex app-server` and each door of ours.

A `Door` says how to start a server and which framing it speaks: JSONL JSON-RPC (`app-server`,
the peer's and ours) or LSP (`serve`, where a v2 method `M` is `codex/M`). A `Session` is one
started server: a reader thread stamps every message the moment it arrives (so a message's
latency does not include the time the bench takes to look at it) and answers the requests a
language server sends its editor (progress tokens, message prompts) the way a quiet editor
would. Timestamps are `time.perf_counter_ns()`, the clock the scripted model stamps its deltas
with.

Warm doors are served by the per-user server of `codex-lsp` (`appserver/attach.py`); the
process answering such a session is the one forked for it, not the launcher spawned here,
and its memory is its proportional set size (pages shared with the per-user server and the
other sessions are split between them).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PEER_BINARY = (
    "codex-peer/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
)
ATTACH = REPO / "codex_lsp" / "appserver" / "attach.py"
WAIT_S = 60.0

Message = dict[str, Any]


def default_peer() -> Path:
    """The real `codex` 0.171.0 the test set-up installs (or the older shared location)."""
    editors = os.environ.get("CODEX_LSP_EDITORS_CACHE") or str(
        Path.home() / ".cache" / "codex-lsp" / "editors"
    )
    for base in (Path(editors), Path.home() / ".cache"):
        candidate = base / PEER_BINARY
        if candidate.exists():
            return candidate
    return Path(editors) / PEER_BINARY


@dataclass(frozen=True)
class Door:
    """One way to start a server: its command line, framing, and whether it is served warm."""

    name: str
    argv: list[str]
    lsp: bool = False
    warm: bool = False

    def method(self, v2_method: str) -> str:
        return f"codex/{v2_method}" if self.lsp else v2_method


def doors(peer: Path) -> list[Door]:
    """The real app-server, then every door of ours."""
    python = sys.executable
    return [
        Door("codex app-server", [str(peer), "app-server"]),
        Door("app-server", [python, "-m", "codex_lsp", "app-server"]),
        Door("app-server --attach", [python, "-I", "-S", str(ATTACH), "app-server"], warm=True),
        Door("serve", [python, "-m", "codex_lsp", "serve"], lsp=True),
        Door("serve, warm", [python, "-I", "-S", str(ATTACH), "serve"], lsp=True, warm=True),
    ]


@dataclass
class Arrival:
    message: Message
    at_ns: int


class ServerGone(RuntimeError):
    pass


@dataclass
class Session:
    """One started server and the messages it sent, in order of arrival."""

    door: Door
    env: dict[str, str]
    cwd: Path
    started_ns: int = 0
    process: subprocess.Popen[bytes] = field(init=False)
    _inbox: queue.Queue[Arrival | None] = field(init=False, default_factory=queue.Queue)
    _next_id: int = 0
    _write_lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    stderr: Any = subprocess.DEVNULL

    def __post_init__(self) -> None:
        self.started_ns = time.perf_counter_ns()
        self.process = subprocess.Popen(
            self.door.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=self.env,
            cwd=self.cwd,
        )
        threading.Thread(target=self._read, name=f"read {self.door.name}", daemon=True).start()

    # -- the wire ----------------------------------------------------------------------------

    def _write(self, message: Message) -> None:
        if self.door.lsp:
            message = {"jsonrpc": "2.0", **message}
            body = json.dumps(message).encode()
            data = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        else:
            data = json.dumps(message).encode() + b"\n"
        assert self.process.stdin is not None
        with self._write_lock:
            self.process.stdin.write(data)
            self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while True:
                body = self._read_lsp(stream) if self.door.lsp else stream.readline()
                if not body:
                    break
                at = time.perf_counter_ns()
                message = json.loads(body)
                if "method" in message and "id" in message:
                    self._answer_server_request(message)
                self._inbox.put(Arrival(message, at))
        except (OSError, ValueError):
            pass
        self._inbox.put(None)

    @staticmethod
    def _read_lsp(stream: Any) -> bytes:
        length = 0
        while True:
            line = stream.readline()
            if not line:
                return b""
            if not line.strip():
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return stream.read(length)

    def _answer_server_request(self, message: Message) -> None:
        # An editor that shows nothing: progress tokens accepted, prompts dismissed.
        with contextlib.suppress(OSError, ValueError):
            self._write({"id": message["id"], "result": None})

    # -- requests ----------------------------------------------------------------------------

    def send(self, v2_method: str, params: Message | None = None, *, raw: bool = False) -> int:
        self._next_id += 1
        method = v2_method if raw else self.door.method(v2_method)
        self._write({"id": self._next_id, "method": method, "params": params or {}})
        return self._next_id

    def notify(self, method: str, params: Message | None = None) -> None:
        self._write({"method": method, "params": params or {}})

    def next(self, timeout: float = WAIT_S) -> Arrival:
        try:
            arrival = self._inbox.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"{self.door.name}: nothing arrived in {timeout:.0f} s") from None
        if arrival is None:
            raise ServerGone(f"{self.door.name} closed its output")
        return arrival

    def until(self, accept: Callable[[Message], bool], timeout: float = WAIT_S) -> Arrival:
        deadline = time.monotonic() + timeout
        while True:
            arrival = self.next(max(deadline - time.monotonic(), 0.001))
            if accept(arrival.message):
                return arrival

    def answer(self, request_id: int) -> Arrival:
        arrival = self.until(lambda m: m.get("id") == request_id and "method" not in m)
        if "error" in arrival.message:
            raise RuntimeError(f"{self.door.name}: {arrival.message['error']}")
        return arrival

    def call(self, v2_method: str, params: Message | None = None) -> Arrival:
        return self.answer(self.send(v2_method, params))

    # -- the handshake -----------------------------------------------------------------------

    def initialize(self) -> int:
        """Send the door's `initialize`; the time its answer arrived."""
        if self.door.lsp:
            params: Message = {
                "processId": os.getpid(),
                "rootUri": self.cwd.as_uri(),
                "capabilities": {"general": {"positionEncodings": ["utf-16"]}},
                "clientInfo": {"name": "bench", "version": "1"},
            }
            arrival = self.answer(self.send("initialize", params, raw=True))
        else:
            arrival = self.call("initialize", {"clientInfo": {"name": "bench", "version": "1"}})
        self.notify("initialized")
        return arrival.at_ns

    # -- the process -------------------------------------------------------------------------

    def serving_pid(self) -> int:
        """The process answering this session: the spawned one, or the session a warm door's
        launcher handed its stdout to (the other process writing to the same pipe)."""
        if not self.door.warm:
            return self.process.pid
        pipe = os.readlink(f"/proc/{self.process.pid}/fd/1")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit() or int(entry.name) in (self.process.pid, os.getpid()):
                    continue
                # Any descriptor: `serve` moves the protocol's stdout off fd 1.
                with contextlib.suppress(OSError):
                    for fd in (entry / "fd").iterdir():
                        if os.readlink(fd) == pipe:
                            return int(entry.name)
            time.sleep(0.01)
        return self.process.pid

    def memory_mb(self) -> float:
        """Peak RSS of a process of its own; proportional set size of a forked session."""
        pid = self.serving_pid()
        if self.door.warm and pid != self.process.pid:
            return _proc_field(f"/proc/{pid}/smaps_rollup", "Pss:")
        return _proc_field(f"/proc/{pid}/status", "VmHWM:")

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _proc_field(path: str, name: str) -> float:
    for line in Path(path).read_text().splitlines():
        if line.startswith(name):
            return int(line.split()[1]) / 1024
    return float("nan")


# -- scripts, homes and the warm server -----------------------------------------------------


def stamped(count: int, pause_s: float) -> list[dict[str, Any]]:
    """A response streaming `count` stamped text deltas, `pause_s` apart."""
    item = {"type": "message", "role": "assistant", "id": "msg_stamp", "content": []}
    steps: list[dict[str, Any]] = [
        {"sse": {"type": "response.created", "response": {"id": "r"}}},
        {"sse": {"type": "response.output_item.added", "output_index": 0, "item": item}},
    ]
    for index in range(count):
        if pause_s:
            steps.append({"stall_s": pause_s})
        steps.append({"stamp_delta": index})
    done = {**item, "content": [{"type": "output_text", "text": "done"}]}
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    steps.append({"sse": {"type": "response.output_item.done", "output_index": 0, "item": done}})
    steps.append({"sse": {"type": "response.completed", "response": {"id": "r", "usage": usage}}})
    return steps


def write_home(base_url: str, parent: Path) -> Path:
    """A CODEX_HOME whose model is the scripted server, outside the system temp dir."""
    home = Path(tempfile.mkdtemp(prefix="home-", dir=parent))
    (home / "config.toml").write_text(
        'model = "gpt-5.4"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
        'sandbox_mode = "read-only"\n[model_providers.scripted]\nname = "Scripted"\n'
        f'base_url = "{base_url}"\nwire_api = "responses"\n'
    )
    (home / "work").mkdir()
    return home


class WarmServer:
    """The per-user server behind the warm doors, in a runtime directory of the bench's own."""

    def __init__(self) -> None:
        self.runtime = Path(tempfile.mkdtemp(prefix="bench-run-"))
        self.runtime.chmod(0o700)

    @property
    def env(self) -> dict[str, str]:
        return {"XDG_RUNTIME_DIR": str(self.runtime)}

    def wait_ready(self, timeout: float = WAIT_S) -> None:
        """Until the server the first launcher started has done its imports (its log says)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            logs = list(self.runtime.glob("codex-lsp/*.log"))
            if logs and "preloaded" in logs[0].read_text():
                return
            time.sleep(0.05)
        raise RuntimeError(f"the warm server did not start; see {self.runtime}/codex-lsp")

    def stop(self) -> None:
        for log in self.runtime.glob("codex-lsp/*.log"):
            for line in log.read_text().splitlines():
                if " serving " in line:
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(line.split()[2]), signal.SIGTERM)
        shutil.rmtree(self.runtime, ignore_errors=True)
