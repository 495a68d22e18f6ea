"""The thread manager: which threads are loaded, and opening them (start, resume, fork).

Each loaded thread is one `LoadedThread` task in the task group the `ApiServer` hosts, with its
own `EngineServices` (so a thread's HTTP client and config live and die with it) and the
`Workspace` its door chose for its cwd.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup

from codex_lsp import __version__
from codex_lsp.api.convert import approval_to_core, effort_to_core, invalid
from codex_lsp.api.port import INVALID_REQUEST, ApiError, ClientPort
from codex_lsp.api.threads import store as thread_store
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.threads.rebuild import rebuild_turns
from codex_lsp.engine.services import EngineServices
from codex_lsp.protocol.account.models import RateLimitSnapshot
from codex_lsp.protocol.common import approval_policy_to_v2, sandbox_policy_to_v2
from codex_lsp.protocol.core.events import ErrorEvent
from codex_lsp.protocol.core.ops import ConfigureSession
from codex_lsp.protocol.threads.models import (
    Thread,
    ThreadForkParams,
    ThreadForkResponse,
    ThreadResumeParams,
    ThreadResumeResponse,
    ThreadStartParams,
    ThreadStartResponse,
)
from codex_lsp.protocol.threads.ops import CollaborationMode, CollaborationModeSettings
from codex_lsp.store.threads import read_thread_summary

log = logging.getLogger(__name__)

# `config` keys of thread/start that map onto the session's settings.
_CONFIG_KEYS = {
    "model": "model",
    "model_provider": "model_provider",
    "approval_policy": "approval_policy",
    "sandbox_mode": "sandbox",
    "model_reasoning_effort": "effort",
    "model_reasoning_summary": "summary",
    "developer_instructions": "developer_instructions",
    "base_instructions": "base_instructions",
    "instructions": "base_instructions",
}

Response = TypeVar("Response", ThreadStartResponse, ThreadResumeResponse, ThreadForkResponse)


class ThreadManager:
    def __init__(
        self,
        services_factory: Callable[[], EngineServices],
        client: ClientPort,
        host: Callable[[], Awaitable[TaskGroup]],
        on_rate_limits: Callable[[RateLimitSnapshot], None],
    ) -> None:
        self._services_factory = services_factory
        self._client = client
        self._host = host
        self._on_rate_limits = on_rate_limits
        self.loaded: dict[str, LoadedThread] = {}
        self._opening: dict[str, anyio.Event] = {}
        # What the API set for the whole server (extra skill roots), applied to each new
        # thread's services as they are built.
        self.prepare_services: list[Callable[[EngineServices], None]] = []

    def get(self, thread_id: str) -> LoadedThread:
        thread = self.loaded.get(thread_id)
        if thread is not None and thread.done.is_set():
            del self.loaded[thread_id]  # it stopped on its own (logged where it happened)
            thread = None
        if thread is None:
            raise ApiError(INVALID_REQUEST, f"thread not loaded: {thread_id}; resume it first")
        return thread

    def statuses(self) -> dict[str, Any]:
        return {tid: t.map.status() for tid, t in self.loaded.items() if t.map is not None}

    async def unload(self, thread_id: str) -> bool:
        thread = self.loaded.pop(thread_id, None)
        if thread is None:
            return False
        await thread.close()
        return True

    async def discard(self, thread_id: str) -> None:
        """Unload a thread the client was never told about and delete its rollout, so it
        does not turn up in `thread/list` (a fork made for a review that could not start)."""
        thread = self.loaded.get(thread_id)
        path = thread.rollout_path if thread is not None else None
        await self.unload(thread_id)
        if path is not None:
            path.unlink(missing_ok=True)

    async def close_all(self) -> None:
        while self.loaded:
            _, thread = self.loaded.popitem()
            await thread.close()

    # -- opening ----------------------------------------------------------------------------

    async def start(self, params: ThreadStartParams) -> ThreadStartResponse:
        def prepare(services: EngineServices) -> tuple[ConfigureSession, Path]:
            cwd = _cwd(params.cwd) or Path(os.getcwd())
            op = _configure_op(params, services.config, cwd, ephemeral=bool(params.ephemeral))
            return op, cwd

        thread = await self._launch(prepare)
        thread.ephemeral = bool(params.ephemeral)
        return self._response(ThreadStartResponse, thread, turns=[])

    async def resume(self, params: ThreadResumeParams, path: str | None) -> ThreadResumeResponse:
        # Two resumes of one thread at once must not open two engines on one rollout.
        while (opening := self._opening.get(params.thread_id)) is not None:
            await opening.wait()
        self._opening[params.thread_id] = anyio.Event()
        try:
            return await self._resume(params, path)
        finally:
            self._opening.pop(params.thread_id).set()

    async def _resume(self, params: ThreadResumeParams, path: str | None) -> ThreadResumeResponse:
        loaded = self.loaded.get(params.thread_id)
        if loaded is not None and not loaded.done.is_set():
            # Already running here: answer with its live state rather than a second engine,
            # and the client hears the thread again if it had unsubscribed.
            loaded.subscribed = True
            turns = await self._stored_turns(loaded, params.exclude_turns)
            return self._response(ThreadResumeResponse, loaded, turns=turns)
        summary: list[Any] = []

        def prepare(services: EngineServices) -> tuple[ConfigureSession, Path]:
            source = thread_store.rollout_path(services.codex_home, params.thread_id, path)
            summary.append(read_thread_summary(services.codex_home, source))
            cwd = _cwd(params.cwd) or _summary_cwd(summary[0])
            return _configure_op(params, services.config, cwd, resume_path=str(source)), cwd

        thread = await self._launch(prepare)
        if summary[0] is not None:
            thread.created_at = int(summary[0].created_at.timestamp())
            thread.preview = summary[0].preview
        turns = self._initial_turns(thread, False)
        thread.last_turn_id = turns[-1].id if turns else None
        return self._response(
            ThreadResumeResponse, thread, turns=[] if params.exclude_turns else turns
        )

    async def fork(self, params: ThreadForkParams, path: str | None) -> ThreadForkResponse:
        summary: list[Any] = []

        def prepare(services: EngineServices) -> tuple[ConfigureSession, Path]:
            source = thread_store.rollout_path(services.codex_home, params.thread_id, path)
            keep = None
            if params.last_turn_id is not None:
                ids = [turn.id for turn in rebuild_turns(thread_store.rollout_events(source))]
                if params.last_turn_id not in ids:
                    raise invalid("lastTurnId", f"no turn {params.last_turn_id!r} in this thread")
                keep = str(ids.index(params.last_turn_id) + 1)
            summary.append(read_thread_summary(services.codex_home, source))
            cwd = _cwd(params.cwd) or _summary_cwd(summary[0])
            op = _configure_op(
                params,
                services.config,
                cwd,
                fork_path=str(source),
                fork_up_to_turn=keep,
                ephemeral=bool(params.ephemeral),
            )
            return op, cwd

        thread = await self._launch(prepare)
        thread.preview = summary[0].preview if summary[0] is not None else ""
        turns = self._initial_turns(thread, params.exclude_turns)
        return self._response(ThreadForkResponse, thread, turns=turns)

    # -- helpers ----------------------------------------------------------------------------

    def load_services(self) -> EngineServices:
        from codex_lsp.api.config.problems import ConfigUnusable
        from codex_lsp.store.config_errors import ConfigError

        try:
            services = self._services_factory()
        except ConfigError as err:
            raise ConfigUnusable(err) from None
        for prepare in self.prepare_services:
            prepare(services)
        return services

    async def _launch(
        self, prepare: Callable[[EngineServices], tuple[ConfigureSession, Path]]
    ) -> LoadedThread:
        """Build the thread's services and configure op, then run it until it is configured."""
        services = self.load_services()
        try:
            op, cwd = await anyio.to_thread.run_sync(prepare, services)
            thread = LoadedThread(services, self._client, cwd, on_rate_limits=self._on_rate_limits)
        except BaseException:
            if services.http is not None:
                with anyio.CancelScope(shield=True):
                    await services.http.aclose()
            raise
        host = await self._host()
        # From here the thread's task owns the services and closes them when it ends.
        outcome = await host.start(thread.run, op)
        if isinstance(outcome, ErrorEvent):
            raise ApiError(INVALID_REQUEST, outcome.message)
        self.loaded[thread.thread_id] = thread
        return thread

    def _initial_turns(self, thread: LoadedThread, exclude: bool | None) -> list[Any]:
        if exclude or thread.configured is None:
            return []
        return rebuild_turns(thread.configured.initial_messages or [])

    async def _stored_turns(self, thread: LoadedThread, exclude: bool | None) -> list[Any]:
        path = thread.rollout_path
        if exclude or path is None:
            return []
        events = await anyio.to_thread.run_sync(thread_store.rollout_events, path)
        running = thread.map.active_turn_id if thread.map is not None else None
        return rebuild_turns(events, running_turn=running)

    def _response(
        self, model: type[Response], thread: LoadedThread, *, turns: list[Any]
    ) -> Response:
        configured = thread.configured
        assert configured is not None
        extra: dict[str, Any] = {}
        if model is ThreadResumeResponse:
            # The one collaboration mode here: the default one, on the thread's model.
            extra["collaboration_mode"] = CollaborationMode(
                mode="default",
                settings=CollaborationModeSettings(
                    model=configured.model, reasoning_effort=configured.reasoning_effort
                ),
            )
        return model(
            **extra,
            thread=self.thread_object(thread, turns=turns),
            model=configured.model,
            model_provider=configured.model_provider_id,
            cwd=str(thread.cwd or configured.cwd),
            approval_policy=approval_policy_to_v2(configured.approval_policy),
            approvals_reviewer="user",
            sandbox=sandbox_policy_to_v2(configured.sandbox_policy),
            reasoning_effort=configured.reasoning_effort,
        )

    def thread_object(self, thread: LoadedThread, *, turns: list[Any] | None = None) -> Thread:
        configured = thread.configured
        assert configured is not None and thread.map is not None
        session = thread.codex.session
        ctx = session.ctx if session is not None else None
        path = thread.rollout_path
        return Thread(
            id=thread.thread_id,
            session_id=thread.thread_id,
            preview=thread.preview,
            ephemeral=thread.ephemeral,
            model_provider=ctx.provider_id if ctx else configured.model_provider_id,
            created_at=thread.created_at,
            updated_at=int(path.stat().st_mtime)
            if path is not None and path.exists()
            else thread.created_at,
            status=thread.map.status(),
            cwd=str(ctx.cwd if ctx else configured.cwd),
            cli_version=__version__,
            source=thread.source,
            turns=turns or [],
            forked_from_id=configured.forked_from_id,
            path=str(path) if path is not None else None,
            model=ctx.model if ctx else configured.model,
            reasoning_effort=ctx.effort if ctx else configured.reasoning_effort,
            name=session.thread_name if session is not None else configured.thread_name,
        )


