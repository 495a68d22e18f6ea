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
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup
from pydantic import BaseModel, ValidationError

from codex_lsp.api.account import Accounts
from codex_lsp.api.catalog import model_list
from codex_lsp.api.config_problems import ConfigUnusable, read_failure
from codex_lsp.api.config_read import read_config
from codex_lsp.api.convert import invalid
from codex_lsp.api.families import API_FAMILIES
from codex_lsp.api.family import ApiContext, Handler
from codex_lsp.api.loaded import LoadedThread
from codex_lsp.api.port import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ApiError,
    ClientPort,
)
from codex_lsp.api.review import resumed_review, start_review, thread_review
from codex_lsp.api.scope import not_found_message
from codex_lsp.api.skills import list_skills
from codex_lsp.api.tasks import start_task
from codex_lsp.api.threads import ThreadManager
from codex_lsp.api.turns import interrupt_turn, start_turn
from codex_lsp.api.validation import validation_message
from codex_lsp.engine.approvals import RememberedApproval
from codex_lsp.engine.services import EngineServices
from codex_lsp.protocol import v2
from codex_lsp.protocol.inputs import ReviewOutputEvent
from codex_lsp.protocol.v2_account import RateLimitSnapshot
from codex_lsp.protocol.v2_common import dump
from codex_lsp.protocol.v2_notifications import (
    ThreadStartedNotification,
    ThreadStatusChangedNotification,
)
from codex_lsp.protocol.v2_tasks import TurnStartTaskParams
from codex_lsp.protocol.v2_threads import (
    ThreadForkParams,
    ThreadResumeParams,
    ThreadResumeResponse,
    ThreadStartParams,
    ThreadStartResponse,
)
from codex_lsp.protocol.v2_turns import ReviewStartParams, ReviewStartResponse, TurnStartResponse
from codex_lsp.store.review_marks import Resolution, mark_finding, settled_findings

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
        self._accounts: Accounts | None = None
        self._handlers: dict[str, Handler] = {
            "thread/start": self._thread_start,
            "thread/resume": self._thread_resume,
            "thread/fork": self._thread_fork,
            "turn/start": lambda p, _raw: start_turn(self.threads.get(p.thread_id), p),
            "turn/startTask": lambda p, _raw: self.start_task(p),
            "turn/interrupt": self._turn_interrupt,
            "review/start": self._review_start,
            "skills/list": self._skills_list,
            "model/list": self._model_list,
            "config/read": self._config_read,
            "account/read": self._account_read,
            "account/login/start": self._login_start,
            "account/login/cancel": self._login_cancel,
            "account/logout": self._logout,
            "account/rateLimits/read": self._rate_limits,
        }
        self._context = ApiContext(
            self.threads,
            client,
            self._services,
            self._after_response,
            self._after_response_call,
            self._host,
        )
        for family in API_FAMILIES:
            self._handlers.update(family.handlers(self._context))

    # -- the seam ---------------------------------------------------------------------------

    async def handle(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        """Serve a client request; its result as wire JSON (`{}` for a method without one)."""
        result = await self.serve(method, params)
        return {} if result is None else dump(result)

    async def serve(self, method: str, params: dict[str, Any] | None) -> BaseModel | None:
        """Serve a client request; its result model (None for a method without one), for a door
        that acts on results as well as passing them on."""
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

    def thread_cwd(self, thread_id: str) -> Path | None:
        """The working directory a loaded thread's turns run in, or None if it is not loaded."""
        thread = self.threads.loaded.get(thread_id)
        return thread.cwd if thread is not None else None

    def session_approvals(self) -> list[tuple[str, RememberedApproval]]:
        """Every loaded thread's `approved_for_session` decisions, with the thread's id."""
        found: list[tuple[str, RememberedApproval]] = []
        for thread_id, thread in list(self.threads.loaded.items()):
            session = thread.codex.session
            if session is not None:
                found.extend((thread_id, entry) for entry in session.approval_cache.remembered())
        return found

    def forget_session_approval(self, thread_id: str, entry: RememberedApproval) -> bool:
        """Take back one `approved_for_session` decision; False when the thread had none such."""
        thread = self.threads.loaded.get(thread_id)
        session = thread.codex.session if thread is not None else None
        return session is not None and session.approval_cache.forget(entry.kind, entry.key)

    def last_review(self, thread_id: str) -> ReviewOutputEvent | None:
        """The structured findings of the latest review that finished on a loaded thread
        (files, line ranges, priorities), for a door that shows them where the code is.

        None when the thread is not loaded or has not finished a review. A review whose
        answer could not be parsed replaces the previous one with no findings; an interrupted
        one leaves the previous one in place. With `delivery: "detached"` the review belongs
        to the `reviewThreadId` thread.
        """
        return thread_review(self.threads.loaded.get(thread_id))

    def resumed_review(self, thread_id: str) -> tuple[str, ReviewOutputEvent] | None:
        """The latest review that finished before the loaded thread was resumed, with the id of
        its turn: what a door shows again after a restart."""
        return resumed_review(self.threads.loaded.get(thread_id))

    def settled_findings(self, thread_id: str) -> dict[str, Resolution]:
        """The thread's review findings the user fixed or dismissed, by finding id."""
        return settled_findings(self._services().codex_home, thread_id)

    def settle_finding(self, thread_id: str, finding_id: str, resolution: Resolution) -> None:
        """Remember that a finding was fixed or dismissed, so it stays gone after a restart."""
        mark_finding(self._services().codex_home, thread_id, finding_id, resolution)

    async def aclose(self) -> None:
        """Shut down every loaded thread and the background task hosting them."""
        if self._closed:
            return
        self._closed = True
        for closer in reversed(self._context.closers):
            await closer()
        if self._accounts is not None:
            self._accounts.close()
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
        self._after_response_call(thread.replay_startup)

    def _services(self) -> EngineServices:
        if self._base is None:
            self._base = self.threads.load_services()
        return self._base

    @property
    def accounts(self) -> Accounts:
        if self._accounts is None:
            home = self._services().codex_home
            self._accounts = Accounts(home, self._client.notify, lambda: self._services().config)
        return self._accounts

    def _note_limits(self, snapshot: RateLimitSnapshot) -> None:
        self.accounts.note_limits(snapshot)

    # -- threads ----------------------------------------------------------------------------

    async def _thread_start(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        return await self.start_thread(params)

    async def _thread_resume(self, params: Any, raw: dict[str, Any]) -> BaseModel:
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
        self._after_response_call(thread.replay_startup)
        return response

    async def _thread_fork(self, params: Any, raw: dict[str, Any]) -> BaseModel:
        response = await self.threads.fork(params, _path(raw))
        self._announce(self.threads.get(response.thread.id))
        return response

    async def _turn_interrupt(self, params: Any, _raw: dict[str, Any]) -> None:
        thread = self.threads.get(params.thread_id)
        try:
            await interrupt_turn(thread, params)
        finally:
            # The turn's end was held back for this answer: it follows it.
            if thread.map is not None:
                self._after_response_call(thread.map.release_finish)

    # -- review and skills ------------------------------------------------------------------

    async def _review_start(self, params: ReviewStartParams, _raw: dict[str, Any]) -> BaseModel:
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

    async def _skills_list(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        return await list_skills(params, self.threads.loaded, self._services())

    # -- catalogue, config, account ---------------------------------------------------------

    async def _model_list(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        return await model_list(params, self._services())

    async def _config_read(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        # Read afresh: the user may have edited config.toml since the server started.
        try:
            services = self.threads.load_services()
        except ConfigUnusable as err:
            raise read_failure(err.cause) from None
        try:
            return read_config(params, services.config)
        finally:
            if services.http is not None:
                await services.http.aclose()

    async def _account_read(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        if getattr(params, "refresh_token", None):
            await self.accounts.refresh()
        return self.accounts.read()

    async def _login_start(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        return await self.accounts.login(params)

    async def _login_cancel(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        return self.accounts.cancel(params)

    async def _logout(self, params: Any, _raw: dict[str, Any]) -> None:
        self.accounts.logout()

    async def _rate_limits(self, params: Any, _raw: dict[str, Any]) -> BaseModel:
        return self.accounts.rate_limits()


def _path(raw: dict[str, Any]) -> str | None:
    """The optional rollout `path` of resume and fork (not in our params models)."""
    path = raw.get("path")
    if path is not None and not isinstance(path, str):
        raise ApiError(INVALID_PARAMS, "Invalid params: path: expected a string")
    return path
