"""A real HTTP model server on 127.0.0.1 that answers from per-test scripts.

It speaks the Responses API (`POST .../responses`) and Chat Completions
(`POST .../chat/completions`) as SSE over chunked HTTP/1.1, from a stdlib
`ThreadingHTTPServer` on a background thread, so sync tests, async tests and engine
subprocesses all talk to it the same way.

A script is a JSON list of steps, so tests in other languages can drive it too:

* `{"sse": {...event...}}`: one SSE message, `event: <type>` plus `data: <json>`;
* `{"data": {...} | "[DONE]"}`: a `data:`-only message (the Chat Completions style);
* `{"raw": "text"}`: bytes written as they are (for malformed or split SSE);
* any step with `"clock": true`: `{ms}` in its bytes becomes the wall clock (ms since the
  epoch) at the moment it is written, for a page on this machine to measure against; with
  `"clock": "again"`, each `{ms}` becomes, in order, the clocks this response wrote before (a
  finished item repeating the text its deltas streamed);
* `{"stamp_delta": n}`: a text delta `"n:<perf_counter_ns at write>"`, for latency benches;
* `{"stall_s": 2.0}`: pause; before any body step this delays the response headers;
* `{"disconnect": true}`: drop the connection (mid-stream, or before any response);
* `{"headers": {...}}`: extra response headers for the stream (before any body step);
* `{"status": 429, "headers": {...}, "body": "..." | {...}}`: a complete non-SSE response.

Builders for common scripts are in `tests.support.scripted_builders`. In-process tests may also
enqueue a responder, `enqueue_responder(fn)`: `fn(body)` builds the script from the request's
parsed body when the request arrives (to answer with ids the server under test chose).

A script may wait for a request that contains some text (`when`), or for one that offers the
model a tool of some name (`when_tool`; `enqueue_by_tool` gives one answer with a script per
tool, so the same scenario calls whichever shell tool a server offers).

`GET .../models` answers with the catalog set by `set_models` (the shape `{"models": [...]}`
Codex reads from a provider), or 404 like a provider without one. Every HTTP request, model
call or not, is kept in `http_log` (method, path with its query, headers).

CLI, for editor tests: `python -m tests.support.scripted_model --port 0 --script-file F.json`
prints `READY <base_url>`; `POST /_control/enqueue` `{"when"?, "when_tool"?, "script"}` adds a
script, `GET /_control/requests` returns the recorded requests, `POST /_control/models` sets the
catalog, `POST /_control/reset` clears scripts and records.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

Script = list[dict[str, Any]]
Responder = Callable[[Any], Script]

_MODEL_PATHS = ("/responses", "/chat/completions")


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lowercased names
    body: Any  # parsed JSON, or the raw text when it was not JSON
    scripted: bool = True  # False when no script was left to answer it


@dataclass(frozen=True)
class HttpRecord:
    """Any request the server saw: model calls, `/models`, unknown routes (not `/_control`)."""

    method: str
    path: str  # with its query string
    headers: dict[str, str]  # lowercased names


@dataclass(frozen=True)
class _Pending:
    """A script waiting for its request: any request, one containing `when`, or one offering
    a tool `by_tool` names (the script of the first such tool answers it)."""

    when: str | None
    by_tool: tuple[tuple[str, Script], ...]
    script: Script | Responder

    @property
    def conditional(self) -> bool:
        return self.when is not None or bool(self.by_tool)

    def choose(self, raw_body: str, tools: frozenset[str]) -> Script | Responder | None:
        """The script to play for this request, or None if it is not this entry's."""
        if self.when is not None and self.when not in raw_body:
            return None
        if not self.by_tool:
            return self.script
        return next((script for tool, script in self.by_tool if tool in tools), None)


def offered_tools(body: Any) -> frozenset[str]:
    """The names of the tools a Responses or Chat request offers the model."""
    if not isinstance(body, dict) or not isinstance(body.get("tools"), list):
        return frozenset()
    names: set[str] = set()
    for tool in body["tools"]:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")  # Chat Completions nests the name
        name = function.get("name") if isinstance(function, dict) else tool.get("name")
        if isinstance(name, str):
            names.add(name)
    return frozenset(names)