def _configure_op(
    params: ThreadStartParams | ThreadResumeParams | ThreadForkParams,
    config: Any,
    cwd: Path,
    **extra: Any,
) -> ConfigureSession:
    """The `configure_session` op for thread/start, resume or fork params."""
    raw = params.config or {}
    settings = {_CONFIG_KEYS[key]: value for key, value in raw.items() if key in _CONFIG_KEYS}
    ignored = sorted(set(raw) - set(_CONFIG_KEYS))
    if ignored:
        log.info("config keys not applied per thread: %s", ", ".join(ignored))
    provider = params.model_provider or settings.get("model_provider")
    if provider is not None and provider not in config.model_providers:
        known = ", ".join(sorted(config.model_providers))
        raise invalid("modelProvider", f"provider {provider!r} is not defined (known: {known})")
    sandbox = params.sandbox or settings.get("sandbox")
    sandbox_policy = None
    if sandbox is not None:
        if sandbox not in ("read-only", "workspace-write", "danger-full-access"):
            raise invalid("sandbox", f"unknown sandbox mode {sandbox!r}")
        # The mode with the config's [sandbox_workspace_write] settings applied to it.
        sandbox_policy = config.model_copy(update={"sandbox_mode": sandbox}).sandbox_policy(cwd)
    summary = settings.get("summary")
    if summary is not None and summary not in ("auto", "concise", "detailed", "none"):
        raise invalid("config.model_reasoning_summary", f"unknown summary mode {summary!r}")
    return ConfigureSession(
        model=params.model or settings.get("model"),
        model_provider=provider,
        effort=effort_to_core(settings.get("effort"), "config.model_reasoning_effort"),
        summary=summary,
        approval_policy=approval_to_core(params.approval_policy or settings.get("approval_policy")),
        sandbox_policy=sandbox_policy,
        cwd=str(cwd),
        base_instructions=params.base_instructions or settings.get("base_instructions"),
        developer_instructions=params.developer_instructions
        or settings.get("developer_instructions"),
        personality=getattr(params, "personality", None),
        source="vscode",
        **extra,
    )


def _summary_cwd(summary: Any) -> Path:
    recorded = Path(summary.cwd) if summary is not None and summary.cwd else None
    # A thread whose directory has gone away still opens, in the server's own.
    return recorded if recorded is not None and recorded.is_dir() else Path(os.getcwd())


def _cwd(value: str | None) -> Path | None:
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise invalid("cwd", f"must be an absolute path, got {value!r}")
    if not path.is_dir():
        raise invalid("cwd", f"no such directory: {value}")
    return path
