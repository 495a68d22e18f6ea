"""Thread sections on the v2 wire: `threadSection/{list,create,update,delete}`,
`thread/section/move`, and `thread/section/changed` after a move.

A section is a user-named group of threads (the reference server has a built-in "Pinned");
its id is a UUIDv7 that survives a rename.
"""

from __future__ import annotations

from codex_lsp.protocol.common import V2Model
from codex_lsp.protocol.methods import MethodTable


class ThreadSectionAppearance(V2Model):
    color: str | None = None
    icon: str | None = None


class ThreadSection(V2Model):
    id: str
    name: str
    appearance: ThreadSectionAppearance | None = None


class ThreadSectionListParams(V2Model):
    cursor: str | None = None
    limit: int | None = None


class ThreadSectionListResponse(V2Model):
    data: list[ThreadSection]
    next_cursor: str | None = None


class ThreadSectionCreateParams(V2Model):
    name: str
    appearance: ThreadSectionAppearance | None = None


class ThreadSectionCreateResponse(V2Model):
    section: ThreadSection


class ThreadSectionUpdateParams(V2Model):
    section_id: str
    name: str
    appearance: ThreadSectionAppearance | None = None


class ThreadSectionUpdateResponse(V2Model):
    section: ThreadSection


class ThreadSectionDeleteParams(V2Model):
    section_id: str


class ThreadSectionDeleteResponse(V2Model):
    pass


class ThreadSectionMoveResponse(V2Model):
    pass


class ThreadSectionMoveParams(V2Model):
    thread_id: str
    section_id: str | None
    before_thread_id: str | None = None


class ThreadSectionChangedNotification(V2Model):
    thread_id: str
    section_id: str | None


METHODS = MethodTable()
THREAD_SECTION_LIST = METHODS.request(
    "threadSection/list", ThreadSectionListParams, ThreadSectionListResponse, no_params=True
)
THREAD_SECTION_CREATE = METHODS.request(
    "threadSection/create", ThreadSectionCreateParams, ThreadSectionCreateResponse
)
THREAD_SECTION_UPDATE = METHODS.request(
    "threadSection/update", ThreadSectionUpdateParams, ThreadSectionUpdateResponse
)
THREAD_SECTION_DELETE = METHODS.request(
    "threadSection/delete", ThreadSectionDeleteParams, ThreadSectionDeleteResponse
)
THREAD_SECTION_MOVE = METHODS.request(
    "thread/section/move", ThreadSectionMoveParams, ThreadSectionMoveResponse
)
METHODS.notification("thread/section/changed", ThreadSectionChangedNotification)
