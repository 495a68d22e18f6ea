"""One MCP server, connected for the life of a session.

A single anyio task (`McpServerConnection.run`) enters the transport and the `ClientSession`
and later exits them: each holds a task group, and anyio requires a task group to be exited by
the task that entered it, so nothing else may close them. Other tasks (a turn calling a tool)
only send requests through the session. The owner task waits until `close` asks it to stop,
then unwinds in order: session, transport, process.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import IO, Any, TypeVar

import anyio
import httpx2
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import (
    CONNECTION_CLOSED,
    CallToolResult,
    Implementation,
    InitializeResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceResult,
    Tool,
)

from codex_lsp import __version__
from codex_lsp.store.config_mcp import McpServerConfig
from codex_lsp.store.home import codex_home
from codex_lsp.store.mcp_credentials import stored_token

log = logging.getLogger(__name__)
_T = TypeVar("_T")

# Codex's defaults for `startup_timeout_sec` and `tool_timeout_sec`.
DEFAULT_STARTUP_TIMEOUT_S = 10.0
DEFAULT_TOOL_TIMEOUT_S = 60.0
# How long a server may take to stop before its task is cancelled outright.
CLOSE_GRACE_S = 5.0
# Long reads: a streamable HTTP server may hold its event stream open between messages.
HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)
CLIENT_INFO = Implementation(name="codex-lsp", version=__version__)
_STDERR_TAIL_BYTES = 4096


CLOSED_EARLY = "closed before it started"


class McpUnavailable(Exception):
    """The server is not connected: it failed to start or has stopped."""


class McpServerConnection:
    def __init__(self, name: str, config: McpServerConfig, session_cwd: Path) -> None:
        self.name = name
        self.config = config
        self.tools: list[Tool] = []
        # What the server said about itself when it started (name, version, capabilities).
        self.initialized: InitializeResult | None = None
        # Why the server is not (or no longer) usable, in words for the user.
        self.failure: str | None = None
        self._session_cwd = session_cwd
        self._session: ClientSession | None = None
        self._scope: anyio.CancelScope | None = None
        self._started = anyio.Event()
        self._closing = anyio.Event()
        self._done = anyio.Event()
        # The server's stderr, kept while it runs so a failure can quote its last words.
        self._stderr: IO[bytes] | None = None

    @property
    def startup_timeout(self) -> float:
        return self.config.startup_timeout_sec or DEFAULT_STARTUP_TIMEOUT_S

    @property
    def tool_timeout(self) -> float:
        return self.config.tool_timeout_sec or DEFAULT_TOOL_TIMEOUT_S

    @property
    def connected(self) -> bool:
        return self._session is not None

    @property
    def state(self) -> str:
        """`starting`, `connected`, `failed` or `cancelled` (closed before it started)."""
        if self._session is not None:
            return "connected"
        if not self._started.is_set():
            return "starting"
        return "cancelled" if self.failure == CLOSED_EARLY else "failed"

    @property
    def has_resources(self) -> bool:
        initialized = self.initialized
        return initialized is not None and initialized.capabilities.resources is not None

    # The owner task -----------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, list the tools, serve until `close`; never raises (but for cancellation)."""
        try:
            with tempfile.TemporaryFile() as self._stderr:
                await self._run()
        except Exception:  # Nothing about one server may take down the session's task group.
            log.exception("MCP server %s: unexpected failure", self.name)
            self.failure = self.failure or "unexpected failure (see the log)"
        finally:
            self._session = None
            self._stderr = None
            self._started.set()
            self._done.set()

    async def _run(self) -> None:
        error: BaseException | None = None
        with anyio.CancelScope() as scope:
            self._scope = scope
            # The deadline bounds connecting only; it is lifted once the server is ready.
            scope.deadline = anyio.current_time() + self.startup_timeout
            try:
                async with AsyncExitStack() as stack:
                    session = await self._connect(stack)
                    # Tools left out by `enabled_tools` / `disabled_tools` are neither offered
                    # to the model nor callable.
                    listed = await _list_tools(session)
                    self.tools = [tool for tool in listed if self.config.offers(tool.name)]
                    scope.deadline = math.inf
                    self._session = session
                    self._started.set()
                    await self._closing.wait()
                    self._session = None
            except Exception as err:
                error = err
        if not self._started.is_set():
            if self._closing.is_set():
                self.failure = CLOSED_EARLY
            elif scope.cancelled_caught:
                self.failure = f"did not start within {self.startup_timeout:g}s"
            else:
                self.failure = self._describe(error)
        elif error is not None and not self._closing.is_set():
            self.failure = f"stopped: {self._describe(error)}"
            log.warning("MCP server %s %s", self.name, self.failure)

    async def _connect(self, stack: AsyncExitStack) -> ClientSession:
        if self.config.command:
            params = StdioServerParameters(
                command=self.config.command,
                args=list(self.config.args),
                env=self._child_env(),
                cwd=self._cwd(),
            )
            # The SDK hands `errlog` to the child as its stderr: only the descriptor matters.
            errlog: Any = self._stderr
            streams = await stack.enter_async_context(stdio_client(params, errlog=errlog))
        else:
            assert self.config.url is not None
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=self._http_headers(), timeout=HTTP_TIMEOUT)
            )
            streams = await stack.enter_async_context(
                streamable_http_client(self.config.url, http_client=http)
            )
        read, write = streams
        session = await stack.enter_async_context(
            ClientSession(read, write, client_info=CLIENT_INFO)
        )
        self.initialized = await session.initialize()
        return session

    def _cwd(self) -> Path:
        # The editor host's own cwd means nothing to the user; their project does.
        if not self.config.cwd:
            return self._session_cwd
        return self._session_cwd / Path(self.config.cwd).expanduser()

    def _child_env(self) -> dict[str, str] | None:
        """`env`, plus the variables `env_vars` passes through (the SDK adds a safe base)."""
        env = dict(self.config.env or {})
        for name in self.config.env_vars:
            value = os.environ.get(name)
            if value is not None:
                env[name] = value
        return env or None

    def _http_headers(self) -> dict[str, str]:
        # Static headers, then those read from the environment (left out when unset), then
        # the bearer token.
        headers = dict(self.config.http_headers or {})
        for header, name in (self.config.env_http_headers or {}).items():
            value = os.environ.get(name, "").strip()
            if value:
                headers[header] = value
        variable = self.config.bearer_token_env_var
        if not variable:
            # A token from `codex-lsp mcp login`, only ever for the URL it was issued for.
            assert self.config.url is not None
            token = stored_token(codex_home(), self.name, self.config.url)
            if token:
                headers["Authorization"] = f"Bearer {token}"
            return headers
        token = os.environ.get(variable)
        if not token:
            raise McpUnavailable(f"the environment variable {variable} (bearer token) is not set")
        headers["Authorization"] = f"Bearer {token}"
        return headers

    def _describe(self, error: BaseException | None) -> str:
        reason = describe_error(error, command=self.config.command)
        tail = _last_line(self._stderr) if self._stderr is not None else ""
        return f"{reason} (stderr: {tail})" if tail else reason

    # Used by the session --------------------------------------------------------------------

    async def wait_started(self) -> None:
        await self._started.wait()

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        timeout = self.tool_timeout
        return await self._request(
            lambda session: session.call_tool(tool, arguments, read_timeout_seconds=timeout)
        )

    async def list_resources(self, cursor: str | None = None) -> ListResourcesResult:
        return await self._request(lambda session: session.list_resources(params=_page(cursor)))

    async def list_resource_templates(
        self, cursor: str | None = None
    ) -> ListResourceTemplatesResult:
        return await self._request(
            lambda session: session.list_resource_templates(params=_page(cursor))
        )

    async def read_resource(self, uri: str) -> ReadResourceResult:
        result = await self._request(lambda session: session.read_resource(uri))
        if not isinstance(result, ReadResourceResult):
            # The server wants input first (an elicitation); nobody here can give it.
            raise McpUnavailable(f"the server asked for input before it would read {uri}")
        return result

    async def _request(self, send: Callable[[ClientSession], Awaitable[_T]]) -> _T:
        session = self._session
        if session is None:
            if not self._started.is_set():
                raise McpUnavailable("the server is still starting")
            why = f" ({self.failure})" if self.failure else ""
            raise McpUnavailable(f"the server is not running{why}")
        try:
            return await send(session)
        except MCPError as err:
            if err.code != CONNECTION_CLOSED or self._closing.is_set():
                raise
            # The server went away (it exited or dropped the connection): say so once, stop
            # offering its tools, and let the owner task reap what is left of it.
            self.failure = self._describe(err)
            self._session = None
            self._closing.set()
            log.warning("MCP server %s stopped: %s", self.name, self.failure)
            raise McpUnavailable(self.failure) from err

    async def close(self) -> None:
        """Ask the owner task to disconnect and wait for it; cancel it if it lingers."""
        self._closing.set()
        if not self._started.is_set() and self._scope is not None:
            self._scope.cancel()  # Still connecting: nothing to disconnect gracefully.
        with anyio.move_on_after(CLOSE_GRACE_S):
            await self._done.wait()
        if not self._done.is_set() and self._scope is not None:
            self._scope.cancel()
            # Stopping a stdio server is itself bounded by the SDK (terminate, then kill).
            with anyio.move_on_after(CLOSE_GRACE_S):
                await self._done.wait()


