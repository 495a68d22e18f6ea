"""`Codex`: the engine behind a Submission Queue and an Event Queue.

The UI sends `Submission`s; `Codex` answers with `Event`s whose id is the submission id of the
op that caused them. The first op must be `configure_session`. Nothing a UI sends can stop
the queue: an op that fails becomes an `error` event.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Awaitable, Callable
from functools import partial
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from pydantic import ValidationError

from codex_lsp.engine.editor_context import EditorContext
from codex_lsp.engine.services import EngineServices
from codex_lsp.engine.session import Session
from codex_lsp.engine.session_open import SessionHost
from codex_lsp.engine.workspace import DiskWorkspace, Workspace
from codex_lsp.protocol.core.events import ErrorEvent, Event, EventMsg, TurnAbortReason
from codex_lsp.protocol.core.ops import ConfigureSession, Op, Submission, UnknownOpError, parse_op

log = logging.getLogger(__name__)

NOT_CONFIGURED = "no session: send configure_session before any other op"


class Codex:
    """One engine instance: one Session at a time, driven by ops, reporting events."""

    def __init__(
        self,
        services: EngineServices,
        *,
        workspace: Workspace | None = None,
        editor: EditorContext | None = None,
    ) -> None:
        self.services = services
        self.workspace: Workspace = workspace or DiskWorkspace()
        # The editor the thread is shown in, when its front door can ask it things.
        self.editor = editor
        self.session: Session | None = None
        self._sq_send: MemoryObjectSendStream[Submission]
        self._sq_recv: MemoryObjectReceiveStream[Submission]
        self._sq_send, self._sq_recv = anyio.create_memory_object_stream(math.inf)
        self._eq_send: MemoryObjectSendStream[Event]
        self._eq_recv: MemoryObjectReceiveStream[Event]
        self._eq_send, self._eq_recv = anyio.create_memory_object_stream(math.inf)
        self._ids = itertools.count(1)
        self._task_group: TaskGroup | None = None
        self._unhandled = 0
        self._listener: Callable[[Event], None] | None = None
        self._listener_backlog: Callable[[], int] | None = None
        self._listener_drained: Callable[[], Awaitable[None]] | None = None

    async def __aenter__(self) -> Codex:
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        self._task_group.start_soon(self._submission_loop)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._task_group is not None
        await self._shutdown_session()
        self._task_group.cancel_scope.cancel()
        return await self._task_group.__aexit__(exc_type, exc, tb)

    # Submission Queue ---------------------------------------------------------------------

    def next_id(self) -> str:
        return f"sub-{next(self._ids)}"

    async def submit(self, op: Op, *, sub_id: str | None = None) -> str:
        sub_id = sub_id or self.next_id()
        self._unhandled += 1
        await self._sq_send.send(Submission(id=sub_id, op=op))
        return sub_id

    async def submit_raw(self, data: Any) -> str | None:
        """Accept a submission as decoded JSON; anything malformed becomes an `error` event."""
        sub_id = (
            str(data.get("id")) if isinstance(data, dict) and data.get("id") is not None else ""
        )
        if not isinstance(data, dict) or "op" not in data:
            self.emit(
                Event(id=sub_id, msg=ErrorEvent(message="invalid submission: expected {id, op}"))
            )
            return None
        try:
            op = parse_op(data["op"])
        except UnknownOpError as err:
            self.emit(Event(id=sub_id, msg=ErrorEvent(message=f"unknown op: {err.op_type}")))
            return None
        except ValidationError as err:
            self.emit(Event(id=sub_id, msg=ErrorEvent(message=f"invalid op: {_first_error(err)}")))
            return None
        return await self.submit(op, sub_id=sub_id or None)

    # Event Queue --------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        listener = self._listener
        if listener is not None:
            try:
                listener(event)
            except Exception:  # a consumer's bug must not break the turn that emitted
                log.exception("event listener failed on %s", event.msg.type)
            return
        try:
            self._eq_send.send_nowait(event)
        except anyio.ClosedResourceError:
            log.debug("event after the event queue closed: %s", event.msg.type)

    def deliver_to(
        self,
        listener: Callable[[Event], None],
        *,
        backlog: Callable[[], int] | None = None,
        drained: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """From now on hand each event to `listener` as it is emitted, instead of queueing it
        for `next_event` / `async for`; events already queued go first, in order.

        For a consumer that only turns events into messages and never waits: the queue would
        cost every event a hop through the event loop to the reading task, which is a large
        part of the latency of a streamed delta. `listener` runs in the emitting task; what
        it raises is logged and dropped. Nothing queues here any more, so `backlog`, if given,
        says how far behind the consumer's own output is (see `event_backlog`), and
        `drained`, if given, waits while it is too far behind (see `events_drained`).
        """
        while True:
            try:
                event = self._eq_recv.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                break
            try:
                listener(event)
            except Exception:
                log.exception("event listener failed on %s", event.msg.type)
        self._listener = listener
        self._listener_backlog = backlog
        self._listener_drained = drained

    def event_backlog(self) -> int:
        """Events sent but not yet read: how far the UI lags behind."""
        if self._listener is not None:
            backlog = self._listener_backlog
            return backlog() if backlog is not None else 0
        return self._eq_recv.statistics().current_buffer_used

    async def events_drained(self) -> None:
        """Return once the consumer has caught up enough to take more events.

        Streaming producers await this between events: with a client that stops reading, the
        turn pauses (and the model's stream with it) rather than queueing without bound or
        dropping what the client has yet to see.
        """
        drained = self._listener_drained
        if drained is not None:
            await drained()

    def end_events(self) -> None:
        """Close the event queue: readers finish once they have drained it (a listener given
        to `deliver_to` hears nothing more)."""
        self._listener = self._listener_backlog = self._listener_drained = None
        self._eq_send.close()

    async def wait_idle(self) -> None:
        """Wait until every submitted op is handled and no task is running."""
        while self._unhandled or (
            self.session is not None and self.session.running_task is not None
        ):
            task = self.session.running_task if self.session is not None else None
            if task is not None:
                await task.done.wait()
            else:
                await anyio.sleep(0.005)

    async def next_event(self) -> Event:
        return await self._eq_recv.receive()

    def __aiter__(self) -> Codex:
        return self

    async def __anext__(self) -> Event:
        try:
            return await self._eq_recv.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    # Dispatch -----------------------------------------------------------------------------

    async def _submission_loop(self) -> None:
        async for submission in self._sq_recv:
            try:
                await self._handle(submission)
            except Exception as err:  # An op that fails must never stop the queue.
                log.exception("op %s failed", submission.op.type)
                self._error(submission.id, f"{submission.op.type} failed: {err}")
            finally:
                self._unhandled -= 1

    async def _handle(self, submission: Submission) -> None:
        from codex_lsp.engine import handlers
        from codex_lsp.engine.context_factory import initial_turn_context
        from codex_lsp.engine.session_open import SessionOpenError, open_session, thread_origin

        op = submission.op
        if isinstance(op, ConfigureSession):
            await self._shutdown_session(reason="interrupted")
            settings = partial(initial_turn_context, self.services.config, op)
            try:
                self.session = await open_session(
                    self._host(), submission.id, thread_origin(op), settings
                )
            except SessionOpenError as err:
                self._error(submission.id, str(err))
            return
        if self.session is None:
            self._error(submission.id, NOT_CONFIGURED)
            return
        await handlers.handle_op(self, self.session, submission.id, op)

    def _host(self) -> SessionHost:
        assert self._task_group is not None
        return SessionHost(
            services=self.services,
            workspace=self.workspace,
            task_group=self._task_group,
            emit=self.emit,
            backlog=self.event_backlog,
            drained=self.events_drained,
            editor=self.editor,
        )

    def _error(self, sub_id: str, message: str) -> None:
        self.emit(Event(id=sub_id, msg=ErrorEvent(message=message)))

    def event(self, sub_id: str, msg: EventMsg) -> None:
        self.emit(Event(id=sub_id, msg=msg))

    async def _shutdown_session(self, reason: TurnAbortReason = "interrupted") -> None:
        session, self.session = self.session, None
        if session is not None:
            await session.abort_task(reason)
            await close_session(self.services, session)


async def close_session(services: EngineServices, session: Session) -> None:
    """End a session: its extensions first (they may still write), then its rollout."""
    for extension in services.extensions:
        try:
            await extension.session_closed(session)
        except Exception:
            log.exception("%s failed to close", extension.name)
    session.close()


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
