"""A lean HTTP/1.1 transport for httpx, built for long SSE responses.

Every streamed token crosses the HTTP layer once. httpx's default stack (httpcore, anyio
streams) spends Python per received chunk on a cancel scope per read and a pause/resume of
the socket per read. `StreamingTransport` reads on an asyncio `Protocol` instead
(`http1.py`), with one idle timer per connection; the bytes themselves, which come from a
peer the engine does not control, are framed and parsed by h11, as in httpx's own stack.

It is an `httpx.AsyncBaseTransport`, so `ModelClient`, its retries and its error handling see
ordinary `httpx.Response`s and httpx exceptions. It speaks what model providers need: http and
https, keep-alive with a small pool, Content-Length, chunked, or read-to-close bodies. Anything
else goes to httpx's own transport: proxies from the environment are mounted by `AsyncClient`
itself, and a loop other than asyncio falls back to it here.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

import httpx

from codex_lsp.model.http1 import Connection, Exchange, Key, ResponseBody, read_head

_IDLE_PER_HOST = 4
_DEFAULT_PORTS = {b"http": 80, b"https": 443}


def http_client(**kwargs: Any) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` whose direct (non-proxied) requests use `StreamingTransport`."""
    return httpx.AsyncClient(transport=StreamingTransport(), **kwargs)


class StreamingTransport(httpx.AsyncBaseTransport):
    """Direct HTTP/1.1 requests over `http1.Connection`s, kept alive per host."""

    def __init__(self) -> None:
        self._idle: dict[Key, list[Connection]] = {}
        self._ssl: ssl.SSLContext | None = None
        self._fallback: httpx.AsyncBaseTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        scheme = url.raw_scheme
        if scheme not in _DEFAULT_PORTS:
            raise httpx.UnsupportedProtocol(
                f"Request URL has an unsupported protocol '{url.scheme}://'.", request=request
            )
        loop = _running_asyncio_loop()
        if loop is None:
            return await self._fallback_transport().handle_async_request(request)
        timeouts = request.extensions.get("timeout") or {}
        key = (scheme, url.raw_host, url.port or _DEFAULT_PORTS[scheme])
        body = await request.aread()
        while True:
            conn = self._checkout(key) or await self._connect(loop, key, timeouts, request)
            exchange = Exchange(conn, request)
            try:
                data = exchange.request_bytes(body)
                await conn.send(data, timeouts.get("write"), request)
                status, headers, version, reason = await read_head(exchange, timeouts, request)
            except httpx.TransportError:
                conn.close()
                # A pooled connection the server had already dropped: try once on a new one.
                if conn.reused and not conn.buffer:
                    continue
                raise
            except BaseException:
                conn.close()
                raise
            break
        stream = ResponseBody(conn, exchange, self.release, timeouts.get("read"))
        return httpx.Response(
            status,
            headers=headers,
            stream=stream,
            request=request,
            extensions={"http_version": version, "reason_phrase": reason},
        )

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for conn in conns:
                conn.close()
        self._idle.clear()
        if self._fallback is not None:
            await self._fallback.aclose()

    # -- connections ---------------------------------------------------------------------

    def _checkout(self, key: Key) -> Connection | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.reusable():
                conn.reused = True
                return conn
            conn.close()
        return None

    def release(self, conn: Connection, reusable: bool) -> None:
        idle = self._idle.setdefault(conn.key, [])
        if reusable and conn.reusable() and len(idle) < _IDLE_PER_HOST:
            idle.append(conn)
        else:
            conn.close()

    async def _connect(
        self,
        loop: asyncio.AbstractEventLoop,
        key: Key,
        timeouts: dict[str, float | None],
        request: httpx.Request,
    ) -> Connection:
        scheme, raw_host, port = key
        host = raw_host.decode("ascii")
        tls = self._ssl_context() if scheme == b"https" else None
        timeout = timeouts.get("connect")
        try:
            async with asyncio.timeout(timeout):
                _, conn = await loop.create_connection(
                    lambda: Connection(loop, key),
                    host.strip("[]"),
                    port,
                    ssl=tls,
                    server_hostname=host.strip("[]") if tls is not None else None,
                )
        except TimeoutError:
            raise httpx.ConnectTimeout(
                f"timed out connecting to {host}:{port}", request=request
            ) from None
        except (OSError, ssl.SSLError) as err:
            raise httpx.ConnectError(str(err) or type(err).__name__, request=request) from err
        return conn

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            # The same trust store httpx would use (certifi, or SSL_CERT_FILE / SSL_CERT_DIR).
            self._ssl = httpx.create_ssl_context()
        return self._ssl

    def _fallback_transport(self) -> httpx.AsyncBaseTransport:
        if self._fallback is None:
            self._fallback = httpx.AsyncHTTPTransport()
        return self._fallback


def _running_asyncio_loop() -> asyncio.AbstractEventLoop | None:
    """The asyncio loop this request runs on; None under another event loop (trio), which
    httpx's own transport serves instead."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
