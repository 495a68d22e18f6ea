"""A loaded thread: one `Codex` engine, its event pump, and the requests it has out.

`LoadedThread.run` is the thread's whole life as one task: it opens the engine, configures the
session (start, resume or fork), reports the outcome to whoever started it, then pumps events
into the thread's `ThreadEventMap` until it is closed. Approval requests run as child tasks of
the same task group, so closing a thread takes them down with it.

What the session says while it is being configured (an MCP server that did not start, a broken
SKILL.md, the children a resumed thread rebuilt) is kept until the client knows the thread:
the API sends it through the map with `send_startup` once `thread/started` is out.
Answers the API awaits for its own ops go to `replies` instead of the map.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from anyio.abc import TaskStatus
from pydantic import BaseModel

from codex_lsp.api.approvals.requests import ApprovalRouter, Spawn
from codex_lsp.api.convert import token_usage
from codex_lsp.api.port import ClientPort, EditorContextSource
from codex_lsp.api.threads import unread
from codex_lsp.api.threads.children import ChildThreads
from codex_lsp.api.threads.event_map import ThreadEventMap
from codex_lsp.api.threads.replies import Replies
from codex_lsp.engine.codex import Codex
from codex_lsp.engine.services import EngineServices
from codex_lsp.protocol.account.models import RateLimitSnapshot
from codex_lsp.protocol.core.events import ErrorEvent, Event, SessionConfiguredEvent
from codex_lsp.protocol.core.ops import ConfigureSession, Op
from codex_lsp.protocol.threads.models import SessionSource, ThreadActiveFlag
from codex_lsp.protocol.threads.notifications import ThreadTokenUsageUpdatedNotification
from codex_lsp.protocol.threads.read_state import ThreadReadStateChangedNotification

log = logging.getLogger(__name__)


class LoadedThread:
    def __init__(
        self,
        services: EngineServices,
        client: ClientPort,
        cwd: Path,
        *,
        on_rate_limits: Callable[[RateLimitSnapshot], None] | None = None,
    ) -> None:
        self.services = services
        self.client = client
        editor = client.editor_context() if isinstance(client, EditorContextSource) else None
        self.codex = Codex(services, workspace=client.workspace_for(cwd), editor=editor)
        self.configured: SessionConfiguredEvent | None = None
        self.map: ThreadEventMap | None = None
        self.router: ApprovalRouter | None = None
        self.replies = Replies()
        # Events of the configure step, until `send_startup` hands them to the map.
        self._startup: list[Event] = []
        self.created_at = int(time.time())
        self.ephemeral = False
        self.preview = ""
        self.source: SessionSource = "vscode"
        # The id of the thread's latest turn when it was opened (resume and fork).
        self.last_turn_id: str | None = None
        self._on_rate_limits = on_rate_limits
        # The agent team's child threads, whose events come through this thread's session.
        self.children = ChildThreads(self._notify, self._child_router, on_rate_limits)
        self._spawn: Spawn | None = None
        self._closing = anyio.Event()
        self.done = anyio.Event()
        # Whether the client hears this thread's notifications (`thread/unsubscribe` stops it),
        # and when the thread last did anything, for unloading it once nobody listens.
        self.subscribed = True
        self.last_activity = time.monotonic()

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

    async def ask(
        self, op: Op, kinds: tuple[str, ...], *, sub_id: str, hold: bool = False
    ) -> Event:
        """Submit `op` as `sub_id` and return its first event of one of `kinds` (see
        `Replies.expect` for `hold`); raises `replies.ThreadGone` if the thread closes first."""
        self.replies.expect(sub_id, kinds, hold=hold)
        try:
            await self.codex.submit(op, sub_id=sub_id)
        except BaseException:
            self.replies.forget(sub_id)
            raise
        return await self.replies.wait(sub_id)

    def usage_report(self) -> ThreadTokenUsageUpdatedNotification | None:
        """`thread/tokenUsage/updated` params for the thread's usage so far, None without any."""
        session = self.codex.session
        turn_id = self.last_turn_id or (self.map.active_turn_id if self.map else None)
        if session is None or not session.usage_recorded or turn_id is None:
            return None
        info = session.token_count_event().info
        assert info is not None
        return ThreadTokenUsageUpdatedNotification(
            thread_id=self.thread_id, turn_id=turn_id, token_usage=token_usage(info)
        )

    def release(self, sub_id: str) -> None:
        """Let the map have the events held for `sub_id` (and those still to come)."""
        self.replies.release(sub_id, self._deliver)

    def send_startup(self) -> None:
        """Tell the client what the session said while it was configured (warnings, rebuilt
        subagents); call once the client has heard of the thread."""
        events, self._startup = self._startup, []
        for event in events:
            self._deliver(event)

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
                    tasks.start_soon(self._listen)
                    await self._closing.wait()
                    assert self.router is not None
                    self.router.cancel_all()
                    self.children.cancel_all()
                    self.replies.close()
                # Leaving the engine aborted any running turn (its end already reached the map).
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
            self._startup.append(event)

    def _attach(self, configured: SessionConfiguredEvent) -> None:
        self.configured = configured
        self.ephemeral = configured.rollout_path is None
        thread_id = configured.session_id
        assert self._spawn is not None
        self.router = ApprovalRouter(
            thread_id, self.client, self.submit, self._spawn, self._waiting
        )
        self.map = ThreadEventMap(
            thread_id,
            self._notify,
            self.router,
            self._on_rate_limits,
            mcp_servers=frozenset(self.services.config.mcp_servers),
            turn_unread=None if self.ephemeral else self._turn_unread,
        )
        session = self.codex.session
        if session is not None:
            session.child_events = self.children.handle

    def _child_router(
        self, thread_id: str, waiting: Callable[[ThreadActiveFlag, int], None]
    ) -> ApprovalRouter:
        # A child's answers go through this thread's engine: the child waits on its waiters.
        assert self._spawn is not None
        return ApprovalRouter(thread_id, self.client, self.submit, self._spawn, waiting)

    def _turn_unread(self, turn_id: str) -> ThreadReadStateChangedNotification | None:
        try:
            return unread.turn_finished(self.services.codex_home, self.thread_id, turn_id)
        except OSError:
            log.warning("thread %s: could not record its read state", self.thread_id)
            return None

    def _notify(self, method: str, params: BaseModel) -> None:
        if self.subscribed:
            self.client.notify(method, params)

    def _waiting(self, flag: ThreadActiveFlag, delta: int) -> None:
        if self.map is not None:
            self.map.waiting(flag, delta)

    async def _listen(self) -> None:
        # From here on events reach the map in the task that emits them: a queue read by a
        # pump task would cost every streamed delta an extra trip through the event loop.
        # Started as a task so what is already queued is handed over where a pump would.
        # A door that queues output says how far behind its client is reading, and lets the
        # engine wait for it to catch up: the model's stream pauses; live command output is
        # summarised while the client is behind (the command's full output still arrives
        # when it ends), so a slow client never changes what a command does.
        self.codex.deliver_to(
            self._on_event,
            backlog=self.client.backlog,
            drained=self.client.drained,
        )

    def _on_event(self, event: Event) -> None:
        self.last_activity = time.monotonic()
        if not self.replies.offer(event):
            self._deliver(event)

    def _deliver(self, event: Event) -> None:
        assert self.map is not None
        try:
            self.map.handle(event)
        except Exception:  # one bad event must not silence the thread
            log.exception("thread %s: mapping %s failed", self.thread_id, event.msg.type)
