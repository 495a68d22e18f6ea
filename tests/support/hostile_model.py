"""A model server on 127.0.0.1 that answers with whatever bytes a test generates.

The scripted server builds each answer in memory; a hostile stream (hundreds of MiB with no
line end, one giant delta) must not, or the test's own process would grow with it and the
engine's memory could not be measured. Each answer here is a generator of byte blocks written
as they are produced, after a plain HTTP/1.1 200 head; the body ends when the connection does.
Requests are answered in order, one generator each; a request with none left gets a short
text answer.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable, Iterator

Body = Callable[[], Iterable[bytes]]

_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"cache-control: no-cache\r\nconnection: close\r\n\r\n"
)


def sse(event: dict[str, object]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def text_answer(text: str) -> Iterator[bytes]:
    yield sse({"type": "response.created", "response": {"id": "resp_ok"}})
    item = {
        "type": "message",
        "id": "msg_ok",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }
    yield sse({"type": "response.output_item.done", "item": item})
    yield sse({"type": "response.completed", "response": {"id": "resp_ok"}})


def chat_text_answer(text: str) -> Iterator[bytes]:
    chunk = {"id": "chat_ok", "choices": [{"delta": {"content": text}, "finish_reason": "stop"}]}
    yield f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


def repeated(prefix: bytes, block: bytes, total: int, suffix: bytes = b"") -> Iterator[bytes]:
    """`prefix`, then `block` again and again up to `total` bytes, then `suffix`: a huge body
    from one small block."""
    yield prefix
    sent = 0
    while sent < total:
        yield block
        sent += len(block)
    yield suffix


class HostileModelServer:
    """`with HostileModelServer() as server:` then `server.answer(lambda: generator)`."""

    def __init__(self, *, extra_head: bytes = b"") -> None:
        self._head = _HEAD[:-2] + extra_head + b"\r\n"
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._bodies: list[Body] = []
        self._lock = threading.Lock()
        self.requests = 0
        self.sent: list[int] = []  # bytes of body written, per answered request
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def answer(self, body: Body) -> None:
        with self._lock:
            self._bodies.append(body)

    def __enter__(self) -> HostileModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            if not _read_request(conn):
                return
            with self._lock:
                self.requests += 1
                body = self._bodies.pop(0) if self._bodies else None
            blocks = body() if body is not None else text_answer("fallback answer")
            sent = 0
            try:
                conn.sendall(self._head)
                for block in blocks:
                    conn.sendall(block)
                    sent += len(block)
            except OSError:
                pass  # the engine stopped reading: what a bounded client does
            finally:
                with self._lock:
                    self.sent.append(sent)


def _read_request(conn: socket.socket) -> bool:
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return False
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        more = conn.recv(65536)
        if not more:
            return False
        body += more
    return True
