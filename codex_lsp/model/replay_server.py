"""A model server on 127.0.0.1 that answers from a recording, for replaying a thread offline.

Each request gets the next recorded exchange's answer, byte for byte: the status, the headers
that matter and the body (an SSE stream as it arrived). An attempt that got no answer when it
was recorded gets none now: the connection is dropped, so the client retries as it did then.
The real `ModelClient` talks to it over real HTTP; nothing in the client knows it is a replay.

Each request is also compared with the recorded one: a different path, or different tool
output fed back to the model, is noted in `differences`, since past that point the replay
may no longer follow the recording.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from http import HTTPStatus
from typing import Any

from codex_lsp.model.recording import Exchange, Recording

logger = logging.getLogger(__name__)

BASE_PATH = "/v1"
_MAX_HEAD = 64 * 1024
# Framing is the server's own: these recorded headers no longer describe the body sent.
_HOP_HEADERS = frozenset({"content-length", "transfer-encoding", "connection", "content-encoding"})


# How long a tool took, and the id a command's output chunk got, are never the same twice and
# say nothing about where the thread went.
_VOLATILE = re.compile(r"Wall time: [0-9.]+ seconds|Chunk ID: [0-9a-f]+")


def _outputs(body: Any) -> list[tuple[str, str]]:
    """(call id, output text) of every tool output in a request body, in order, times left
    out."""
    items = body.get("input") if isinstance(body, dict) else None
    found: list[tuple[str, str]] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get("type", "")).endswith("_output"):
            output = item.get("output")
            text = output if isinstance(output, str) else json.dumps(output, sort_keys=True)
            found.append((str(item.get("call_id")), _VOLATILE.sub("-", text)))
    return found


class ReplayServer:
    def __init__(self, recording: Recording) -> None:
        self._exchanges = list(recording.exchanges)
        self._next = 0
        self._server: asyncio.Server | None = None
        self.differences: list[str] = []
        # Tool calls whose output was already noted as different (later requests repeat it).
        self._differing: set[str] = set()
        self.base_url = ""

    @property
    def served(self) -> int:
        return self._next

    @property
    def unserved(self) -> int:
        """Recorded exchanges the replay never asked for."""
        return len(self._exchanges) - self._next

    async def start(self) -> str:
        """Listen on a free port of 127.0.0.1; returns the base URL to configure."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}{BASE_PATH}"
        return self.base_url

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await self._read_request(reader)
            if request is None:
                return
            method, path, body = request
            await self._answer(writer, method, path, body)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _read_request(self, reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > _MAX_HEAD:
            return None
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) < 2:
            return None
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip() or 0)
        body = await reader.readexactly(length) if length else b""
        return parts[0], parts[1].split("?", 1)[0], body

    async def _answer(
        self, writer: asyncio.StreamWriter, method: str, path: str, body: bytes
    ) -> None:
        number = self._next + 1
        if self._next >= len(self._exchanges):
            self.differences.append(
                f"request {number} ({method} {path}) was not in the recording, which has "
                f"{len(self._exchanges)}"
            )
            await self._send(writer, 500, {}, _error("the recording has no more responses"))
            return
        exchange = self._exchanges[self._next]
        self._next += 1
        self._compare(number, method, path, body, exchange)
        response = exchange.response
        if response.error is not None:
            return  # no answer came when it was recorded: drop the connection
        await self._send(writer, response.status, response.headers, response.body.encode())

    def _compare(
        self, number: int, method: str, path: str, body: bytes, exchange: Exchange
    ) -> None:
        recorded = exchange.request
        wanted = f"{BASE_PATH}{recorded.path}"
        if (method, path) != (recorded.method, wanted):
            self.differences.append(
                f"request {number} went to {method} {path}; the recording has "
                f"{recorded.method} {wanted}"
            )
            return
        try:
            sent = json.loads(body or b"null")
        except json.JSONDecodeError:
            return
        for (call_id, now), (then_id, then) in zip(
            _outputs(sent), _outputs(recorded.body), strict=False
        ):
            if (call_id != then_id or now != then) and call_id not in self._differing:
                self._differing.add(call_id)
                self.differences.append(
                    f"request {number}: the output of tool call {call_id} differs from the "
                    f"recording (now {now[:200]!r}, then {then[:200]!r})"
                )

    @staticmethod
    async def _send(
        writer: asyncio.StreamWriter, status: int, headers: dict[str, str], body: bytes
    ) -> None:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = "Status"
        lines = [f"HTTP/1.1 {status} {reason}"]
        lines += [f"{k}: {v}" for k, v in headers.items() if k.lower() not in _HOP_HEADERS]
        lines += [f"content-length: {len(body)}", "connection: close", "", ""]
        writer.write("\r\n".join(lines).encode("latin-1") + body)
        await writer.drain()


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": f"replay: {message}", "type": "replay"}}).encode()
