"""Browser sign-in: OAuth authorization code with PKCE and a callback server on 127.0.0.1.

`start()` opens the callback server on an ephemeral port and returns the URL to open in the
browser. The issuer redirects the browser to `/auth/callback?code=..&state=..`; the code is
exchanged at `{issuer}/oauth/token` with the PKCE verifier and the tokens are stored in
`auth.json`. Completion is reported once, as `(success, error)`, through `on_complete` or
`wait()`. Request logging is off: the callback URL carries the authorization code.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from codex_lsp.store.auth import AuthStore

DEFAULT_ISSUER = "https://auth.openai.com"
DEFAULT_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
CALLBACK_PATH = "/auth/callback"
SCOPE = "openid profile email offline_access"
# Parameters OpenAI's issuer expects from a Codex client, beyond standard OAuth.
DEFAULT_EXTRA_PARAMS = {"id_token_add_organizations": "true", "codex_cli_simplified_flow": "true"}
DEFAULT_TIMEOUT_S = 600.0

log = logging.getLogger(__name__)

_SUCCESS_PAGE = b"<html><body><h1>Signed in</h1><p>You can close this window.</p></body></html>"


@dataclass(frozen=True, slots=True)
class LoginResult:
    success: bool
    error: str | None = None


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge): 64 random bytes, base64url without padding."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(64)).decode().rstrip("=")
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


class BrowserLogin:
    """One sign-in attempt. Create, `start()`, then wait for completion or `cancel()`."""

    def __init__(
        self,
        store: AuthStore,
        *,
        issuer: str = DEFAULT_ISSUER,
        client_id: str = DEFAULT_CLIENT_ID,
        port: int = 0,
        timeout: float = DEFAULT_TIMEOUT_S,
        on_complete: Callable[[str, bool, str | None], None] | None = None,
        extra_params: dict[str, str] | None = None,
        http_timeout: float = 30.0,
    ) -> None:
        self.login_id = str(uuid.uuid4())
        self._store = store
        self._issuer = issuer.rstrip("/")
        self._client_id = client_id
        self._port = port
        self._timeout = timeout
        self._on_complete = on_complete
        self._extra = DEFAULT_EXTRA_PARAMS if extra_params is None else extra_params
        self._http_timeout = http_timeout
        self._verifier, self._challenge = pkce_pair()
        self._state = secrets.token_urlsafe(32)
        self._future: Future[LoginResult] = Future()
        self._finished = False
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._timer: threading.Timer | None = None
        self.redirect_uri = ""
        self.auth_url = ""

    def __repr__(self) -> str:
        return f"BrowserLogin(login_id={self.login_id!r}, done={self.done})"

    @property
    def done(self) -> bool:
        return self._finished

    def start(self) -> tuple[str, str]:
        """Start the callback server; returns `(login_id, auth_url)`."""
        if self._server is not None:
            raise RuntimeError("this sign-in was already started")
        server = ThreadingHTTPServer(("127.0.0.1", self._port), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        port = server.server_address[1]
        self.redirect_uri = f"http://localhost:{port}{CALLBACK_PATH}"
        query = {
            "response_type": "code",
            "client_id": self._client_id,
            "redirect_uri": self.redirect_uri,
            "scope": SCOPE,
            "code_challenge": self._challenge,
            "code_challenge_method": "S256",
            **self._extra,
            "state": self._state,
        }
        self.auth_url = f"{self._issuer}/oauth/authorize?{urlencode(query)}"
        # A short poll interval lets cancel() free the port promptly.
        threading.Thread(
            target=server.serve_forever,
            args=(0.05,),
            name=f"login-{self.login_id[:8]}",
            daemon=True,
        ).start()
        self._timer = threading.Timer(self._timeout, self._finish, (False, "sign-in timed out"))
        self._timer.daemon = True
        self._timer.start()
        return self.login_id, self.auth_url

    def cancel(self) -> bool:
        """Stop waiting; True if the sign-in was still pending."""
        return self._finish(False, "sign-in canceled")

    def wait(self, timeout: float | None = None) -> LoginResult:
        return self._future.result(timeout)

    # -- the callback ----------------------------------------------------------------------

    def _handle_callback(self, query: str) -> tuple[int, bytes, LoginResult | None]:
        """Process `/auth/callback`: the HTTP status and page for the browser, and the outcome.

        The outcome is reported only after the page has been sent (see the handler), so a
        process that exits as soon as the sign-in completes still answers the browser.
        """
        if self.done:
            return 410, b"This sign-in is no longer pending.", None
        params = {key: values[0] for key, values in parse_qs(query).items()}
        if "error" in params:
            reason = params.get("error_description") or params["error"]
            failed = LoginResult(False, f"sign-in failed: {reason}")
            return 400, b"Sign-in failed. You can close this window.", failed
        state = params.get("state", "")
        if not secrets.compare_digest(state.encode(), self._state.encode()):
            mismatch = LoginResult(
                False, "state mismatch: the callback did not come from this sign-in"
            )
            return 400, b"State mismatch. Start the sign-in again.", mismatch
        code = params.get("code")
        if not code:
            return (
                400,
                b"Missing authorization code.",
                LoginResult(False, "the callback carried no authorization code"),
            )
        error = self._exchange(code)
        if error is not None:
            page = b"Sign-in failed while exchanging the code. You can close this window."
            return 500, page, LoginResult(False, error)
        return 200, _SUCCESS_PAGE, LoginResult(True, None)

    def _exchange(self, code: str) -> str | None:
        """Trade the code for tokens and store them; an error message (without secrets) or None."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "client_id": self._client_id,
            "code_verifier": self._verifier,
        }
        try:
            response = httpx.post(
                f"{self._issuer}/oauth/token", data=form, timeout=self._http_timeout
            )
        except httpx.HTTPError as err:
            return f"token exchange failed: {type(err).__name__} contacting {self._issuer}"
        if response.status_code != 200:
            detail = ""
            try:
                body = response.json()
                if isinstance(body, dict) and isinstance(body.get("error"), str):
                    detail = f" ({body['error'][:100]})"
            except ValueError:
                pass
            return f"token exchange failed: HTTP {response.status_code}{detail}"
        try:
            tokens = response.json()
        except ValueError:
            return "token exchange failed: the issuer's answer is not JSON"
        id_token, access = tokens.get("id_token"), tokens.get("access_token")
        if not isinstance(id_token, str) or not isinstance(access, str):
            return "token exchange failed: the answer lacks id_token or access_token"
        refresh = tokens.get("refresh_token")
        try:
            self._store.login_tokens(
                id_token=id_token,
                access_token=access,
                refresh_token=refresh if isinstance(refresh, str) else None,
            )
        except OSError as err:
            return f"could not save the sign-in to {self._store.path}: {err.strerror}"
        return None

    def _finish(self, success: bool, error: str | None) -> bool:
        with self._lock:
            if self._finished:
                return False
            self._finished = True
            timer, server = self._timer, self._server
        if timer is not None:
            timer.cancel()
        if server is not None:
            # Not from the serving thread itself; and the page being answered still goes out.
            threading.Thread(target=_stop_server, args=(server,), daemon=True).start()
        if self._on_complete is not None:
            try:
                self._on_complete(self.login_id, success, error)
            except Exception:
                log.exception("sign-in completion callback failed")
        # Last: whoever waits on the result finds the callback already run.
        self._future.set_result(LoginResult(success, error))
        return True


def _stop_server(server: ThreadingHTTPServer) -> None:
    server.shutdown()
    server.server_close()


def _handler_for(login: BrowserLogin) -> type[BaseHTTPRequestHandler]:
    class CallbackHandler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path != CALLBACK_PATH:
                self._reply(404, b"Not found")
                return
            status, page, outcome = login._handle_callback(parts.query)
            try:
                self._reply(status, page)
            finally:
                if outcome is not None:
                    login._finish(outcome.success, outcome.error)

        def _reply(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            # The request line holds the authorization code: never log it.
            return

    return CallbackHandler
