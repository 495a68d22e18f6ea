"""`StreamingTransport`, the HTTP/1.1 transport under the model client, against raw servers
that misbehave on purpose: bodies cut anywhere, pooled connections the server dropped, stalls,
early closes, interim responses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import httpx
import pytest

from codex_lsp.model.http1 import Connection, Exchange, ResponseBody, read_head
from codex_lsp.model.transport import StreamingTransport, http_client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def chunked(*parts: bytes, trailer: bytes = b"") -> bytes:
    body = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(part), part) for part in parts)
    return body + b"0\r\n" + trailer + b"\r\n"


async def test_a_chunked_body_decodes_the_same_however_it_is_split() -> None:
    parts = [b"data: one\n\n", b"data: " + b"x" * 40 + b"\n\n", b"\r\n tricky \r\n"]
    wire = chunked(*parts, trailer=b"X-Trailer: yes\r\n")
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    loop = asyncio.get_running_loop()
    request = httpx.Request("POST", "http://127.0.0.1/x", content=b"{}")
    for first in range(len(wire) + 1):
        for second in range(first, len(wire) + 1, 7):
            conn = Connection(loop, (b"http", b"127.0.0.1", 80))
            exchange = Exchange(conn, request)
            exchange.request_bytes(b"{}")
            conn.data_received(head)
            await read_head(exchange, {}, request)
            released: list[bool] = []
            release = lambda _, keep, seen=released: seen.append(keep)  # noqa: E731
            body = ResponseBody(conn, exchange, release, None)
            out: list[bytes] = []

            async def drain(body: ResponseBody = body, out: list[bytes] = out) -> None:
                async for data in body:
                    out.append(data)

            reader = asyncio.ensure_future(drain())
            for piece in (wire[:first], wire[first:second], wire[second:]):
                if piece:
                    conn.data_received(piece)
                for _ in range(3):
                    await asyncio.sleep(0)
            await asyncio.wait_for(reader, 1)
            assert b"".join(out) == b"".join(parts), (first, second)
            assert released == [True]  # ended cleanly: the connection can be reused


async def _request_head(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        ),
        0,
    )
    await reader.readexactly(length)
    return head


@asynccontextmanager
async def serve(handler: Handler) -> AsyncIterator[tuple[str, list[int]]]:
    """A raw TCP server on localhost; yields its URL and the count of connections made."""
    connections = [0]

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections[0] += 1
        try:
            await handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", connections
    finally:
        server.close()


async def test_keep_alive_reuses_one_connection_and_survives_the_server_dropping_it() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(2):  # two requests per connection, then the server hangs up
            await _request_head(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
            await writer.drain()

    async with serve(handler) as (url, connections), http_client() as client:
        for _ in range(3):
            response = await client.post(url + "/v1/responses", content=b"{}")
            assert response.status_code == 200 and response.text == "hello"
            await asyncio.sleep(0.05)  # let the server's close arrive
        # Requests 1 and 2 shared a connection; 3 found it closed and opened another.
        assert connections[0] == 2


async def test_a_stale_pooled_connection_is_retried_once_on_a_fresh_one() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        # Read the next request, then drop the connection without answering.
        await _request_head(reader)

    async with serve(handler) as (url, connections), http_client() as client:
        assert (await client.post(url, content=b"a")).text == "ok"
        assert (await client.post(url, content=b"b")).text == "ok"
        assert connections[0] == 2


async def test_streams_interim_responses_and_read_to_close_bodies() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A: 1\r\n\r\nfirst ")
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(b"second")
        await writer.drain()

    async with (
        serve(handler) as (url, _),
        http_client() as client,
        client.stream("POST", url, content=b"{}") as response,
    ):
        assert response.status_code == 200 and response.headers["x-a"] == "1"
        pieces = [piece async for piece in response.aiter_bytes()]
    assert b"".join(pieces) == b"first second" and len(pieces) == 2


async def test_a_chunked_stream_is_handed_on_as_it_arrives() -> None:
    release = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")
        await writer.drain()
        await release.wait()
        writer.write(b"lo\r\n0\r\n\r\n")
        await writer.drain()

    async with (
        serve(handler) as (url, _),
        http_client() as client,
        client.stream("POST", url, content=b"{}") as response,
    ):
        pieces = response.aiter_bytes()
        assert await pieces.__anext__() == b"hel"  # part of a chunk, not held back
        release.set()
        assert [piece async for piece in pieces] == [b"lo"]


async def test_failures_map_to_the_httpx_exceptions_the_client_handles() -> None:
    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
        await writer.drain()
        await asyncio.sleep(5)

    async with (
        serve(stall) as (url, _),
        http_client() as client,
        client.stream("POST", url, content=b"{}", timeout=httpx.Timeout(5, read=0.2)) as response,
    ):
        with pytest.raises(httpx.ReadTimeout):
            async for _ in response.aiter_bytes():
                pass

    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
        await writer.drain()

    async with (
        serve(cut) as (url, _),
        http_client() as client,
        client.stream("POST", url, content=b"{}") as response,
    ):
        with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
            async for _ in response.aiter_bytes():
                pass

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)

    async with serve(silent) as (url, _), http_client() as client:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.post(url, content=b"{}")

    async with serve(silent) as (url, _):
        pass  # closed: nothing listens on its port any more
    async with http_client() as client:
        with pytest.raises(httpx.ConnectError):
            await client.post(url, content=b"{}")
        with pytest.raises(httpx.UnsupportedProtocol):
            await client.post("ftp://127.0.0.1/x", content=b"{}")


async def test_aclose_closes_idle_connections() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        assert await reader.read() == b""  # the client hung up

    transport = StreamingTransport()
    async with serve(handler) as (url, _):
        async with httpx.AsyncClient(transport=transport) as client:
            assert (await client.post(url, content=b"")).status_code == 200
            assert sum(len(idle) for idle in transport._idle.values()) == 1
        assert not transport._idle


def _self_signed(tmp_path) -> tuple[str, str]:
    """A certificate for `localhost` (and its key), made here: the test trusts only it."""
    import datetime

    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_path), str(key_path)


async def test_https_with_the_trust_store_httpx_would_use(tmp_path, monkeypatch) -> None:
    import ssl

    cert, key = _self_signed(tmp_path)
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(b"secure"))
        await writer.drain()

    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=server_ctx)
    port = server.sockets[0].getsockname()[1]
    try:
        # Unknown to the default trust store: refused, as httpx itself would.
        async with http_client() as client:
            with pytest.raises(httpx.ConnectError):
                await client.post(f"https://localhost:{port}/v1", content=b"{}")
        monkeypatch.setenv("SSL_CERT_FILE", cert)
        async with http_client() as client:
            response = await client.post(f"https://localhost:{port}/v1", content=b"{}")
        assert response.status_code == 200 and response.text == "secure"
    finally:
        server.close()