def _page(cursor: str | None) -> PaginatedRequestParams | None:
    return PaginatedRequestParams(cursor=cursor) if cursor else None


async def _list_tools(session: ClientSession) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


def describe_error(error: BaseException | None, *, command: str | None = None) -> str:
    """A failure in words for the user, without a traceback."""
    # Task groups wrap what went wrong; the first leaf is the cause worth naming.
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if error is None:
        return "the connection ended"
    if isinstance(error, OSError) and command and error.filename == command:
        if isinstance(error, FileNotFoundError):
            return f"command `{command}` not found"
        return f"command `{command}` cannot be run: {error.strerror}"
    if isinstance(error, OSError) and error.filename:
        return f"{error.filename}: {error.strerror}"
    if isinstance(error, MCPError):
        return (
            "the server closed the connection" if error.code == CONNECTION_CLOSED else error.message
        )
    if isinstance(error, httpx2.HTTPStatusError):
        return f"HTTP {error.response.status_code} from {error.request.url}"
    if isinstance(error, httpx2.HTTPError):
        return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _last_line(stderr: IO[bytes]) -> str:
    """The last thing the server said on stderr: usually why it stopped."""
    try:
        fd = stderr.fileno()
        size = os.fstat(fd).st_size
        # pread leaves the offset the server's own writes share untouched.
        tail = os.pread(fd, _STDERR_TAIL_BYTES, max(0, size - _STDERR_TAIL_BYTES))
    except (OSError, ValueError):
        return ""
    lines = [line.strip() for line in tail.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    return lines[-1] if lines else ""
