"""The listening doors (`app-server --listen ws://`, `serve --tcp`) ask every client for the
token, cap what a client that has not shown it can cost, and will not open to the network
without one asked for explicitly.

Each door is a real server process on 127.0.0.1; the clients are the standalone probe of
`tests/support/doors.py` (run as this user, as another user, with or without the token) and
raw sockets that send what no real client would.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.doors import PROBE, door_env, listening, token_path

KINDS = ["tcp", "ws", "proto"]
SYSTEM_PYTHON = "/usr/bin/python3"
# What a server that refuses these clients may still grow by (allocator noise, buffers).
MAX_GROWTH_KIB = 24 * 1024


def _probe(kind: str, port: int, token_file: Path, **kwargs: object) -> str:
    result = subprocess.run(
        [kwargs.pop("python", sys.executable), "-I", "-c", PROBE, kind, str(port), str(token_file)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        **kwargs,  # type: ignore[call-overload]
    )
    output: str = result.stdout + result.stderr
    return output


@pytest.mark.parametrize("kind", KINDS)
def test_a_client_without_the_token_is_refused_and_one_with_it_is_served(
    kind: str, home: Path, ws: Path, tmp_path: Path
) -> None:
    with listening(kind, home, ws) as door:
        token = token_path(home)
        info = token.stat()
        assert info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o600
        assert "REFUSED" in _probe(kind, door.port, tmp_path / "no-such-token")
        wrong = tmp_path / "wrong-token"
        wrong.write_text("not-the-token\n")
        assert "REFUSED" in _probe(kind, door.port, wrong)
        assert "ACCEPTED" in _probe(kind, door.port, token)
    # The token stays the same from one start to the next, for the clients that read it.
    before = token.read_text()
    with listening(kind, home, ws) as door:
        assert token.read_text() == before
        assert "ACCEPTED" in _probe(kind, door.port, token)


@pytest.mark.skipif(os.getuid() != 0, reason="switching to another user needs root")
@pytest.mark.parametrize("kind", KINDS)
def test_a_client_of_another_user_is_refused(kind: str, home: Path, ws: Path) -> None:
    with listening(kind, home, ws) as door:
        # Another local user reaches 127.0.0.1 as well, but not the token.
        seen = _probe(kind, door.port, token_path(home), python=SYSTEM_PYTHON, user=65534)
        assert "token unreadable" in seen and "REFUSED" in seen, seen
        assert "ACCEPTED" in _probe(kind, door.port, token_path(home), python=SYSTEM_PYTHON)


@pytest.mark.parametrize("kind", KINDS)
def test_a_door_open_to_the_network_needs_a_token_asked_for(kind: str, tmp_path: Path) -> None:
    home = tmp_path / "home"

    def start(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codex_lsp", *args],
            env=door_env(home),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )

    command = {"tcp": ["serve", "--tcp"], "ws": ["app-server", "--listen"]}.get(
        kind, ["proto", "--listen"]
    )
    address = {"tcp": "0.0.0.0:0", "ws": "ws://0.0.0.0:0"}.get(kind, "tcp://0.0.0.0:0")
    refused = start(*command, address)
    assert refused.returncode == 2, refused.stderr
    assert "refusing to listen" in refused.stderr and "without a token" in refused.stderr
    # A token file others may read is no secret: refused, whatever the address.
    shared = tmp_path / "shared-token"
    shared.write_text("a-token-everyone-can-read\n")
    shared.chmod(0o644)
    option = "--ws-token-file" if kind == "ws" else "--token-file"
    loopback = {"tcp": "127.0.0.1:0", "ws": "ws://127.0.0.1:0"}.get(kind, "tcp://127.0.0.1:0")
    leaky = start(*command, loopback, option, str(shared))
    assert leaky.returncode == 2 and "chmod 600" in leaky.stderr, leaky.stderr
    assert "a-token-everyone-can-read" not in leaky.stderr


def _rss_growth_kib(door_rss: int, baseline: int) -> int:
    return door_rss - baseline


def _ws_frame(payload: bytes, *, first: bool) -> bytes:
    """A masked client frame that does not end its message (FIN clear)."""
    opcode = 0x1 if first else 0x0
    header = bytes([opcode, 0x80 | 127]) + struct.pack("!Q", len(payload))
    return header + b"\0\0\0\0" + payload  # a zero mask leaves the payload as it is


def test_unfinished_messages_from_clients_without_the_token_keep_memory_bounded(
    home: Path, ws: Path
) -> None:
    chunk = b"x" * (1 << 20)
    with listening("ws", home, ws) as door:
        time.sleep(1)
        baseline = door.rss_kib()
        clients = []
        for _ in range(8):
            sock = socket.create_connection(("127.0.0.1", door.port), timeout=30)
            sock.sendall(
                b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                b"Sec-WebSocket-Version: 13\r\n\r\n"
            )
            clients.append(sock)
        for sock in clients:
            # Fragments of a message that never ends, as long as the server takes them.
            try:
                for n in range(60):
                    sock.sendall(_ws_frame(chunk, first=n == 0))
            except OSError:
                pass  # refused and closed: nothing more goes in
        grown = _rss_growth_kib(door.rss_kib(), baseline)
        for sock in clients:
            sock.close()
        assert grown < MAX_GROWTH_KIB, f"the server grew by {grown // 1024} MiB"


def test_clients_without_the_token_cost_little_and_cannot_keep_the_editor_out(
    home: Path, ws: Path
) -> None:
    with listening("tcp", home, ws) as door:
        time.sleep(1)
        baseline = door.rss_kib()
        # A body announced as big, sent without the token, by many connections at once.
        hogs = []
        body = b"y" * (1 << 20)
        for _ in range(8):
            sock = socket.create_connection(("127.0.0.1", door.port), timeout=30)
            hogs.append(sock)
            try:
                sock.sendall(b"Content-Length: 60000000\r\n\r\n")
                for _ in range(50):
                    sock.sendall(body)
            except OSError:
                pass
        # Connections that say nothing at all.
        idle = [socket.create_connection(("127.0.0.1", door.port), timeout=30) for _ in range(20)]
        grown = _rss_growth_kib(door.rss_kib(), baseline)
        assert grown < MAX_GROWTH_KIB, f"the server grew by {grown // 1024} MiB"
        # The editor, with the token, is still served.
        assert "ACCEPTED" in _probe("tcp", door.port, token_path(home))
        for sock in hogs + idle:
            sock.close()


@pytest.mark.parametrize("kind", KINDS)
def test_connections_that_never_show_the_token_are_capped(kind: str, home: Path, ws: Path) -> None:
    with listening(kind, home, ws) as door:
        idle = [socket.create_connection(("127.0.0.1", door.port), timeout=30) for _ in range(40)]
        try:
            # Long before any handshake timeout, the oldest ones have been let go.
            oldest = idle[0]
            oldest.settimeout(3)
            try:
                assert oldest.recv(1) == b"", "the oldest idle connection was answered"
            except ConnectionResetError:
                pass  # dropped: as good as closed
            except TimeoutError:
                raise AssertionError("the oldest idle connection is still held") from None
            # A client with the token is served all the same.
            assert "ACCEPTED" in _probe(kind, door.port, token_path(home))
        finally:
            for sock in idle:
                sock.close()
