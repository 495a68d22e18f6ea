"""The threads as stored, loaded or not: `thread/list`, `thread/read`, `thread/archive`,
`thread/unarchive` and `thread/name/set`.

A loaded thread is asked first where it knows better than its rollout (an ephemeral thread has
none; a running one reports its status); otherwise the rollout under `$CODEX_HOME` answers.
"""

from __future__ import annotations

from typing import Any

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_PARAMS, ApiError
from codex_lsp.api.threads import sections, store as thread_store, unread
from codex_lsp.protocol.core.ops import SetThreadName
from codex_lsp.protocol.threads.models import (
    THREAD_ARCHIVE,
    THREAD_LIST,
    THREAD_NAME_SET,
    THREAD_READ,
    THREAD_UNARCHIVE,
    NotLoadedThreadStatus,
    ThreadArchiveParams,
    ThreadListParams,
    ThreadListResponse,
    ThreadReadParams,
    ThreadReadResponse,
    ThreadSetNameParams,
    ThreadUnarchiveParams,
    ThreadUnarchiveResponse,
)
from codex_lsp.protocol.threads.notifications import (
    ThreadArchivedNotification,
    ThreadNameUpdatedNotification,
    ThreadStatusChangedNotification,
    ThreadUnarchivedNotification,
)


class ThreadRecords:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    async def list(self, params: ThreadListParams) -> ThreadListResponse:
        home = self._ctx.services().codex_home
        page = await thread_store.list_page(home, params, self._ctx.threads.statuses())
        page.read_states = await unread.of_threads(home, [t.id for t in page.data])
        await sections.place(home, page.data)
        return page

    async def read(self, params: ThreadReadParams) -> ThreadReadResponse:
        threads = self._ctx.threads
        loaded = threads.loaded.get(params.thread_id)
        if loaded is not None and loaded.rollout_path is None:
            # An ephemeral thread has no rollout: it is what the engine holds.
            return ThreadReadResponse(thread=threads.thread_object(loaded))
        status = loaded.map.status() if loaded is not None and loaded.map is not None else None
        running = (
            loaded.map.active_turn_id if loaded is not None and loaded.map is not None else None
        )
        home = self._ctx.services().codex_home
        thread = await thread_store.read_thread(
            home,
            params.thread_id,
            include_turns=params.include_turns,
            status=status,
            running_turn=running,
        )
        state = await unread.of_thread(home, params.thread_id)
        await sections.place(home, [thread])
        return ThreadReadResponse(thread=thread, read_state=state)

    async def archive(self, params: ThreadArchiveParams) -> None:
        # A thread that is running is stopped first: its rollout must not move under it.
        if await self._ctx.threads.unload(params.thread_id):
            self._ctx.client.notify(
                "thread/status/changed",
                ThreadStatusChangedNotification(
                    thread_id=params.thread_id, status=NotLoadedThreadStatus()
                ),
            )
        await thread_store.archive(self._ctx.services().codex_home, params.thread_id)
        self._ctx.after_response(
            "thread/archived", ThreadArchivedNotification(thread_id=params.thread_id)
        )

    async def unarchive(self, params: ThreadUnarchiveParams) -> ThreadUnarchiveResponse:
        thread = await thread_store.unarchive(self._ctx.services().codex_home, params.thread_id)
        self._ctx.after_response(
            "thread/unarchived", ThreadUnarchivedNotification(thread_id=params.thread_id)
        )
        return ThreadUnarchiveResponse(thread=thread)

    async def set_name(self, params: ThreadSetNameParams) -> None:
        name = params.name.strip()
        if not name:
            raise ApiError(INVALID_PARAMS, "Invalid params: name: a thread name cannot be empty")
        loaded = self._ctx.threads.loaded.get(params.thread_id)
        if loaded is not None and loaded.codex.session is not None:
            # The engine records the name and reports it; its event becomes thread/name/updated.
            await loaded.submit(SetThreadName(name=name))
            return
        home = self._ctx.services().codex_home
        await thread_store.name_stored_thread(home, params.thread_id, name)
        self._ctx.after_response(
            "thread/name/updated",
            ThreadNameUpdatedNotification(thread_id=params.thread_id, thread_name=name),
        )


def handlers(ctx: ApiContext) -> Routes:
    records = ThreadRecords(ctx)

    async def list_threads(params: ThreadListParams, _raw: dict[str, Any]) -> ThreadListResponse:
        return await records.list(params)

    async def read(params: ThreadReadParams, _raw: dict[str, Any]) -> ThreadReadResponse:
        return await records.read(params)

    async def archive(params: ThreadArchiveParams, _raw: dict[str, Any]) -> None:
        await records.archive(params)

    async def unarchive(
        params: ThreadUnarchiveParams, _raw: dict[str, Any]
    ) -> ThreadUnarchiveResponse:
        return await records.unarchive(params)

    async def set_name(params: ThreadSetNameParams, _raw: dict[str, Any]) -> None:
        await records.set_name(params)

    return (
        Routes()
        .on(THREAD_LIST, list_threads)
        .on(THREAD_READ, read)
        .on(THREAD_ARCHIVE, archive)
        .on(THREAD_UNARCHIVE, unarchive)
        .on(THREAD_NAME_SET, set_name)
    )
