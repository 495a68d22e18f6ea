"""`ModelClient`: one streamed sampling request to a model provider, with transport retries.

Two levels of retry exist (§2.5 of the engine notes), and this class does only the first:

* **Transport level, here.** Each HTTP request is retried up to `provider.request_max_retries`
  times when it never got a usable answer: connect errors, timeouts before the headers, 5xx
  (and 408), and 429 when the server says how long to wait. Backoff is `retry.backoff_delay`.
* **Turn level, in the engine.** Once a 2xx stream has started, a failure mid-stream (disconnect,
  idle timeout, `response.failed` with a transient code, ...) raises `ModelError` with
  `retryable=True`. The engine re-runs the whole request with the same `Prompt`, up to
  `provider.effective_stream_retries()` times, emitting `stream_error` "Reconnecting... n/max"
  each time, and sleeping `err.retry_after_s` if set, else `retry.backoff_delay(n)`::

      for attempt in itertools.count(1):
          try:
              async with contextlib.aclosing(client.stream(prompt)) as events:
                  async for event in events:
                      ...
              break
          except ModelError as err:
              if not err.retryable or attempt > provider.effective_stream_retries():
                  raise
              await sleep(err.retry_after_s or backoff_delay(attempt))

  Events already yielded before the failure are not replayed by the server, so the engine
  should discard partial output of the failed attempt before retrying.

A non-retryable `ModelError` is final: show `str(err)` to the user and end the turn.

`list_models` reads the provider's model catalog (`GET {base_url}/models`, Codex's
`{"models": [...]}` shape) once, without retries: a provider without one simply has none.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import Any

import anyio
import httpx

from codex_lsp import __version__
from codex_lsp.model.errors import ModelError, quote_server_text, redact, stream_disconnected
from codex_lsp.model.events import Completed, ResponseEvent
from codex_lsp.model.failures import error_for_code, error_for_status, server_error_fields
from codex_lsp.model.prompt import Prompt
from codex_lsp.model.recording import StreamRecorder
from codex_lsp.model.responses import CLOSED_EARLY_MESSAGE, iter_response_events
from codex_lsp.model.retry import backoff_delay, parse_retry_after, parse_try_again
from codex_lsp.model.transport import http_client
from codex_lsp.protocol.core.providers import ModelProviderInfo
from codex_lsp.store.provider_token import ProviderTokenError, command_token
from codex_lsp.store.secrets import provider_secrets

DEFAULT_BASE_URL = "https://api.openai.com/v1"
ORIGINATOR = "codex_lsp"

# A server asking us to wait longer than this is not going to recover within a turn; failing
# fast with the requested wait lets the user decide instead of staring at a silent editor.
MAX_RETRY_WAIT_S = 60.0
# A catalog is a convenience: a provider slow to give one does not hold up the model picker.
CATALOG_TIMEOUT_S = 5.0

log = logging.getLogger(__name__)

_CONNECT_TIMEOUT_S = 30.0


class ModelClient:
    """Streams `ResponseEvent`s for a `Prompt` from one provider, over its configured wire."""

    def __init__(
        self,
        provider: ModelProviderInfo,
        *,
        api_key: Callable[[], str | None] | None = None,
        http: httpx.AsyncClient | None = None,
        session_id: str | None = None,
        originator: str = ORIGINATOR,
        recorder: StreamRecorder | None = None,
        refresh_auth: Callable[[str | None], Awaitable[bool]] | None = None,
    ) -> None:
        self.provider = provider
        # Renews a sign-in's token: called with None before a request (it refreshes a token
        # about to expire), and with the refused key after a 401 (True: send again). It may
        # raise `ModelError` to say the sign-in cannot be renewed.
        self._refresh_auth = refresh_auth
        self.session_id = session_id
        # Every HTTP attempt, request and answer, is copied here when set (`codex-lsp record`).
        self._recorder = recorder
        self._api_key = api_key
        self._http = http
        self._owns_http = http is None
        self._originator = originator

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client if this object created it."""
        if self._owns_http and self._http is not None:
            await self._http.aclose()
            self._http = None

    @property
    def base_url(self) -> str:
        return (self.provider.base_url or DEFAULT_BASE_URL).rstrip("/")

    async def stream(
        self, prompt: Prompt, *, extra_headers: Mapping[str, str] | None = None
    ) -> AsyncIterator[ResponseEvent]:
        """Events of one response; the last one is `Completed`, or `ModelError` is raised.

        `extra_headers` carries per-request headers such as `x-openai-subagent`.
        """
        if self.provider.wire_api == "chat":
            # The Chat Completions wire is imported by the first provider that speaks it.
            from codex_lsp.model.chat import build_chat_body, iter_chat_events

            url, body, iterate = (
                f"{self.base_url}/chat/completions",
                build_chat_body(prompt),
                iter_chat_events,
            )
        else:
            url, body, iterate = (
                f"{self.base_url}/responses",
                prompt.to_responses_body(),
                iter_response_events,
            )
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            response, secrets = await self._open(url, payload, extra_headers)
        except ModelError as err:
            err.message = redact(err.message, self._secrets(self._resolve_key()))
            raise
        final: Completed | None = None
        try:
            async with aclosing(iterate(response, secrets=secrets)) as events:
                async for event in events:
                    if type(event) is Completed:
                        final = event
                        break
                    yield event
        except ModelError as err:
            err.message = redact(err.message, secrets)
            raise
        finally:
            # Release the connection before handing over `Completed`: callers typically stop
            # iterating there, and an abandoned generator would hold the socket until GC.
            await response.aclose()
        if final is None:
            raise stream_disconnected(CLOSED_EARLY_MESSAGE)
        yield final

    def _base_path(self) -> str:
        return httpx.URL(self.base_url).path.rstrip("/")

    async def list_models(self, client_version: str) -> list[dict[str, Any]] | None:
        """The provider's catalog entries, or None when it has no catalog in Codex's shape (no
        route, an error, another format, unreachable)."""
        headers = self._headers(self._resolve_key(), {"accept": "application/json"})
        headers.pop("content-type", None)
        params = {**(self.provider.query_params or {}), "client_version": client_version}
        try:
            response = await self._client().get(
                f"{self.base_url}/models", headers=headers, params=params, timeout=CATALOG_TIMEOUT_S
            )
        except httpx.HTTPError as exc:
            log.info("no model catalog from %s: %s", self._shown_url(), type(exc).__name__)
            return None
        if response.status_code != 200:
            log.info("no model catalog from %s: HTTP %s", self._shown_url(), response.status_code)
            return None
        try:
            body = response.json()
        except ValueError:
            return None
        models = body.get("models") if isinstance(body, dict) else None
        if not isinstance(models, list):
            return None
        return [entry for entry in models if isinstance(entry, dict)]

    def _shown_url(self) -> str:
        return redact(self.base_url, self._secrets(None))

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = http_client()
        return self._http

    def _resolve_key(self) -> str | None:
        # Called per attempt so a refreshed token is picked up by the next retry.
        if self.provider.auth is not None:
            try:
                return command_token(self.provider.auth)
            except ProviderTokenError as err:
                raise ModelError(str(err), codex_error_info="unauthorized") from None
        key = self._api_key() if self._api_key is not None else None
        return key or self.provider.env_api_key()

    def _headers(self, key: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
        headers = self.provider.resolved_headers()
        headers["originator"] = self._originator
        headers["user-agent"] = f"codex_lsp/{__version__}"
        headers["accept"] = "text/event-stream"
        headers["content-type"] = "application/json"
        if self.session_id:
            headers["session_id"] = self.session_id
        if extra:
            headers.update(extra)
        if key:
            headers["authorization"] = f"Bearer {key}"
        return headers

    def _secrets(self, key: str | None) -> list[str | None]:
        # Everything the provider's table holds or names: headers, static or from the
        # environment (e.g. Azure `api-key`), query values, base_url's password.
        return [key, *provider_secrets(self.provider)]

    def _timeout(self) -> httpx.Timeout:
        # The read timeout doubles as the SSE idle timeout: it fires when no byte arrives.
        idle = self.provider.stream_idle_timeout_ms / 1000.0
        return httpx.Timeout(connect=_CONNECT_TIMEOUT_S, read=idle, write=idle, pool=idle)

    async def _open(
        self, url: str, payload: bytes, extra_headers: Mapping[str, str] | None
    ) -> tuple[httpx.Response, list[str | None]]:
        """POST until a 2xx answer arrives or the transport retry budget runs out."""
        max_retries = self.provider.effective_request_retries()
        attempt = 0
        reauthorized = False
        if self._refresh_auth is not None:
            await self._refresh_auth(None)
        while True:
            key = self._resolve_key()
            secrets = self._secrets(key)
            if key is None and self.provider.env_key:
                raise _missing_key(self.provider)
            client = self._client()
            request = client.build_request(
                "POST",
                url,
                content=payload,
                headers=self._headers(key, extra_headers),
                params=self.provider.query_params or None,
                timeout=self._timeout(),
            )
            try:
                response = await client.send(request, stream=True)
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise ModelError(
                    f"The model provider's base_url is not a usable URL ({url}): {exc}. "
                    "Fix base_url in config.toml.",
                    codex_error_info="other",
                ) from None
            except httpx.TransportError as exc:
                if self._recorder is not None:
                    reason = str(exc) or type(exc).__name__
                    self._recorder.failed(request, self._base_path(), reason, secrets)
                if attempt < max_retries:
                    attempt += 1
                    await anyio.sleep(backoff_delay(attempt))
                    continue
                why = redact(str(exc) or type(exc).__name__, secrets)
                raise ModelError(
                    f"Could not reach the model server at {url} after {attempt + 1} attempt(s) "
                    f"({why}). Check your network connection and the provider's base_url.",
                    codex_error_info={"http_connection_failed": {"http_status_code": None}},
                    retryable=True,
                    requests=attempt + 1,
                ) from None
            if response.is_success:
                if self._recorder is not None:
                    response = self._recorder.tee(response, self._base_path(), secrets)
                return response, secrets
            body = await response.aread()
            await response.aclose()
            if self._recorder is not None:
                self._recorder.answered(response, body, self._base_path(), secrets)
            status = response.status_code
            if status == 401 and not reauthorized and self._refresh_auth is not None:
                # Once per request, as codex does: a renewed token gets the request sent
                # again, not counted as a retry.
                reauthorized = True
                if await self._refresh_auth(key):
                    continue
            if status == 429:
                delay = _rate_limit_delay(response.headers, body, secrets)
            elif status >= 500 or status == 408:
                delay = parse_retry_after(response.headers)
                if delay is not None and delay > MAX_RETRY_WAIT_S:
                    delay = None  # an absurd hint on a 5xx: fall back to our own backoff
            else:
                raise error_for_status(
                    status, body, url=url, env_key=self.provider.env_key, secrets=secrets
                )
            if attempt < max_retries:
                attempt += 1
                await anyio.sleep(delay if delay is not None else backoff_delay(attempt))
                continue
            if status == 429:
                message, _, _ = server_error_fields(body)
                said = quote_server_text(message, secrets)
                raise ModelError(
                    f"The model provider is rate limiting requests (HTTP 429) and still was after "
                    f"{attempt + 1} attempt(s). Wait a little and try again."
                    + (f" Server said: {said}" if said else ""),
                    codex_error_info={
                        "response_too_many_failed_attempts": {"http_status_code": 429}
                    },
                    retry_after_s=delay,
                    http_status=429,
                    requests=attempt + 1,
                )
            err = error_for_status(
                status, body, url=url, env_key=self.provider.env_key, secrets=secrets
            )
            err.message = f"{err.message} (gave up after {attempt + 1} attempt(s))"
            err.requests = attempt + 1
            raise err


def _rate_limit_delay(
    headers: httpx.Headers, body: bytes, secrets: list[str | None]
) -> float | None:
    """How long a 429 asks us to wait, or raise when waiting will not help."""
    message, code, kind = server_error_fields(body)
    known = error_for_code(code, message, kind=kind, secrets=secrets, http_status=429)
    if not known.retryable:
        raise known  # a spent quota or usage limit does not come back in seconds
    delay = parse_retry_after(headers)
    if delay is None:
        delay = parse_try_again(message)
    if delay is not None and delay > MAX_RETRY_WAIT_S:
        raise ModelError(
            f"The model provider is rate limiting requests and asked to retry in {delay:.0f} s, "
            f"longer than the {MAX_RETRY_WAIT_S:.0f} s codex-lsp waits on its own. "
            "Try again later.",
            codex_error_info={"response_too_many_failed_attempts": {"http_status_code": 429}},
            retry_after_s=delay,
            http_status=429,
        )
    return delay


def _missing_key(provider: ModelProviderInfo) -> ModelError:
    hint = f" {provider.env_key_instructions}" if provider.env_key_instructions else ""
    return ModelError(
        f"No API key for model provider '{provider.name}': set the environment variable "
        f"{provider.env_key}, or sign in with `codex-lsp login`.{hint}",
        codex_error_info="unauthorized",
    )