class ScriptedModelServer:
    """The server; use as a context manager or call `start()` / `stop()`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._cond = threading.Condition()
        self._scripts: list[_Pending] = []
        self._requests: list[RecordedRequest] = []
        self._http_log: list[HttpRecord] = []
        self._models: Any = None
        self._httpd: _HttpServer | None = None
        self._thread: threading.Thread | None = None
        # Body steps written to clients so far: a test can see a stream stop advancing when
        # its reader applies backpressure.
        self.steps_streamed = 0

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        if self._httpd is not None:
            return self
        self._httpd = _HttpServer((self._host, self._port), _Handler, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},  # how fast stop() returns
            name="scripted-model",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.stopping.set()  # wakes stalled scripts
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("ScriptedModelServer is not running; call start() first")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    # -- scripts and records -----------------------------------------------------------------

    def enqueue(
        self, script: Script, *, when: str | None = None, when_tool: str | None = None
    ) -> None:
        """Add a script. With `when`, it answers only a request whose body contains that text;
        with `when_tool`, only a request that offers the model a tool of that name."""
        if when_tool is not None:
            self.enqueue_by_tool({when_tool: script}, when=when)
            return
        if not isinstance(script, list):
            raise TypeError("a script is a list of steps (dicts)")
        with self._cond:
            self._scripts.append(_Pending(when, (), list(script)))

    def enqueue_by_tool(self, scripts: dict[str, Script], *, when: str | None = None) -> None:
        """Add one answer for the next request offering any of these tools: the script of the
        first one (in this order) that the request offers. The same scenario can so call
        whichever shell tool each server gives the model."""
        if not scripts or not all(isinstance(s, list) for s in scripts.values()):
            raise TypeError("by-tool scripts are a non-empty {tool name: script} mapping")
        choices = tuple((tool, list(script)) for tool, script in scripts.items())
        with self._cond:
            self._scripts.append(_Pending(when, choices, []))

    def set_models(self, catalog: Any) -> None:
        """Serve `catalog` (JSON) at `GET .../models`; `None` makes that route a 404 again."""
        with self._cond:
            self._models = catalog

    @property
    def models(self) -> Any:
        with self._cond:
            return self._models

    @property
    def http_log(self) -> list[HttpRecord]:
        """Every request seen so far, in order, control requests aside."""
        with self._cond:
            return list(self._http_log)

    def _log_http(self, record: HttpRecord) -> None:
        with self._cond:
            self._http_log.append(record)
            self._cond.notify_all()

    def enqueue_responder(self, responder: Responder, *, when: str | None = None) -> None:
        """Add a script built when its request arrives: `responder(parsed_body)`."""
        with self._cond:
            self._scripts.append(_Pending(when, (), responder))

    @property
    def pending_scripts(self) -> int:
        with self._cond:
            return len(self._scripts)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Model requests received so far (control requests are not recorded)."""
        with self._cond:
            return list(self._requests)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._requests) >= n, timeout):
                raise TimeoutError(
                    f"scripted model server saw {len(self._requests)} request(s), expected {n}"
                )
            return list(self._requests)

    def reset(self) -> None:
        with self._cond:
            self._scripts.clear()
            self._requests.clear()
            self._http_log.clear()

    def _take(self, record: RecordedRequest, raw_body: str) -> Script | Responder | None:
        tools = offered_tools(record.body)
        with self._cond:
            chosen: tuple[int, Script | Responder] | None = None
            for i, pending in enumerate(self._scripts):
                if pending.conditional and (script := pending.choose(raw_body, tools)) is not None:
                    chosen = (i, script)
                    break
            if chosen is None:
                chosen = next(
                    ((i, p.script) for i, p in enumerate(self._scripts) if not p.conditional), None
                )
            script = None
            if chosen is not None:
                del self._scripts[chosen[0]]
                script = chosen[1]
            record.scripted = script is not None
            self._requests.append(record)
            self._cond.notify_all()
            return script


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], handler: type, owner: ScriptedModelServer):
        self.owner = owner
        self.stopping = threading.Event()
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        super().__init__(address, handler)

    def track(self, conn: socket.socket, alive: bool) -> None:
        with self._conns_lock:
            (self._conns.add if alive else self._conns.discard)(conn)

    def close_connections(self) -> None:
        # Keep-alive connections would otherwise hold handler threads after stop().
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up mid-stream is normal here (idle timeouts, cancellation)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HttpServer

    def setup(self) -> None:
        super().setup()
        # Each SSE chunk goes out as it is written, as a streaming API server sends it; with
        # Nagle's algorithm a chunk could wait for the client's delayed ACK (up to 40 ms).
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, True)

    def finish(self) -> None:
        self.server.track(self.connection, False)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        owner = self.server.owner
        if path == "/_control/requests":
            self._send_json(200, [asdict(r) for r in owner.requests])
            return
        if path == "/_control/health":
            self._send_json(200, {"ok": True, "pending": owner.pending_scripts})
            return
        owner._log_http(HttpRecord("GET", self.path, self._headers()))
        catalog = owner.models
        if path.endswith("/models") and catalog is not None:
            self._send_json(200, catalog)
        else:
            self._send_json(404, {"error": {"message": f"no route GET {path}"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode(
            "utf-8", "replace"
        )
        path = urlsplit(self.path).path
        owner = self.server.owner
        if path == "/_control/enqueue":
            try:
                spec = json.loads(raw)
                owner.enqueue(
                    spec["script"], when=spec.get("when"), when_tool=spec.get("when_tool")
                )
            except (ValueError, KeyError, TypeError) as exc:
                self._send_json(400, {"error": {"message": f"bad enqueue body: {exc}"}})
                return
            self._send_json(200, {"ok": True, "pending": owner.pending_scripts})
            return
        if path == "/_control/models":
            try:
                owner.set_models(json.loads(raw))
            except ValueError as exc:
                self._send_json(400, {"error": {"message": f"bad models body: {exc}"}})
                return
            self._send_json(200, {"ok": True})
            return
        if path == "/_control/reset":
            owner.reset()
            self._send_json(200, {"ok": True})
            return
        owner._log_http(HttpRecord("POST", self.path, self._headers()))
        if not path.endswith(_MODEL_PATHS):
            self._send_json(404, {"error": {"message": f"no route POST {path}"}})
            return
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        record = RecordedRequest("POST", path, self._headers(), body)
        script = owner._take(record, raw)
        if callable(script):
            script = script(body)
        if script is None:
            message = (
                f"scripted model server: no script left for POST {path} "
                f"(request #{len(owner.requests)}). Enqueue a script for this request."
            )
            self._send_json(500, {"error": {"message": message, "type": "no_script"}})
            return
        try:
            self._play(script)
        except OSError:
            self.close_connection = True  # the client went away mid-stream

    # -- script playback ---------------------------------------------------------------------

    def _play(self, script: Script) -> None:
        headers: dict[str, str] = {}
        started = False
        clocks: list[bytes] = []
        for step in script:
            if "status" in step:
                if started:
                    raise ValueError("a 'status' step must come before any streamed step")
                self._send_whole(step)
                return
            if "headers" in step:
                headers.update(step["headers"])
            elif "stall_s" in step:
                self.server.stopping.wait(float(step["stall_s"]))
            elif step.get("disconnect"):
                self._drop()
                return
            else:
                if not started:
                    self._start_stream(headers)
                    started = True
                self._write_chunk(_encode_step(step, clocks))
                self.server.owner.steps_streamed += 1
        if not started:
            self._start_stream(headers)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _start_stream(self, headers: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for name, value in headers.items():
            self.send_header(name, str(value))
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _send_whole(self, step: dict[str, Any]) -> None:
        body = step.get("body", "")
        headers = dict(step.get("headers") or {})
        if not isinstance(body, str):
            body = json.dumps(body)
            headers.setdefault("content-type", "application/json")
        data = body.encode("utf-8")
        self.send_response(int(step["status"]))
        headers.setdefault("content-type", "text/plain; charset=utf-8")
        for name, value in headers.items():
            self.send_header(name, str(value))
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_json(self, status: int, payload: Any) -> None:
        self._send_whole({"status": status, "body": payload})


def _encode_step(step: dict[str, Any], clocks: list[bytes]) -> bytes:
    """The step's bytes; `clocks` holds the clocks written so far in this response."""
    if step.get("clock") == "again":
        pieces = _encode_plain(step).split(b"{ms}")
        again = iter(clocks)
        return pieces[0] + b"".join(next(again, b"{ms}") + piece for piece in pieces[1:])
    if step.get("clock"):
        # The wall clock, not perf_counter: a browser compares it with its Date.now().
        now_ms = str(time.time_ns() // 1_000_000).encode()
        clocks.append(now_ms)
        return _encode_plain(step).replace(b"{ms}", now_ms)
    return _encode_plain(step)


def _encode_plain(step: dict[str, Any]) -> bytes:
    if "sse" in step:
        event = step["sse"]
        kind = event.get("type") if isinstance(event, dict) else None
        head = f"event: {kind}\n" if kind else ""
        return f"{head}data: {json.dumps(event)}\n\n".encode()
    if "data" in step:
        data = step["data"]
        text = data if isinstance(data, str) else json.dumps(data)
        return f"data: {text}\n\n".encode()
    if "raw" in step:
        return str(step["raw"]).encode("utf-8")
    if "stamp_delta" in step:
        # A text delta carrying the moment it is written, for latency benches.
        delta = f"{step['stamp_delta']}:{time.perf_counter_ns()}"
        event = {"type": "response.output_text.delta", "item_id": "msg_stamp", "delta": delta}
        return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
    raise ValueError(f"unknown script step: {step!r}")


def load_script_file(server: ScriptedModelServer, path: str) -> None:
    """Enqueue every script in a JSON file: a list of scripts or of {"when"?, "script"}."""
    with open(path, encoding="utf-8") as f:
        entries = json.load(f)
    for entry in entries:
        if isinstance(entry, dict):
            server.enqueue(
                entry["script"], when=entry.get("when"), when_tool=entry.get("when_tool")
            )
        else:
            server.enqueue(entry)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted Responses/Chat model server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script-file", help="JSON list of scripts or {when, script} objects")
    args = parser.parse_args(argv)
    server = ScriptedModelServer(args.host, args.port).start()
    if args.script_file:
        load_script_file(server, args.script_file)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    print(f"READY {server.base_url}", flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
