"""Owns the v2 `ApiServer` behind the language server and serves `codex/*` through it.

The engine is loaded after the `initialize` answer has gone out (on `initialized`), so an
editor sees the server come up quickly. A config.toml that cannot be used does not stop it:
as from the app-server, `codex/configWarning` ("Invalid configuration; using defaults.") names
the file, line and key (and the editor shows it: `notifications.py`); requests that need the
config then fail with the same reason, and each reads the file again, so fixing it is enough
to recover. A `-c` override that cannot be used is reported as a `window/showMessage` error and
the engine does not start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from codex_lsp.lsp.observers import NotificationObservers
from codex_lsp.lsp.pending_approvals import PendingApprovals
from codex_lsp.protocol.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, SERVER_NOT_INITIALIZED
from codex_lsp.wire import preload

if TYPE_CHECKING:
    from codex_lsp.api.editor_service import EditorService
    from codex_lsp.api.server import ApiServer
    from codex_lsp.engine.services import EngineServices
    from codex_lsp.lsp.client_port import LspClientPort
    from codex_lsp.lsp.editor_workspace import EditorWorkspace
    from codex_lsp.lsp.progress import TurnProgressTracker
    from codex_lsp.lsp.server import CodexLanguageServer
    from codex_lsp.protocol.config.write import ConfigWarningNotification
    from codex_lsp.protocol.threads.models import ThreadResumeResponse
    from codex_lsp.protocol.turns.models import (
        ReviewStartParams,
        ReviewStartResponse,
        TurnStartResponse,
    )
    from codex_lsp.protocol.turns.tasks import TurnStartTaskParams

logger = logging.getLogger(__name__)


@dataclass
class EngineOptions:
    """What `codex-lsp serve` was told on its command line about config."""

    profile: str | None = None
    overrides: list[str] = field(default_factory=list)
    model: str | None = None
    codex_home: Path | None = None

    def load_services(self) -> EngineServices:
        from codex_lsp.engine.bootstrap import load_services

        overrides = list(self.overrides)
        if self.model:
            # A JSON string is a valid TOML basic string, whatever the model name holds.
            import json

            overrides.append(f"model={json.dumps(self.model)}")
        return load_services(codex_home=self.codex_home, profile=self.profile, overrides=overrides)


class EngineHost:
    def __init__(
        self, server: CodexLanguageServer, options: EngineOptions, progress: TurnProgressTracker
    ) -> None:
        self._server = server
        self._options = options
        self._progress = progress
        self.api: ApiServer | None = None
        self._port: LspClientPort | None = None
        self._initialized = False
        self._error: str | None = None
        # Features told of v2 notifications; more subscribe before the engine starts.
        self.observers = NotificationObservers()
        progress.subscribe(self.observers)
        # Features told of each thread resumed through this door, by id.
        self.resume_observers: list[Callable[[str], None]] = []
        # Approvals waiting for an editor that cannot show a prompt to answer by command.
        self.pending = PendingApprovals()
        # The files as the editor shows them, once the engine has started.
        self.workspace: EditorWorkspace | None = None
        # `codex/*` methods of this door only (not v2), by method name without the prefix.
        self.local_methods: dict[str, Callable[[Any], Awaitable[Any]]] = {}

    def register(self, server: CodexLanguageServer) -> None:
        server.protocol.codex_handler = self.call

    # -- start-up ----------------------------------------------------------------------------

    def start(self) -> None:
        """Load config and the engine; on failure, tell the user why (once per distinct error)."""
        self._initialized = True
        if self.api is not None:
            return
        try:
            self.api = self._build()
        except Exception as err:
            message, expected = _describe_start_failure(err)
            if message != self._error:
                self._server.window_show_message(
                    types.ShowMessageParams(type=types.MessageType.Error, message=message)
                )
                logger.error("%s", message, exc_info=None if expected else err)
            self._error = message
            return
        self._error = None

    def _build(self) -> ApiServer:
        from codex_lsp.api.config.problems import feature_warnings, in_file, invalid_config_warning
        from codex_lsp.api.server import ApiServer
        from codex_lsp.lsp.approvals import ApprovalBroker
        from codex_lsp.lsp.client_port import LspClientPort
        from codex_lsp.lsp.editor_requests import LspEditorContext
        from codex_lsp.lsp.editor_workspace import EditorWorkspace
        from codex_lsp.store.config_errors import ConfigError

        preloaded: list[EngineServices] = []
        try:
            preloaded.append(self._options.load_services())
            warnings = feature_warnings(preloaded[0].config)
        except ConfigError as err:
            if not in_file(err):
                raise  # a `-c` override that cannot be used: the engine does not start
            # A config.toml that cannot be used: warned about, and every request that needs
            # it reads it afresh (and fails with the reason) until it is fixed.
            warnings = [invalid_config_warning(err)]

        def services_factory() -> EngineServices:
            # The services validated at start-up serve first; later calls read config afresh.
            return preloaded.pop() if preloaded else self._options.load_services()

        broker = ApprovalBroker(
            self._server,
            rich=lambda: self._server.rich_approvals,
            thread_cwd=self.thread_cwd,
            file_changes=lambda item_id: self._port.file_changes(item_id) if self._port else None,
            pending=self.pending,
            notify=lambda method, params: self._port.notify(method, params) if self._port else None,
            message_requests=lambda: self._server.message_requests,
        )
        workspace = EditorWorkspace(self._server)
        workspace.checkpoints.subscribe(self.observers)
        self.workspace = workspace
        editor = LspEditorContext(self._server, workspace)
        self._port = LspClientPort(
            self._server.protocol,
            asyncio.get_running_loop(),
            broker,
            self.observers,
            workspace,
            editor=lambda: editor if self._server.editor_context else None,
            sends_notifications=lambda: self._server.codex_client,
        )
        api = ApiServer(services_factory, self._port)
        for warning in warnings:
            logger.log(_warning_level(warning), "%s %s", warning.summary, warning.details or "")
            self._port.notify("configWarning", warning)
        return api

    @property
    def editor(self) -> EditorService | None:
        """What this door asks of the loaded threads beyond v2 (review findings, session
        approvals, working directories); None before the engine starts."""
        return self.api.editor if self.api is not None else None

    def thread_cwd(self, thread_id: str) -> Path | None:
        """The working directory of a loaded thread; None before the API starts or when the
        thread is not loaded."""
        editor = self.editor
        return editor.thread_cwd(thread_id) if editor is not None else None

    # -- requests ----------------------------------------------------------------------------

    async def call(self, method: str, params: Any, request_id: int | str | None = None) -> Any:
        """Serve the v2 method `method`; errors become JSON-RPC errors with the API's code.
        `request_id`: the editor's id of the request, which a cancellation names."""
        from codex_lsp.protocol.common import dump
        from codex_lsp.protocol.threads.models import ThreadResumeResponse

        api = self._ready()
        if params is not None and not isinstance(params, dict):
            raise JsonRpcException(code=INVALID_PARAMS, message="params must be an object")
        if method == "initialize":
            return self._v2_initialize(params)
        local = self.local_methods.get(method)
        if local is not None:
            return await local(params)
        # What a cold start loads in the background waits while requests are handled.
        with _as_jsonrpc_errors(), preload.handling():
            result = await api.serve(method, params, request_id)
        if isinstance(result, ThreadResumeResponse):
            self._resumed(result)
        return {} if result is None else dump(result)

    async def start_thread(self, cwd: str) -> str:
        """Start a thread in `cwd`, as `codex/thread/start` would; its id."""
        from codex_lsp.protocol.threads.models import ThreadStartParams

        api = self._ready()
        with _as_jsonrpc_errors():
            started = await api.start_thread(ThreadStartParams(cwd=cwd))
        return started.thread.id

    async def start_review(self, params: ReviewStartParams) -> ReviewStartResponse:
        """Start a review, as `codex/review/start` would."""
        api = self._ready()
        with _as_jsonrpc_errors():
            return await api.start_review(params)

    async def start_task(self, params: TurnStartTaskParams) -> TurnStartResponse:
        """Start a turn on an editor task, as `codex/turn/startTask` would."""
        api = self._ready()
        with _as_jsonrpc_errors():
            return await api.start_task(params)

    def _resumed(self, response: ThreadResumeResponse) -> None:
        thread_id = response.thread.id
        for observe in self.resume_observers:
            try:
                observe(thread_id)
            except Exception:
                logger.exception("a feature failed on the resume of thread %s", thread_id)

    def _v2_initialize(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """`codex/initialize`: the v2 handshake's answer, for clients that speak only v2.

        The LSP `initialize` already did the real handshake, so this may come any number of
        times and only reports who the server is.
        """
        from pydantic import ValidationError

        from codex_lsp.api.initialize.handshake import initialize_response
        from codex_lsp.api.validation import validation_message
        from codex_lsp.protocol.common import dump
        from codex_lsp.protocol.initialize.models import InitializeParams
        from codex_lsp.store.home import codex_home

        try:
            parsed = InitializeParams.model_validate(params or {})
        except ValidationError as err:
            raise JsonRpcException(code=INVALID_PARAMS, message=validation_message(err)) from None
        home = self._options.codex_home or codex_home()
        return dump(initialize_response(parsed, home))

    async def interrupt(self, thread_id: str, turn_id: str) -> Any:
        return await self.call("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})

    def _ready(self) -> ApiServer:
        if not self._initialized:
            raise JsonRpcException(code=SERVER_NOT_INITIALIZED, message="Not initialized")
        if self.api is None:
            self.start()
        if self.api is None:
            raise JsonRpcException(code=INTERNAL_ERROR, message=self._error or "engine not started")
        return self.api

    async def aclose(self, *, client_gone: bool = False) -> None:
        """Stop every running turn; their last notifications reach the client if it is there."""
        if client_gone and self._port is not None:
            self._port.closed = True
        api, self.api = self.api, None
        if api is not None:
            try:
                await api.aclose()
            except Exception:
                logger.warning("closing the API failed", exc_info=True)
        if self._port is not None:
            self._port.closed = True
        self._progress.close()


@contextlib.contextmanager
def _as_jsonrpc_errors() -> Iterator[None]:
    """An `ApiError` raised inside goes to the editor as the JSON-RPC error it carries."""
    from codex_lsp.api.port import ApiError

    try:
        yield
    except ApiError as err:
        raise JsonRpcException(code=err.code, message=err.message, data=err.data) from None


def _warning_level(warning: ConfigWarningNotification) -> int:
    from codex_lsp.api.config.problems import INVALID_SUMMARY

    return logging.ERROR if warning.summary == INVALID_SUMMARY else logging.WARNING


def _describe_start_failure(err: Exception) -> tuple[str, bool]:
    """The message for the user, and whether the failure is one the user can fix (no traceback)."""
    from codex_lsp.store.config_errors import ConfigError

    if isinstance(err, ConfigError):
        # ConfigError messages already read "<file>:<line>: <key>: <problem>".
        return f"codex-lsp: invalid configuration: {err}", True
    return f"codex-lsp: the engine failed to start: {type(err).__name__}: {err}", False
