"""An OAuth issuer on 127.0.0.1 for sign-in tests: a token endpoint that checks PKCE, and
answers a refresh (a JSON body with `grant_type: "refresh_token"`) for the token it last gave.

The test plays the browser: it reads the authorize URL the sign-in printed or returned, then
calls the local callback the issuer would redirect to, with `CODE` and the state. Each refresh
request is kept in `refresh_requests` (its JSON body and content type); the first refresh
token it accepts is `refresh_token`, and each refresh gives out new tokens numbered from 1.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

CODE = "auth-code-SECRET-123"


def jwt(claims: dict) -> str:
    def segment(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{segment({'alg': 'none'})}.{segment(claims)}.sig"


class FakeIssuer:
    """An OAuth token endpoint that checks the PKCE verifier against the challenge it saw."""

    def __init__(self, client_id: str) -> None:
        self.client_id = client_id
        self.challenge: str | None = None
        self.token_requests: list[dict[str, str]] = []
        self.fail_with: tuple[int, dict] | None = None
        self.refresh_requests: list[dict] = []
        self.refresh_token = "refresh-SECRET"
        self.refresh_fails_with: tuple[int, dict] | None = None
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length).decode()
                kind = self.headers.get("Content-Type", "")
                if kind.startswith("application/json"):
                    request = json.loads(raw)
                    issuer.refresh_requests.append({"body": request, "content_type": kind})
                    status, body = issuer.answer_refresh(self.path, request)
                else:
                    form = {k: v[0] for k, v in parse_qs(raw).items()}
                    issuer.token_requests.append(form)
                    status, body = issuer.answer(self.path, form)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def answer(self, path: str, form: dict[str, str]) -> tuple[int, dict]:
        if path != "/oauth/token":
            return 404, {"error": "not_found"}
        if self.fail_with is not None:
            return self.fail_with
        digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
        challenge = base64.urlsafe_b64encode(digest).decode().rstrip("=")
        if (
            form.get("grant_type") != "authorization_code"
            or form.get("code") != CODE
            or challenge != self.challenge
            or form.get("client_id") != self.client_id
        ):
            return 400, {"error": "invalid_grant"}
        claims = {
            "email": "dev@example.com",
            "https://api.openai.com/auth": {"chatgpt_plan_type": "plus"},
        }
        return 200, {
            "id_token": jwt(claims),
            "access_token": "access-SECRET",
            "refresh_token": "refresh-SECRET",
        }

    def answer_refresh(self, path: str, request: dict) -> tuple[int, dict]:
        if path != "/oauth/token":
            return 404, {"error": "not_found"}
        if self.refresh_fails_with is not None:
            return self.refresh_fails_with
        if (
            request.get("grant_type") != "refresh_token"
            or request.get("client_id") != self.client_id
            or request.get("refresh_token") != self.refresh_token
        ):
            return 401, {"error": {"code": "refresh_token_reused"}}
        number = len(self.refresh_requests)
        self.refresh_token = f"refresh-SECRET-{number}"
        claims = {
            "email": f"renewed-{number}@example.com",
            "https://api.openai.com/auth": {"chatgpt_plan_type": "pro"},
        }
        return 200, {
            "id_token": jwt(claims),
            "access_token": f"access-SECRET-{number}",
            "refresh_token": self.refresh_token,
        }

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
