"""Thread attachments on the v2 wire: `thread/attachment/{add,list,remove}`,
`thread/attachmentOwner/list`, and `thread/attachment/updated` after a change.

An attachment is a client's record tied to a thread: a type, an identity key unique within that
type on the thread, and any JSON payload.
"""

from __future__ import annotations

from typing import Any, Literal

from codex_lsp.protocol.common import V2Model
from codex_lsp.protocol.methods import MethodTable


class ThreadAttachment(V2Model):
    id: str
    attachment_type: str
    identity_key: str
    payload: Any
    created_at: int


class ThreadAttachmentAddParams(V2Model):
    thread_id: str
    attachment_type: str
    identity_key: str
    payload: Any


class ThreadAttachmentAddResponse(V2Model):
    attachment: ThreadAttachment
    outcome: Literal["created", "existing"]


class ThreadAttachmentListParams(V2Model):
    thread_id: str
    cursor: str | None = None
    limit: int | None = None


class ThreadAttachmentListResponse(V2Model):
    data: list[ThreadAttachment]
    next_cursor: str | None = None


class ThreadAttachmentRemoveParams(V2Model):
    thread_id: str
    attachment_type: str
    identity_key: str


class ThreadAttachmentRemoveResponse(V2Model):
    pass


class ThreadAttachmentOwnerListParams(V2Model):
    attachment_type: str
    identity_key: str
    archived: bool | None = None
    cursor: str | None = None
    limit: int | None = None


class ThreadAttachmentOwner(V2Model):
    thread_id: str
    archived: bool


class ThreadAttachmentOwnerListResponse(V2Model):
    data: list[ThreadAttachmentOwner]
    next_cursor: str | None = None


class ThreadAttachmentUpdatedNotification(V2Model):
    thread_id: str
    attachment_type: str
    identity_key: str
    attachment_id: str
    operation: Literal["created", "deleted"]


METHODS = MethodTable()
THREAD_ATTACHMENT_ADD = METHODS.request(
    "thread/attachment/add", ThreadAttachmentAddParams, ThreadAttachmentAddResponse
)
THREAD_ATTACHMENT_LIST = METHODS.request(
    "thread/attachment/list", ThreadAttachmentListParams, ThreadAttachmentListResponse
)
THREAD_ATTACHMENT_REMOVE = METHODS.request(
    "thread/attachment/remove", ThreadAttachmentRemoveParams, ThreadAttachmentRemoveResponse
)
THREAD_ATTACHMENT_OWNER_LIST = METHODS.request(
    "thread/attachmentOwner/list",
    ThreadAttachmentOwnerListParams,
    ThreadAttachmentOwnerListResponse,
)
METHODS.notification("thread/attachment/updated", ThreadAttachmentUpdatedNotification)
