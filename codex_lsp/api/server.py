"""`ApiServer`: the transport-agnostic v2 API behind every front door.

A door hands each client request to `handle(method, params)` and writes back the dict it returns
or the `ApiError` it raises; everything the API says unprompted goes through the door's
`ClientPort`. Params are validated with the v2 models (a bad field is a -32602 naming it) and
results are dumped with them, so shapes match the schema.

Loaded threads run as tasks of a task group the server hosts in a background task of its own,
started on first use: a door may call `handle` from any task and need not lend one. `aclose()`
shuts every thread down (their turns aborted, rollouts flushed) and stops that task.

What follows a response (`thread/started`, the warnings a session gave while it started, a
review's turn) is queued with `_after_response`, so it reaches the client after the response.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup
from pydantic import BaseModel, ValidationError

from codex_lsp.api.convert import invalid
from codex_lsp.api.editor_service import EditorService
from codex_lsp.api.families import API_FAMILIES
from codex_lsp.api.family import ApiContext, Handler, Routes
from codex_lsp.api.port import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    SERVING_REQUEST,
    ApiError,
    ClientPort,
)
from codex_lsp.api.scope import not_found_message
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.threads.manager import ThreadManager
from codex_lsp.api.turns.lifecycle import interrupt_turn, start_turn
from codex_lsp.api.turns.review import start_review
from codex_lsp.api.turns.tasks import start_task
from codex_lsp.api.validation import validation_message
from codex_lsp.engine.services import EngineServices
from codex_lsp.protocol import v2
from codex_lsp.protocol.account.models import RateLimitSnapshot
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.core.goals import ContinueThreadGoal
from codex_lsp.protocol.threads.models import (
    THREAD_FORK,
    THREAD_RESUME,
    THREAD_START,
    ThreadForkParams,
    ThreadForkResponse,
    ThreadResumeParams,
    ThreadResumeResponse,
    ThreadStartParams,
    ThreadStartResponse,
)
from codex_lsp.protocol.threads.notifications import (
    ThreadStartedNotification,
    ThreadStatusChangedNotification,
)
from codex_lsp.protocol.turns.models import (
    REVIEW_START,
    TURN_INTERRUPT,
    TURN_START,
    ReviewStartParams,
    ReviewStartResponse,
    TurnInterruptParams,
    TurnStartResponse,
)
from codex_lsp.protocol.turns.tasks import TURN_START_TASK, TurnStartTaskParams

log = logging.getLogger(__name__)


class ApiServer:
    def __init__(self, services_factory: Callable[[], EngineServices], client: ClientPort) -> None:
        self._services_factory = services_factory
        self._client = client
        self._base: EngineServices | None = None
        self._host_group: TaskGroup | None = None
        self._host_task: asyncio.Task[None] | None = None
        self._host_lock = anyio.Lock()
        self._stop = anyio.Event()
        self._closed = False
        self.threads = ThreadManager(services_factory, client, self._host, self._note_limits)
        self.editor = EditorService(self.threads, lambda: self._services().codex_home)
        """What an editor door asks of the loaded threads beyond the v2 methods."""
        core = (
            Routes()
            .on(THREAD_START, self._thread_start)
            .on(THREAD_RESUME, self._thread_resume)
            .on(THREAD_FORK, self._thread_fork)
            .on(TURN_START, lambda p, _raw: start_turn(self.threads.get(p.thread_id), p))
            .on(TURN_START_TASK, lambda p, _raw: self.start_task(p))
            .on(TURN_INTERRUPT, self._turn_interrupt)
            .on(REVIEW_START, self._review_start)
        )
        self._handlers: dict[str, Handler[Any, Any]] = dict(core.handlers)
        self._context = ApiContext(
            self.threads,
            client,
            self._services,
            self._after_response,
            self._after_response_call,
            self._host,
        )
        for family in API_FAMILIES:
            for method, handler in family.handlers(self._context).handlers.items():
                if method in self._handlers:
                    raise ValueError(f"{method} is served by two families")
                self._handlers[method] = handler

    # -- the seam ---------------------------------------------------------------------------

    async def handle(
        self, method: str, params: dict[str, Any] | None, request_id: int | str | None = None
    ) -> dict[str, Any]:
        """Serve a client request; its result as wire JSON (`{}` for a method without one)."""
        result = await self.serve(method, params, request_id)
        return {} if result is None else dump(result)

    async def serve(
        self, method: str, params: dict[str, Any] | None, request_id: int | str | None = None
    ) -> BaseModel | None:
        """Serve a client request; its result model (None for a method without one), for a door
        that acts on results as well as passing them on. `request_id`: the request's JSON-RPC
        id, which a cancellation names."""
        SERVING_REQUEST.set(request_id)
        handler = self._handlers.get(method)
        if handler is None:
            raise ApiError(METHOD_NOT_FOUND, not_found_message(method))
        if self._closed:
            raise ApiError(INVALID_REQUEST, "the server is shutting down")
        if params is not None and not isinstance(params, dict):
            raise ApiError(INVALID_PARAMS, "Invalid params: params must be an object")
        try:
            parsed = v2.parse_params(method, params)
        except ValidationError as err:
            raise ApiError(INVALID_PARAMS, validation_message(err)) from None
        return await handler(parsed, params or {})

    def served_methods(self) -> frozenset[str]:
        """The client requests `serve` answers (`initialize` is the door's own)."""
        return frozenset(self._handlers)

    async def start_thread(self, params: ThreadStartParams) -> ThreadStartResponse:
        """`thread/start` for a door holding typed params; the thread is announced as usual."""
        if self._closed:
            raise ApiError(INVALID_REQUEST, "the server is shutting down")
        response = await self.threads.start(params)
        self._announce(self.threads.get(response.thread.id))
        return response

    async def start_task(self, params: TurnStartTaskParams) -> TurnStartResponse:
        """`turn/startTask` for a door holding typed params."""
        if self._closed:
            raise ApiError(INVALID_REQUEST, "the server is shutting down")
        return await start_task(self.threads.get(params.thread_id), params)

    async def aclose(self) -> None:
        """Shut down every loaded thread and the background task hosting them."""
        if self._closed:
            return
        self._closed = True
        for closer in reversed(self._context.closers):
            await closer()
        await self.threads.close_all()
        self._stop.set()
        if self._host_task is not None:
            await self._host_task
        if self._base is not None and self._base.http is not None:
            await self._base.http.aclose()

    # -- hosting ----------------------------------------------------------------------------

    async def _host(self) -> TaskGroup:
        async with self._host_lock:
            if self._host_group is None:
                ready = anyio.Event()
                self._host_task = asyncio.get_running_loop().create_task(self._run_host(ready))
                await ready.wait()
            assert self._host_group is not None
            return self._host_group

    async def _run_host(self, ready: anyio.Event) -> None:
        async with anyio.create_task_group() as group:
            self._host_group = group
            ready.set()
            await self._stop.wait()
            group.cancel_scope.cancel()

    def _after_response(self, method: str, params: BaseModel) -> None:
        """Send a notification once the current request's response is out: the door writes
        the response as soon as `handle` returns, before the loop runs this callback."""
        asyncio.get_running_loop().call_soon(self._client.notify, method, params)

    def _after_response_call(self, action: Callable[[], None]) -> None:
        """Run `action` once the response is out, after what was queued before it."""
        asyncio.get_running_loop().call_soon(action)

    def _announce(self, thread: LoadedThread) -> None:
        """`thread/started` for a new thread (without its copied turns), then what its session
        said while it started (warnings, rebuilt subagents): the client knows it by then."""
        self._after_response(
            "thread/started",
            ThreadStartedNotification(thread=self.threads.thread_object(thread, turns=[])),
        )
        self._after_response_call(thread.send_startup)

    def _services(self) -> EngineServices:
        if self._base is None:
            self._base = self.threads.load_services()
        return self._base

    def _note_limits(self, snapshot: RateLimitSnapshot) -> None:
        for listener in self._context.limit_listeners:
            listener(snapshot)

    # -- threads ----------------------------------------------------------------------------

    async def _thread_start(
        self, params: ThreadStartParams, _raw: dict[str, Any]
    ) -> ThreadStartResponse:
        return await self.start_thread(params)

    async def _thread_resume(
        self, params: ThreadResumeParams, raw: dict[str, Any]
    ) -> ThreadResumeResponse:
        return await self.resume_thread(params, _path(raw))

    async def resume_thread(
        self, params: ThreadResumeParams, path: str | None = None
    ) -> ThreadResumeResponse:
        """`thread/resume` (from the rollout at `path` when given) for a door holding typed
        params: the thread's status goes out before the answer, its usage so far after it."""
        response = await self.threads.resume(params, path)
        thread = self.threads.get(response.thread.id)
        # As the reference server: the resumed thread's status before the answer, its usage
        # so far after it.
        status = ThreadStatusChangedNotification(
            thread_id=thread.thread_id, status=response.thread.status
        )
        self._client.notify("thread/status/changed", status)
        usage = thread.usage_report()
        if usage is not None:
            self._after_response("thread/tokenUsage/updated", usage)
        self._after_response_call(thread.send_startup)
        session = thread.codex.session
        if session is not None and (session.goal or {}).get("status") == "active":
            # As the reference server: a thread resumed with an active goal takes it up again
            # once the client has the thread.
            group = await self._host()

            def take_up() -> None:
                group.start_soon(thread.submit, ContinueThreadGoal())

            self._after_response_call(take_up)
        return response

    async def _thread_fork(
        self, params: ThreadForkParams, raw: dict[str, Any]
    ) -> ThreadForkResponse:
        response = await self.threads.fork(params, _path(raw))
        self._announce(self.threads.get(response.thread.id))
        return response

    async def _turn_interrupt(self, params: TurnInterruptParams, _raw: dict[str, Any]) -> None:
        thread = self.threads.get(params.thread_id)
        try:
            await interrupt_turn(thread, params)
        finally:
            # The turn's end was held back for this answer: it follows it.
            if thread.map is not None:
                self._after_response_call(thread.map.release_finish)

    # -- review -----------------------------------------------------------------------------

    async def _review_start(
        self, params: ReviewStartParams, _raw: dict[str, Any]
    ) -> ReviewStartResponse:
        return await self.start_review(params)

    async def start_review(self, params: ReviewStartParams) -> ReviewStartResponse:
        """`review/start` for a door holding typed params: inline on the thread, or detached
        on a fork of it that the client hears of after the answer."""
        if self._closed:
            raise ApiError(INVALID_REQUEST, "the server is shutting down")
        thread = self.threads.get(params.thread_id)
        if params.delivery != "detached":
            started = await start_review(thread, params)
        else:
            if thread.rollout_path is None:
                raise invalid(
                    "delivery",
                    "an ephemeral thread has no history to fork for a detached review; "
                    "review it inline",
                )
            response = await self.threads.fork(ThreadForkParams(thread_id=thread.thread_id), None)
            fork = self.threads.get(response.thread.id)
            try:
                started = await start_review(fork, params)
            except ApiError:
                # The client never heard of the fork: leave no trace of it.
                await self.threads.discard(fork.thread_id)
                raise
            self._announce(fork)
        self._after_response_call(lambda: started.thread.release(started.turn.id))
        return ReviewStartResponse(turn=started.turn, review_thread_id=started.thread.thread_id)


def _path(raw: dict[str, Any]) -> str | None:
    """The optional rollout `path` of resume and fork (not in our params models)."""
    path = raw.get("path")
    if path is not None and not isinstance(path, str):
        raise ApiError(INVALID_PARAMS, "Invalid params: path: expected a string")
    return path
