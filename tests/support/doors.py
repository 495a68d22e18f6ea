"""The listening doors as real processes, and a raw probe that knocks on them (no tests here).

`listening(kind, home, cwd)` starts `codex-lsp app-server --listen ws://127.0.0.1:0` (`ws`) or
`codex-lsp serve --tcp 127.0.0.1:0` (`tcp`) or `codex-lsp proto --listen tcp://127.0.0.1:0`
(`proto`) and yields the port it says it listens on, and
its pid.
`PROBE` is a standalone script (standard library only, so it runs as another user or inside
the sandbox) that tries to read the token file, then opens the door with what it read, and
prints `ACCEPTED` or `REFUSED`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 60.0

COMMANDS = {
    "ws": ["app-server", "--listen", "ws://127.0.0.1:0"],
    "tcp": ["serve", "--tcp", "127.0.0.1:0"],
    "proto": ["proto", "--listen", "tcp://127.0.0.1:0"],
}

PROBE = r"""
import json, socket, sys
kind, port, token_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    token = open(token_file).read().strip()
    print("read the token")
except OSError as exc:
    token = ""
    print("token unreadable:", exc)
auth = f"Authorization: Bearer {token}\r\n" if token else ""
try:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
except OSError as exc:
    print("connect failed:", exc)
    print("REFUSED")
    sys.exit(0)
if kind == "ws":
    sock.sendall(
        ("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
         + auth + "\r\n").encode()
    )
    answer = b""
    while b"\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    print("status:", answer.split(b"\r\n")[0].decode(errors="replace"))
    print("ACCEPTED" if answer.startswith(b"HTTP/1.1 101") else "REFUSED")
elif kind == "proto":
    # Served, a line that is not JSON gets an `error` event saying so.
    sock.sendall(auth.replace("\r\n", "\n").encode() + b"this is not json\n")
    answer = b""
    try:
        while b"invalid JSON" not in answer and b"Unauthorized" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    except OSError as exc:
        print("read failed:", exc)
    print("ACCEPTED" if b"invalid JSON" in answer else "REFUSED")
else:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "capabilities": {}}}).encode()
    sock.sendall(auth.encode() + b"Content-Length: %d\r\n\r\n" % len(body) + body)
    answer = b""
    try:
        while b'"capabilities"' not in answer and b"Unauthorized" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    except OSError as exc:
        print("read failed:", exc)
    print("ACCEPTED" if b'"capabilities"' in answer else "REFUSED")
"""


def door_env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, CODEX_HOME=str(home), PYTHONPATH=str(REPO), **extra)
    env.pop("OPENAI_API_KEY", None)
    return env


@dataclass(frozen=True)
class Listening:
    port: int
    pid: int

    def rss_kib(self) -> int:
        """The server's resident memory (VmRSS), in KiB."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        return int(next(x for x in status.splitlines() if x.startswith("VmRSS:")).split()[1])


@contextmanager
def listening(kind: str, home: Path, cwd: Path, *args: str) -> Iterator[Listening]:
    """A listening door on 127.0.0.1 with the default token, as it says it listens."""
    process = subprocess.Popen(
        [sys.executable, "-m", "codex_lsp", *COMMANDS[kind], *args],
        cwd=cwd,
        env=door_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        seen = []
        while "listening on " not in (line := process.stderr.readline()):
            assert line, "".join(seen)
            seen.append(line)
        address = line.split("listening on ", 1)[1].split()[0]
        yield Listening(int(address.rsplit(":", 1)[1]), process.pid)
    finally:
        process.kill()
        process.wait(WAIT_S)


def token_path(home: Path) -> Path:
    return home / "listen-token"


def bearer(home: Path) -> dict[str, str]:
    return {"Authorization": f"Bearer {token_path(home).read_text().strip()}"}
