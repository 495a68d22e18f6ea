"""The test MCP server (`mcp_server.py`) behind OAuth, with its own authorization server, on
127.0.0.1: `python tests/support/oauth_mcp_server.py` prints `READY <url>` once it listens.

Without `Authorization: Bearer <token>` (a token this server issued) the MCP endpoint answers
401 with `WWW-Authenticate` naming its protected-resource metadata. The authorization server
offers dynamic client registration; `/authorize` checks the client, the redirect URI and a
S256 PKCE challenge and redirects at once (no consent page: the test is the browser); `/token`
checks the code, the verifier and the redirect URI.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

import anyio

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server import server

clients: dict[str, list[str]] = {}
codes: dict[str, dict[str, str]] = {}
tokens: set[str] = set()


async def _body(receive: Any) -> bytes:
    data = b""
    while True:
        message = await receive()
        data += message.get("body", b"")
        if not message.get("more_body"):
            return data


async def _answer(
    send: Any, status: int, body: Any, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    raw = json.dumps(body).encode() if not isinstance(body, bytes) else body
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": raw})


def make_app(base: str) -> Any:
    mcp_app = server.streamable_http_app(host="127.0.0.1")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await mcp_app(scope, receive, send)
            return
        path = scope["path"]
        query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode()).items()}
        if path.startswith("/.well-known/oauth-protected-resource"):
            await _answer(send, 200, {"resource": f"{base}/mcp", "authorization_servers": [base]})
        elif path == "/.well-known/oauth-authorization-server":
            await _answer(
                send,
                200,
                {
                    "issuer": base,
                    "authorization_endpoint": f"{base}/authorize",
                    "token_endpoint": f"{base}/token",
                    "registration_endpoint": f"{base}/register",
                    "code_challenge_methods_supported": ["S256"],
                },
            )
        elif path == "/register":
            request = json.loads(await _body(receive))
            client_id = secrets.token_hex(8)
            clients[client_id] = request["redirect_uris"]
            await _answer(send, 201, {"client_id": client_id, **request})
        elif path == "/authorize":
            if (
                query.get("client_id") not in clients
                or query.get("redirect_uri") not in clients[query["client_id"]]
                or query.get("code_challenge_method") != "S256"
            ):
                await _answer(send, 400, {"error": "invalid_request"})
                return
            code = secrets.token_hex(8)
            codes[code] = query
            target = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
            await _answer(send, 302, b"", ((b"location", target.encode()),))
        elif path == "/token":
            form = {k: v[0] for k, v in parse_qs((await _body(receive)).decode()).items()}
            asked = codes.pop(form.get("code", ""), None)
            verifier = form.get("code_verifier", "").encode()
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")
            if (
                asked is None
                or challenge.decode() != asked["code_challenge"]
                or form.get("redirect_uri") != asked["redirect_uri"]
                or form.get("client_id") != asked["client_id"]
            ):
                await _answer(send, 400, {"error": "invalid_grant"})
                return
            token = "at-" + secrets.token_hex(16)
            tokens.add(token)
            await _answer(
                send, 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
            )
        else:
            headers = dict(scope["headers"])
            presented = headers.get(b"authorization", b"").decode()
            if presented.removeprefix("Bearer ") not in tokens:
                challenge = (
                    f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource"'
                )
                await _answer(
                    send,
                    401,
                    {"error": "invalid_token"},
                    ((b"www-authenticate", challenge.encode()),),
                )
                return
            await mcp_app(scope, receive, send)

    return app


async def _serve() -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.listen(64)  # before READY: an early client waits in the backlog, never refused
    config = uvicorn.Config(make_app(base), log_level="warning", lifespan="on")
    print(f"READY {base}/mcp", flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    anyio.run(_serve)
