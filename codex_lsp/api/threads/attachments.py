"""Thread attachments: `thread/attachment/{add,list,remove}` and `thread/attachmentOwner/list`,
with `thread/attachment/updated` after each change.

They live in `$CODEX_HOME` (`store.thread_attachments`), so every door and every process sees
the same ones. A thread that is not stored is refused as invalid params, as the reference server
does; removing an attachment the thread does not hold succeeds and says nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import anyio

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_PARAMS, ApiError
from codex_lsp.protocol.threads.attachments import (
    THREAD_ATTACHMENT_ADD,
    THREAD_ATTACHMENT_LIST,
    THREAD_ATTACHMENT_OWNER_LIST,
    THREAD_ATTACHMENT_REMOVE,
    ThreadAttachment,
    ThreadAttachmentAddParams,
    ThreadAttachmentAddResponse,
    ThreadAttachmentListParams,
    ThreadAttachmentListResponse,
    ThreadAttachmentOwner,
    ThreadAttachmentOwnerListParams,
    ThreadAttachmentOwnerListResponse,
    ThreadAttachmentRemoveParams,
    ThreadAttachmentRemoveResponse,
    ThreadAttachmentUpdatedNotification,
)
from codex_lsp.store import thread_attachments as store
from codex_lsp.store.home import archived_dir
from codex_lsp.store.rollout_files import find_rollout

T = TypeVar("T")


def wire(attachment: store.Attachment) -> ThreadAttachment:
    return ThreadAttachment(
        id=attachment.id,
        attachment_type=attachment.type,
        identity_key=attachment.key,
        payload=attachment.payload,
        created_at=attachment.created_at,
    )


def _page(
    items: list[T], ids: list[str], cursor: str | None, limit: int | None
) -> tuple[list[T], str | None]:
    """One page of `items` after the one whose id is `cursor`, and the cursor for the next."""
    start = ids.index(cursor) + 1 if cursor in ids else (0 if cursor is None else len(ids))
    end = len(items) if limit is None else start + max(limit, 1)
    more = end < len(items)
    return items[start:end], ids[end - 1] if more else None


class ThreadAttachments:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    def _home(self) -> Path:
        return self._ctx.services().codex_home

    async def _stored(self, thread_id: str) -> Path:
        found = await anyio.to_thread.run_sync(find_rollout, self._home(), thread_id)
        if found is None:
            raise ApiError(INVALID_PARAMS, f"thread not found: {thread_id}")
        return found

    def _notify(self, attachment: store.Attachment, operation: Any) -> None:
        self._ctx.after_response(
            "thread/attachment/updated",
            ThreadAttachmentUpdatedNotification(
                thread_id=attachment.thread_id,
                attachment_type=attachment.type,
                identity_key=attachment.key,
                attachment_id=attachment.id,
                operation=operation,
            ),
        )

    async def add(
        self, params: ThreadAttachmentAddParams, _raw: dict[str, Any]
    ) -> ThreadAttachmentAddResponse:
        await self._stored(params.thread_id)
        attachment, created = await anyio.to_thread.run_sync(
            store.add_attachment,
            self._home(),
            params.thread_id,
            params.attachment_type,
            params.identity_key,
            params.payload,
        )
        if created:
            self._notify(attachment, "created")
        return ThreadAttachmentAddResponse(
            attachment=wire(attachment), outcome="created" if created else "existing"
        )

    async def list(
        self, params: ThreadAttachmentListParams, _raw: dict[str, Any]
    ) -> ThreadAttachmentListResponse:
        held = await anyio.to_thread.run_sync(store.load_attachments, self._home())
        mine = [a for a in held if a.thread_id == params.thread_id]
        page, cursor = _page(mine, [a.id for a in mine], params.cursor, params.limit)
        return ThreadAttachmentListResponse(data=[wire(a) for a in page], next_cursor=cursor)

    async def remove(
        self, params: ThreadAttachmentRemoveParams, _raw: dict[str, Any]
    ) -> ThreadAttachmentRemoveResponse:
        await self._stored(params.thread_id)
        removed = await anyio.to_thread.run_sync(
            store.remove_attachment,
            self._home(),
            params.thread_id,
            params.attachment_type,
            params.identity_key,
        )
        if removed is not None:
            self._notify(removed, "deleted")
        return ThreadAttachmentRemoveResponse()

    async def owners(
        self, params: ThreadAttachmentOwnerListParams, _raw: dict[str, Any]
    ) -> ThreadAttachmentOwnerListResponse:
        home = self._home()
        held = await anyio.to_thread.run_sync(store.load_attachments, home)
        owners: list[ThreadAttachmentOwner] = []
        for attachment in held:
            if (attachment.type, attachment.key) != (params.attachment_type, params.identity_key):
                continue
            found = await anyio.to_thread.run_sync(find_rollout, home, attachment.thread_id)
            if found is None:
                continue
            archived = found.is_relative_to(archived_dir(home))
            if params.archived is False and archived:
                continue
            owners.append(ThreadAttachmentOwner(thread_id=attachment.thread_id, archived=archived))
        ids = [o.thread_id for o in owners]
        page, cursor = _page(owners, ids, params.cursor, params.limit)
        return ThreadAttachmentOwnerListResponse(data=page, next_cursor=cursor)


def handlers(ctx: ApiContext) -> Routes:
    attachments = ThreadAttachments(ctx)
    return (
        Routes()
        .on(THREAD_ATTACHMENT_ADD, attachments.add)
        .on(THREAD_ATTACHMENT_LIST, attachments.list)
        .on(THREAD_ATTACHMENT_REMOVE, attachments.remove)
        .on(THREAD_ATTACHMENT_OWNER_LIST, attachments.owners)
    )
