"""Thread sections: `threadSection/{list,create,update,delete}` and `thread/section/move`,
with `thread/section/changed` after a move.

Sections and which thread sits where live in `$CODEX_HOME` (`store.thread_sections`), so every
door and every process sees the same ones; the built-in "Pinned" section comes first, as the
reference server has it. Errors carry the reference's codes: an unknown section is invalid
params for update and delete, an invalid request for a move, like an unknown thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST, ApiError
from codex_lsp.api.threads import store as thread_store
from codex_lsp.protocol.threads.models import Thread
from codex_lsp.protocol.threads.sections import (
    THREAD_SECTION_CREATE,
    THREAD_SECTION_DELETE,
    THREAD_SECTION_LIST,
    THREAD_SECTION_MOVE,
    THREAD_SECTION_UPDATE,
    ThreadSection,
    ThreadSectionAppearance,
    ThreadSectionChangedNotification,
    ThreadSectionCreateParams,
    ThreadSectionCreateResponse,
    ThreadSectionDeleteParams,
    ThreadSectionDeleteResponse,
    ThreadSectionListParams,
    ThreadSectionListResponse,
    ThreadSectionMoveParams,
    ThreadSectionMoveResponse,
    ThreadSectionUpdateParams,
    ThreadSectionUpdateResponse,
)
from codex_lsp.store import thread_sections as store
from codex_lsp.store.rollout_files import find_rollout


def wire(section: store.Section) -> ThreadSection:
    appearance = (
        None if section.appearance is None else ThreadSectionAppearance(**section.appearance)
    )
    return ThreadSection(id=section.id, name=section.name, appearance=appearance)


async def place(home: Path, threads: Iterable[Thread]) -> None:
    """Fill each thread's `section` and `sectionEnteredAt` from the sections sidecar."""
    state = await anyio.to_thread.run_sync(store.load_sections, home)
    for thread in threads:
        section = state.section_of(thread.id)
        thread.section = None if section is None else wire(section)
        thread.section_entered_at = None if section is None else state.entered_at.get(thread.id)


def _appearance(value: ThreadSectionAppearance | None) -> dict[str, Any] | None:
    return None if value is None else value.model_dump(mode="json")


class ThreadSections:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    def _home(self) -> Path:
        return self._ctx.services().codex_home

    async def list(
        self, params: ThreadSectionListParams, _raw: dict[str, Any]
    ) -> ThreadSectionListResponse:
        state = await anyio.to_thread.run_sync(store.load_sections, self._home())
        sections = list(state.sections.values())
        start = 0
        if params.cursor is not None:
            ids = [s.id for s in sections]
            start = ids.index(params.cursor) + 1 if params.cursor in ids else len(ids)
        end = len(sections) if params.limit is None else start + max(params.limit, 1)
        page = sections[start:end]
        more = end < len(sections)
        return ThreadSectionListResponse(
            data=[wire(s) for s in page], next_cursor=page[-1].id if more and page else None
        )

    async def create(
        self, params: ThreadSectionCreateParams, _raw: dict[str, Any]
    ) -> ThreadSectionCreateResponse:
        section = await anyio.to_thread.run_sync(
            store.create_section, self._home(), params.name, _appearance(params.appearance)
        )
        return ThreadSectionCreateResponse(section=wire(section))

    async def update(
        self, params: ThreadSectionUpdateParams, raw: dict[str, Any]
    ) -> ThreadSectionUpdateResponse:
        try:
            section = await anyio.to_thread.run_sync(
                store.update_section,
                self._home(),
                params.section_id,
                params.name,
                _appearance(params.appearance),
                "appearance" not in raw,
            )
        except store.SectionNotFound:
            raise _section_not_found(params.section_id) from None
        return ThreadSectionUpdateResponse(section=wire(section))

    async def delete(
        self, params: ThreadSectionDeleteParams, _raw: dict[str, Any]
    ) -> ThreadSectionDeleteResponse:
        try:
            await anyio.to_thread.run_sync(store.delete_section, self._home(), params.section_id)
        except store.SectionNotFound:
            raise _section_not_found(params.section_id) from None
        return ThreadSectionDeleteResponse()

    async def move(
        self, params: ThreadSectionMoveParams, _raw: dict[str, Any]
    ) -> ThreadSectionMoveResponse:
        home = self._home()
        if params.thread_id not in self._ctx.threads.loaded:
            found = await anyio.to_thread.run_sync(find_rollout, home, params.thread_id)
            if found is None:
                raise thread_store.not_found(params.thread_id)
        try:
            await anyio.to_thread.run_sync(
                store.move_thread,
                home,
                params.thread_id,
                params.section_id,
                params.before_thread_id,
            )
        except store.SectionNotFound:
            raise ApiError(INVALID_REQUEST, f"section {params.section_id} does not exist") from None
        changed = ThreadSectionChangedNotification(
            thread_id=params.thread_id, section_id=params.section_id
        )
        self._ctx.after_response("thread/section/changed", changed)
        return ThreadSectionMoveResponse()


def _section_not_found(section_id: str) -> ApiError:
    return ApiError(INVALID_PARAMS, f"thread section not found: {section_id}")


def handlers(ctx: ApiContext) -> Routes:
    sections = ThreadSections(ctx)
    return (
        Routes()
        .on(THREAD_SECTION_LIST, sections.list)
        .on(THREAD_SECTION_CREATE, sections.create)
        .on(THREAD_SECTION_UPDATE, sections.update)
        .on(THREAD_SECTION_DELETE, sections.delete)
        .on(THREAD_SECTION_MOVE, sections.move)
    )
