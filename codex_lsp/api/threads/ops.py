"""Thread housekeeping and history changes: `thread/loaded/list`, `thread/unsubscribe`,
`thread/delete`, `thread/metadata/update`, `thread/compact/start`, `thread/inject_items`,
`thread/revert` and `turn/steer`.

A thread nobody is subscribed to stays loaded while it works, and is unloaded (with
`thread/closed`) once it has been idle for `IDLE_UNLOAD_S` seconds, as the reference server does.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.api.convert import error_info_to_v2, invalid, user_input_to_core
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.api.threads import store as thread_store
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.threads.pages import Anchor, thread_turns
from codex_lsp.engine.history_ops import replacement
from codex_lsp.protocol.core.events import ErrorEvent
from codex_lsp.protocol.core.events_history import SteerAcceptedEvent
from codex_lsp.protocol.core.ops import Compact, InjectItems, RevertToTurn, SteerInput
from codex_lsp.protocol.threads.models import NotLoadedThreadStatus
from codex_lsp.protocol.threads.notifications import ThreadStatusChangedNotification
from codex_lsp.protocol.threads.ops import (
    THREAD_COMPACT_START,
    THREAD_DELETE,
    THREAD_INJECT_ITEMS,
    THREAD_LOADED_LIST,
    THREAD_METADATA_UPDATE,
    THREAD_REVERT,
    THREAD_UNSUBSCRIBE,
    TURN_STEER,
    ThreadClosedNotification,
    ThreadCompactStartParams,
    ThreadDeletedNotification,
    ThreadDeleteParams,
    ThreadInjectItemsParams,
    ThreadLoadedListParams,
    ThreadLoadedListResponse,
    ThreadMetadataUpdateParams,
    ThreadMetadataUpdateResponse,
    ThreadRevertedNotification,
    ThreadRevertParams,
    ThreadRevertResponse,
    ThreadUnsubscribeParams,
    ThreadUnsubscribeResponse,
    TurnSteerParams,
    TurnSteerResponse,
)
from codex_lsp.store.history import history_before_turn
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout import COMPACTED, RolloutRecorder, read_rollout
from codex_lsp.store.rollout_files import find_rollout
from codex_lsp.store.thread_metadata import record_git


def _not_loaded(thread_id: str) -> ThreadStatusChangedNotification:
    """The thread left memory: its status is `notLoaded` until it is resumed."""
    return ThreadStatusChangedNotification(thread_id=thread_id, status=NotLoadedThreadStatus())


IDLE_UNLOAD_S = float(os.environ.get("CODEX_LSP_THREAD_IDLE_UNLOAD_S", 30 * 60))
"""How long an unsubscribed thread stays loaded without activity (the environment variable is
for tests, which cannot wait half an hour)."""

_GIT_FIELDS = {"sha": "sha", "branch": "branch", "origin_url": "origin_url"}


class ThreadOps:
    def __init__(self, ctx: ApiContext) -> None:
        self.ctx = ctx

    @property
    def home(self) -> Path:
        return self.ctx.services().codex_home

    # -- loaded threads and subscriptions ----------------------------------------------------

    async def loaded_list(self, params: ThreadLoadedListParams) -> ThreadLoadedListResponse:
        # A child thread is loaded while the thread whose team it is in is.
        ids = sorted(
            thread_id
            for root_id, thread in self.ctx.threads.loaded.items()
            if not thread.done.is_set()
            for thread_id in (root_id, *thread.children.ids())
        )
        if params.cursor:
            ids = [thread_id for thread_id in ids if thread_id > params.cursor]
        if params.limit:
            page = ids[: params.limit]
            more = len(ids) > params.limit
            return ThreadLoadedListResponse(data=page, next_cursor=page[-1] if more else None)
        return ThreadLoadedListResponse(data=ids)

    async def unsubscribe(self, thread_id: str) -> ThreadUnsubscribeResponse:
        thread = self.ctx.threads.loaded.get(thread_id)
        if thread is None or thread.done.is_set():
            return ThreadUnsubscribeResponse(status="notLoaded")
        if not thread.subscribed:
            return ThreadUnsubscribeResponse(status="notSubscribed")
        thread.subscribed = False
        host = await self.ctx.host()
        host.start_soon(self._unload_when_idle, thread)
        return ThreadUnsubscribeResponse(status="unsubscribed")

    async def _unload_when_idle(self, thread: LoadedThread) -> None:
        while True:
            idle_for = time.monotonic() - thread.last_activity
            running = thread.map is not None and thread.map.active_turn_id is not None
            if thread.subscribed or thread.done.is_set():
                return
            if not running and idle_for >= IDLE_UNLOAD_S:
                break
            await anyio.sleep(max(IDLE_UNLOAD_S - idle_for, 1.0 if running else 0.0))
        thread_id = thread.thread_id
        if self.ctx.threads.loaded.get(thread_id) is not thread:
            return
        await self.ctx.threads.unload(thread_id)
        client = self.ctx.client
        client.notify("thread/status/changed", _not_loaded(thread_id))
        client.notify("thread/closed", ThreadClosedNotification(thread_id=thread_id))

    # -- stored threads ----------------------------------------------------------------------

    async def delete(self, thread_id: str) -> None:
        if await self.ctx.threads.unload(thread_id):
            self.ctx.client.notify("thread/status/changed", _not_loaded(thread_id))
        path = await anyio.to_thread.run_sync(find_rollout, self.home, thread_id)
        if path is None:
            raise ApiError(INVALID_REQUEST, f"no rollout found for thread id {thread_id}")
        await anyio.to_thread.run_sync(path.unlink)
        self.ctx.after_response("thread/deleted", ThreadDeletedNotification(thread_id=thread_id))

    async def update_metadata(
        self, params: ThreadMetadataUpdateParams
    ) -> ThreadMetadataUpdateResponse:
        current = await self._read(params.thread_id)
        patch = params.git_info
        if patch is not None:
            git: dict[str, Any] = {}
            if current.git_info is not None:
                git = current.git_info.model_dump()
            for name in patch.model_fields_set & set(_GIT_FIELDS):
                value = getattr(patch, name)
                if value is not None and not value.strip():
                    raise invalid(f"gitInfo.{name}", "must be a non-empty string or null")
                git[_GIT_FIELDS[name]] = value
            kept = {key: value for key, value in git.items() if value is not None}

            def store() -> None:
                record_git(self.home, params.thread_id, kept or None)

            await anyio.to_thread.run_sync(store)
        return ThreadMetadataUpdateResponse(thread=await self._read(params.thread_id))

    async def _read(self, thread_id: str) -> Any:
        loaded = self.ctx.threads.loaded.get(thread_id)
        if loaded is not None and loaded.rollout_path is None:
            raise ApiError(INVALID_REQUEST, f"thread {thread_id} is ephemeral: it has no metadata")
        status = loaded.map.status() if loaded is not None and loaded.map is not None else None
        return await thread_store.read_thread(
            self.home, thread_id, include_turns=False, status=status
        )

    # -- history -----------------------------------------------------------------------------

    async def compact(self, thread_id: str) -> None:
        thread = self.ctx.threads.get(thread_id)
        if thread.map is not None and thread.map.active_turn_id is not None:
            raise ApiError(INVALID_REQUEST, "a turn is running; compact once it has finished")
        # Like a turn: its id is the submission id, and it reports through turn notifications.
        await thread.submit(Compact(), sub_id=new_thread_id())

    async def inject(self, thread_id: str, items: list[Any]) -> None:
        thread = self.ctx.threads.get(thread_id)
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise ApiError(INVALID_REQUEST, f"items[{index}] is not a valid response item")
        answer = await thread.ask(
            InjectItems(items=items), ("items_injected", "error"), sub_id=new_thread_id()
        )
        if isinstance(answer.msg, ErrorEvent):
            raise ApiError(INVALID_REQUEST, answer.msg.message)

    async def revert(self, params: ThreadRevertParams) -> ThreadRevertResponse:
        turns = await thread_turns(self.ctx, params.thread_id)
        ids = [turn.id for turn in turns]
        if params.before_turn_id not in ids:
            raise ApiError(INVALID_REQUEST, f"turn not found: {params.before_turn_id}")
        dropped = len(ids) - ids.index(params.before_turn_id)
        loaded = self.ctx.threads.loaded.get(params.thread_id)
        if loaded is not None and not loaded.done.is_set():
            op = RevertToTurn(turn_id=params.before_turn_id, num_turns=dropped)
            answer = await loaded.ask(op, ("thread_rolled_back", "error"), sub_id=new_thread_id())
            if isinstance(answer.msg, ErrorEvent):
                raise ApiError(INVALID_REQUEST, answer.msg.message)
        else:
            await anyio.to_thread.run_sync(
                _revert_stored, self.home, params.thread_id, params.before_turn_id, dropped
            )
        thread = await self._read(params.thread_id)
        self.ctx.after_response(
            "thread/reverted", ThreadRevertedNotification(thread_id=params.thread_id)
        )
        kept = turns[: ids.index(params.before_turn_id)]
        last_turn = kept[-1] if kept else None
        last_item = next((t for t in reversed(kept) if t.items), None)
        return ThreadRevertResponse(
            thread=thread,
            turns_backwards_cursor=Anchor(params.thread_id, last_turn.id, include=True).encode()
            if last_turn
            else None,
            items_backwards_cursor=Anchor(
                params.thread_id, last_item.id, last_item.items[-1].id, include=True
            ).encode()
            if last_item
            else None,
        )

    async def steer(self, params: TurnSteerParams) -> TurnSteerResponse:
        thread = self.ctx.threads.get(params.thread_id)
        if not params.input:
            raise invalid("input", "steering needs at least one input item")
        assert thread.map is not None
        items = user_input_to_core(params.input)
        thread.map.expect_steer(params.expected_turn_id, list(params.input))
        op = SteerInput(items=items, expected_turn_id=params.expected_turn_id)
        answer = await thread.ask(op, ("steer_accepted", "error"), sub_id=new_thread_id())
        msg = answer.msg
        if isinstance(msg, SteerAcceptedEvent):
            return TurnSteerResponse(turn_id=msg.turn_id)
        thread.map.forget_steer(params.expected_turn_id)
        assert isinstance(msg, ErrorEvent)
        data = None
        info = msg.codex_error_info
        if isinstance(info, dict) and "active_turn_not_steerable" in info:
            data = {
                "message": msg.message,
                "codexErrorInfo": error_info_to_v2(info),
                "additionalDetails": None,
            }
        raise ApiError(INVALID_REQUEST, msg.message, data)


def _revert_stored(home: Path, thread_id: str, turn_id: str, dropped: int) -> None:
    """Revert a thread no engine has loaded: the same two lines the engine would write."""
    path = thread_store.rollout_path(home, thread_id)
    history = history_before_turn(read_rollout(path).lines, turn_id)
    if history is None:
        raise ApiError(INVALID_REQUEST, f"turn not found: {turn_id}")
    recorder = RolloutRecorder.open_existing(path)
    try:
        recorder.record_event({"type": "thread_rolled_back", "num_turns": dropped})
        recorder.record(COMPACTED, replacement(history))
    finally:
        recorder.close()


def handlers(ctx: ApiContext) -> Routes:
    ops = ThreadOps(ctx)

    async def loaded_list(
        params: ThreadLoadedListParams, _raw: dict[str, Any]
    ) -> ThreadLoadedListResponse:
        return await ops.loaded_list(params)

    async def unsubscribe(
        params: ThreadUnsubscribeParams, _raw: dict[str, Any]
    ) -> ThreadUnsubscribeResponse:
        return await ops.unsubscribe(params.thread_id)

    async def delete(params: ThreadDeleteParams, _raw: dict[str, Any]) -> None:
        await ops.delete(params.thread_id)

    async def metadata(
        params: ThreadMetadataUpdateParams, _raw: dict[str, Any]
    ) -> ThreadMetadataUpdateResponse:
        return await ops.update_metadata(params)

    async def compact(params: ThreadCompactStartParams, _raw: dict[str, Any]) -> None:
        await ops.compact(params.thread_id)

    async def inject(params: ThreadInjectItemsParams, _raw: dict[str, Any]) -> None:
        await ops.inject(params.thread_id, params.items)

    async def revert(params: ThreadRevertParams, _raw: dict[str, Any]) -> ThreadRevertResponse:
        return await ops.revert(params)

    async def steer(params: TurnSteerParams, _raw: dict[str, Any]) -> TurnSteerResponse:
        return await ops.steer(params)

    return (
        Routes()
        .on(THREAD_LOADED_LIST, loaded_list)
        .on(THREAD_UNSUBSCRIBE, unsubscribe)
        .on(THREAD_DELETE, delete)
        .on(THREAD_METADATA_UPDATE, metadata)
        .on(THREAD_COMPACT_START, compact)
        .on(THREAD_INJECT_ITEMS, inject)
        .on(THREAD_REVERT, revert)
        .on(TURN_STEER, steer)
    )
