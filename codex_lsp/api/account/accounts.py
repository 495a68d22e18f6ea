"""`account/*`: who is signed in, signing in (API key or the ChatGPT browser flow), signing out,
and the latest rate limits.

The browser flow finishes on the login server's own thread; its completion is carried back to
the event loop before the client hears `account/login/completed`. A new browser sign-in cancels
one still pending, as the reference server does. The login server (and its HTTP stack) is
imported by the first browser sign-in.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from codex_lsp.api.convert import invalid, plan_type
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INTERNAL_ERROR, ApiError
from codex_lsp.protocol.account.models import (
    ACCOUNT_LOGIN_CANCEL,
    ACCOUNT_LOGIN_START,
    ACCOUNT_LOGOUT,
    ACCOUNT_RATE_LIMITS_READ,
    ACCOUNT_READ,
    AccountLoginCompletedNotification,
    AccountUpdatedNotification,
    ApiKeyAccount,
    ApiKeyLoginAccountParams,
    ApiKeyLoginAccountResponse,
    CancelLoginAccountParams,
    CancelLoginAccountResponse,
    ChatgptAccount,
    ChatgptLoginAccountParams,
    ChatgptLoginAccountResponse,
    GetAccountParams,
    GetAccountRateLimitsParams,
    GetAccountRateLimitsResponse,
    GetAccountResponse,
    LoginAccountParams,
    LoginAccountResponse,
    LogoutAccountParams,
    RateLimitSnapshot,
)
from codex_lsp.store.auth import AuthError, AuthStore

if TYPE_CHECKING:
    from codex_lsp.store.login_server import BrowserLogin

log = logging.getLogger(__name__)

Notify = Callable[[str, BaseModel], None]


class Accounts:
    def __init__(self, codex_home: Path, notify: Notify, config: Callable[[], Any]) -> None:
        self._store = AuthStore(codex_home)
        self._notify = notify
        self._config = config
        self._logins: dict[str, BrowserLogin] = {}
        self.latest_limits: RateLimitSnapshot | None = None

    def read(self) -> GetAccountResponse:
        try:
            info = self._store.read()
        except AuthError as err:
            raise ApiError(INTERNAL_ERROR, str(err)) from None
        account: Any = None
        if info is not None and info.mode == "chatgpt":
            account = ChatgptAccount(email=info.email, plan_type=plan_type(info.plan_type))
        elif info is not None:
            account = ApiKeyAccount()
        return GetAccountResponse(
            account=account, requires_openai_auth=self._requires_openai_auth()
        )

    async def refresh(self) -> None:
        """Renew a ChatGPT sign-in's tokens now (`account/read {refreshToken: true}`); like
        codex, a failure is logged and the account is read as it is stored."""
        from codex_lsp.model.transport import http_client
        from codex_lsp.store.token_refresh import RefreshFailed, TokenRefresher

        try:
            issuer = getattr(self._config(), "login_issuer", None)
        except Exception:  # an unloadable config: the default issuer
            issuer = None
        refresher = TokenRefresher(self._store, issuer=issuer)
        http = http_client()
        try:
            await refresher.refresh(http)
        except RefreshFailed as err:
            log.warning("failed to refresh the sign-in while reading the account: %s", err)
        finally:
            await http.aclose()

    def _requires_openai_auth(self) -> bool:
        try:
            return bool(self._config().provider().requires_openai_auth)
        except Exception:  # an unloadable config is reported by the requests that need it
            return True

    async def login(self, params: LoginAccountParams) -> LoginAccountResponse:
        request = params.root
        if isinstance(request, ApiKeyLoginAccountParams):
            try:
                self._store.login_api_key(request.api_key)
            except AuthError as err:
                raise invalid("apiKey", str(err)) from None
            self._notify("account/login/completed", AccountLoginCompletedNotification(success=True))
            self._notify("account/updated", AccountUpdatedNotification(auth_mode="apikey"))
            return LoginAccountResponse(ApiKeyLoginAccountResponse())
        if isinstance(request, ChatgptLoginAccountParams):
            return LoginAccountResponse(self._browser_login())
        raise invalid(
            "type", f"sign-in type {request.type!r} is not supported here; use apiKey or chatgpt"
        )

    def _browser_login(self) -> ChatgptLoginAccountResponse:
        from codex_lsp.store.login_server import DEFAULT_ISSUER, BrowserLogin

        for pending in list(self._logins.values()):
            pending.cancel()
        loop = asyncio.get_running_loop()
        issuer = getattr(self._config(), "login_issuer", None) or DEFAULT_ISSUER

        def completed(login_id: str, success: bool, error: str | None) -> None:
            # Called on the login server's thread: hop back onto the loop.
            loop.call_soon_threadsafe(self._login_completed, login_id, success, error)

        login = BrowserLogin(self._store, issuer=issuer, on_complete=completed)
        login_id, url = login.start()
        self._logins[login_id] = login
        return ChatgptLoginAccountResponse(login_id=login_id, auth_url=url)

    def _login_completed(self, login_id: str, success: bool, error: str | None) -> None:
        self._logins.pop(login_id, None)
        completed = AccountLoginCompletedNotification(
            login_id=login_id, success=success, error=error
        )
        self._notify("account/login/completed", completed)
        if success:
            update = AccountUpdatedNotification(auth_mode="chatgpt")
            try:
                info = self._store.read()
            except AuthError:
                info = None
            if info is not None and info.plan_type:
                update.plan_type = plan_type(info.plan_type)
            self._notify("account/updated", update)

    def cancel(self, params: CancelLoginAccountParams) -> CancelLoginAccountResponse:
        login = self._logins.pop(params.login_id, None)
        if login is None or not login.cancel():
            return CancelLoginAccountResponse(status="notFound")
        return CancelLoginAccountResponse(status="canceled")

    def logout(self) -> None:
        try:
            self._store.logout()
        except OSError as err:
            raise ApiError(
                INTERNAL_ERROR, f"cannot remove {self._store.path}: {err.strerror}"
            ) from None
        self._notify("account/updated", AccountUpdatedNotification())

    def rate_limits(self) -> GetAccountRateLimitsResponse:
        # Limits arrive with model responses; before the first one nothing is known yet.
        snapshot = self.latest_limits or RateLimitSnapshot(limit_id="codex")
        return GetAccountRateLimitsResponse(rate_limits=snapshot)

    def note_limits(self, snapshot: RateLimitSnapshot) -> None:
        self.latest_limits = snapshot

    def close(self) -> None:
        for login in list(self._logins.values()):
            login.cancel()
        self._logins.clear()


def handlers(ctx: ApiContext) -> Routes:
    made: list[Accounts] = []

    def accounts() -> Accounts:
        if not made:
            home = ctx.services().codex_home
            made.append(Accounts(home, ctx.client.notify, lambda: ctx.services().config))
        return made[0]

    async def close() -> None:
        if made:
            made[0].close()

    ctx.closers.append(close)
    ctx.limit_listeners.append(lambda snapshot: accounts().note_limits(snapshot))

    async def read(params: GetAccountParams, _raw: dict[str, Any]) -> GetAccountResponse:
        if params.refresh_token:
            await accounts().refresh()
        return accounts().read()

    async def login(params: LoginAccountParams, _raw: dict[str, Any]) -> LoginAccountResponse:
        return await accounts().login(params)

    async def cancel(
        params: CancelLoginAccountParams, _raw: dict[str, Any]
    ) -> CancelLoginAccountResponse:
        return accounts().cancel(params)

    async def logout(_params: LogoutAccountParams, _raw: dict[str, Any]) -> None:
        accounts().logout()

    async def rate_limits(
        _params: GetAccountRateLimitsParams, _raw: dict[str, Any]
    ) -> GetAccountRateLimitsResponse:
        return accounts().rate_limits()

    return (
        Routes()
        .on(ACCOUNT_READ, read)
        .on(ACCOUNT_LOGIN_START, login)
        .on(ACCOUNT_LOGIN_CANCEL, cancel)
        .on(ACCOUNT_LOGOUT, logout)
        .on(ACCOUNT_RATE_LIMITS_READ, rate_limits)
    )
