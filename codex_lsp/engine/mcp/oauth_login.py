"""MCP authorization for a streamable HTTP server: sign in with OAuth 2.1 as MCP specifies.

The server's protected-resource metadata names its authorization server (without it, the
server's own origin is taken); that server's metadata gives the endpoints. A client is
registered dynamically when the server offers it. The user then signs in in a browser:
authorization code with PKCE (S256) and a `state`, redirected to a one-shot listener on
127.0.0.1. The tokens go to `store/mcp_credentials.py`; none of them is ever logged or put
into an error message.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2

from codex_lsp.store.mcp_credentials import store_tokens

TIMEOUT_S = 30.0


class OAuthError(RuntimeError):
    """Sign-in could not go on; the message says why (never with a token in it)."""


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _well_known(base: str, suffix: str) -> list[str]:
    parts = urlsplit(base)
    path = parts.path.rstrip("/")
    found = [f"{_origin(base)}/.well-known/{suffix}{path}"] if path else []
    return [*found, f"{_origin(base)}/.well-known/{suffix}"]


def _first_json(http: httpx2.Client, urls: list[str]) -> dict[str, Any] | None:
    for url in urls:
        try:
            answer = http.get(url)
        except httpx2.HTTPError:
            continue
        if answer.status_code == 200:
            try:
                data = answer.json()
            except ValueError:
                continue
            if isinstance(data, dict):
                return data
    return None


def discover(http: httpx2.Client, server_url: str) -> dict[str, Any]:
    """The authorization server's metadata for the MCP server at `server_url`."""
    resource = _first_json(http, _well_known(server_url, "oauth-protected-resource"))
    issuers = (resource or {}).get("authorization_servers") or [_origin(server_url)]
    issuer = str(issuers[0])
    metadata = _first_json(
        http,
        _well_known(issuer, "oauth-authorization-server")
        + _well_known(issuer, "openid-configuration"),
    )
    if metadata is None or "authorization_endpoint" not in metadata:
        raise OAuthError(f"{server_url} does not say how to sign in (no OAuth metadata found)")
    if "token_endpoint" not in metadata:
        raise OAuthError(f"the authorization server {issuer} names no token endpoint")
    return metadata


@dataclass
class _Callback:
    params: dict[str, str] = field(default_factory=dict)
    arrived: threading.Event = field(default_factory=threading.Event)


def _listener(callback: _Callback) -> HTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path != "/callback":
                self.send_error(404)
                return
            query = parse_qs(parts.query)
            callback.params = {key: values[0] for key, values in query.items()}
            body = b"Signed in: you can close this page and go back to your editor.\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            callback.arrived.set()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the request line carries the authorization code

    return HTTPServer(("127.0.0.1", 0), Handler)


class LoginFlow:
    """One sign-in: `authorization_url` for the browser, then `finish()` waits for the
    redirect, exchanges the code and stores the tokens."""

    def __init__(self, home: Path, name: str, server_url: str, scopes: list[str]) -> None:
        self._home, self._name, self._server_url = home, name, server_url
        self._http = httpx2.Client(timeout=TIMEOUT_S)
        self._callback = _Callback()
        self._listener = _listener(self._callback)
        port = self._listener.server_address[1]
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        try:
            self._metadata = discover(self._http, server_url)
            self._client_id = self._register()
        except BaseException:
            self.close()
            raise
        self._verifier = secrets.token_urlsafe(48)
        self._state = secrets.token_urlsafe(24)
        challenge = (
            base64.urlsafe_b64encode(hashlib.sha256(self._verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        query = {
            "response_type": "code",
            "client_id": self._client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": self._state,
            "resource": server_url,
        }
        if scopes:
            query["scope"] = " ".join(scopes)
        self.authorization_url = f"{self._metadata['authorization_endpoint']}?{urlencode(query)}"
        self._thread = threading.Thread(target=self._listener.serve_forever, daemon=True)
        self._thread.start()

    def _register(self) -> str:
        endpoint = self._metadata.get("registration_endpoint")
        if not endpoint:
            return "codex-lsp"
        answer = self._http.post(
            endpoint,
            json={
                "client_name": "codex-lsp",
                "redirect_uris": [self.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            },
        )
        if answer.status_code not in (200, 201):
            raise OAuthError(f"client registration was refused (HTTP {answer.status_code})")
        client_id = answer.json().get("client_id")
        if not isinstance(client_id, str) or not client_id:
            raise OAuthError("client registration returned no client_id")
        return client_id

    def finish(self, timeout: float) -> None:
        try:
            if not self._callback.arrived.wait(timeout):
                raise OAuthError("no sign-in arrived before the timeout")
            params = self._callback.params
            if params.get("state") != self._state:
                raise OAuthError("the sign-in answer does not belong to this sign-in (state)")
            if "code" not in params:
                raise OAuthError(f"sign-in refused: {params.get('error', 'no code returned')}")
            answer = self._http.post(
                self._metadata["token_endpoint"],
                data={
                    "grant_type": "authorization_code",
                    "code": params["code"],
                    "redirect_uri": self.redirect_uri,
                    "client_id": self._client_id,
                    "code_verifier": self._verifier,
                    "resource": self._server_url,
                },
            )
            if answer.status_code != 200:
                raise OAuthError(f"the token endpoint refused the code (HTTP {answer.status_code})")
            tokens = answer.json()
            if not isinstance(tokens, dict) or not tokens.get("access_token"):
                raise OAuthError("the token endpoint returned no access token")
            tokens["client_id"] = self._client_id
            store_tokens(self._home, self._name, self._server_url, tokens)
        finally:
            self.close()

    def close(self) -> None:
        self._listener.shutdown() if hasattr(self, "_thread") else None
        self._listener.server_close()
        self._http.close()
