"""A loaded thread: one `Codex` engine, its event pump, and the requests it has out.

`LoadedThread.run` is the thread's whole life as one task: it opens the engine, configures the
session (start, resume or fork), reports the outcome to whoever started it, then pumps events
into the thread's `ThreadEventMap` until it is closed. Approval requests run as child tasks of
the same task group, so closing a thread takes them down with it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskStatus

from codex_lsp.api.approvals import ApprovalRouter
from codex_lsp.api.events_map import ThreadEventMap
from codex_lsp.api.port import ClientPort
from codex_lsp.engine.codex import Codex
from codex_lsp.engine.services import EngineServices
from codex_lsp.protocol.events import ErrorEvent, SessionConfiguredEvent
from codex_lsp.protocol.ops import ConfigureSession, Op

log = logging.getLogger(__name__)


class LoadedThread:
    def __init__(
        self,
        services: EngineServices,
        client: ClientPort,
        cwd: Path,
        *,
        on_rate_limits: Callable[[Any], None] | None = None,
    ) -> None:
        self.services = services
        self.client = client
        self.codex = Codex(services, workspace=client.workspace_for(cwd))
        self.configured: SessionConfiguredEvent | None = None
        self.map: ThreadEventMap | None = None
        self.router: ApprovalRouter | None = None
        self.created_at = int(time.time())
        self.ephemeral = False
        self.preview = ""
        self.source = "vscode"
        self._on_rate_limits = on_rate_limits
        self._spawn: Callable[[Callable[[], Awaitable[None]]], None] | None = None
        self._closing = anyio.Event()
        self.done = anyio.Event()

    @property
    def thread_id(self) -> str:
        return self.configured.session_id if self.configured is not None else ""

    @property
    def cwd(self) -> Path | None:
        session = self.codex.session
        return session.cwd if session is not None else None

    @property
    def rollout_path(self) -> Path | None:
        session = self.codex.session
        return session.rollout_path if session is not None else None

    async def submit(self, op: Op, *, sub_id: str | None = None) -> str:
        return await self.codex.submit(op, sub_id=sub_id)

    async def run(
        self,
        op: ConfigureSession,
        *,
        task_status: TaskStatus[SessionConfiguredEvent | ErrorEvent] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Configure the session, report it through `task_status`, then serve the thread."""
        started = False
        try:
            async with anyio.create_task_group() as tasks:
                self._spawn = tasks.start_soon
                async with self.codex:
                    outcome = await self._configure(op)
                    started = True
                    if isinstance(outcome, ErrorEvent):
                        task_status.started(outcome)
                        return
                    self._attach(outcome)
                    task_status.started(outcome)
                    tasks.start_soon(self._pump)
                    await self._closing.wait()
                    assert self.router is not None
                    self.router.cancel_all()
                # Leaving the engine aborted any running turn; let the pump drain its end.
                self.codex.end_events()
        except Exception:
            if not started:
                raise  # the caller of start() hears it
            # Once running, a thread that breaks ends alone; the others share its task group.
            log.exception("thread %s stopped unexpectedly", self.thread_id)
        finally:
            with anyio.CancelScope(shield=True):
                if self.services.http is not None:
                    await self.services.http.aclose()
            self.done.set()

    async def close(self) -> None:
        """Stop the thread: abort its turn, flush its rollout, drop its pending requests."""
        self._closing.set()
        await self.done.wait()

    async def _configure(self, op: ConfigureSession) -> SessionConfiguredEvent | ErrorEvent:
        sub_id = await self.codex.submit(op)
        while True:
            event = await self.codex.next_event()
            if event.id == sub_id and isinstance(event.msg, SessionConfiguredEvent | ErrorEvent):
                return event.msg

    def _attach(self, configured: SessionConfiguredEvent) -> None:
        self.configured = configured
        self.ephemeral = configured.rollout_path is None
        thread_id = configured.session_id
        assert self._spawn is not None
        self.router = ApprovalRouter(
            thread_id, self.client, self.submit, self._spawn, self._waiting
        )
        self.map = ThreadEventMap(thread_id, self.client.notify, self.router, self._on_rate_limits)

    def _waiting(self, flag: str, delta: int) -> None:
        if self.map is not None:
            self.map.waiting(flag, delta)

    async def _pump(self) -> None:
        assert self.map is not None
        async for event in self.codex:
            try:
                self.map.handle(event)
            except Exception:  # one bad event must not silence the thread
                log.exception("thread %s: mapping %s failed", self.thread_id, event.msg.type)
