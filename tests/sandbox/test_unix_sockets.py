"""Escape 2: unix datagram sockets reaching sockets outside the sandbox.

A datagram socket needs no `connect`: `sendto` or `sendmsg` with an address delivers to
any named socket (on a normal host `/dev/log` and the journal are such sockets), and an
abstract name reaches sockets no file system hides. With the network off, nothing a
sandboxed command sends may arrive at a socket outside it; socket pairs between its own
processes keep working.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.helpers import PY, run

SENDER = r"""
import socket, sys
path, abstract = sys.argv[1], "\0" + sys.argv[2]

def attempt(label, send):
    try:
        send()
        print(label, "sent")
    except OSError as exc:
        print(label, "refused:", exc)

def fresh():
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)

def from_pair(address):
    a, _b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendmsg([b"from a pair"], [], 0, address)

attempt("sendto-path", lambda: fresh().sendto(b"sendto", path))
attempt("sendmsg-path", lambda: fresh().sendmsg([b"sendmsg"], [], 0, path))
attempt("sendmsg-abstract", lambda: fresh().sendmsg([b"abstract"], [], 0, abstract))
attempt("pair-sendmsg-path", lambda: from_pair(path))
attempt("pair-sendmsg-abstract", lambda: from_pair(abstract))
a, b = socket.socketpair()
a.sendmsg([b"ping"])
print("stream pair:", b.recv(10).decode())
"""


@pytest.fixture
def listeners(outside: Path) -> Iterator[tuple[str, str, list[socket.socket]]]:
    """A path-named and an abstract datagram socket outside the sandbox."""
    path = str(outside / "log.sock")
    named = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    named.bind(path)
    os.chmod(path, 0o666)
    abstract_name = f"codex-sandbox-test-{os.getpid()}-{id(named)}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    abstract.bind("\0" + abstract_name)
    for sock in (named, abstract):
        sock.setblocking(False)
    yield path, abstract_name, [named, abstract]
    named.close()
    abstract.close()


def _received(sockets: list[socket.socket]) -> list[bytes]:
    got = []
    for sock in sockets:
        while True:
            try:
                got.append(sock.recv(100))
            except BlockingIOError:
                break
    return got


def test_datagrams_to_outside_sockets_never_arrive(
    ws: Path, listeners: tuple[str, str, list[socket.socket]], mode: str
) -> None:
    path, abstract, sockets = listeners
    result = run([PY, "-c", SENDER, path, abstract], ws, mode)
    # The command has exited: anything it managed to send is queued by now.
    assert _received(sockets) == [], result.output
    for label in (
        "sendto-path",
        "sendmsg-path",
        "sendmsg-abstract",
        "pair-sendmsg-path",
        "pair-sendmsg-abstract",
    ):
        assert f"{label} refused: [Errno 1] Operation not permitted" in result.output, result.output
    assert "stream pair: ping" in result.output
