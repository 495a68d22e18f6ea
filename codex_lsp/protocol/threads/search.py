"""`thread/search` and `thread/search/stream`: the stored threads whose text holds a term, each
with the snippet that matched; and their cancellations, and the stream's partial batches."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, RequestId, SortDirection, ThreadSourceKind, V2Model
from codex_lsp.protocol.methods import MethodTable
from codex_lsp.protocol.threads.models import Thread

ThreadSearchSortKey = TypeAliasType(
    "ThreadSearchSortKey", Literal["created_at", "updated_at", "recency_at"]
)


class ThreadSearchParams(V2Model):
    search_term: str
    cursor: Opt[str] = None
    limit: Opt[int] = None
    sort_key: Opt[ThreadSearchSortKey] = None
    sort_direction: Opt[SortDirection] = None
    source_kinds: Opt[list[ThreadSourceKind]] = None
    archived: Opt[bool] = None
    current_account_only: Opt[bool] = None
    include_attached_threads: Opt[bool] = None


class ThreadSearchResult(V2Model):
    thread: Thread
    snippet: str


class ThreadSearchResponse(V2Model):
    data: list[ThreadSearchResult]
    next_cursor: str | None = None
    backwards_cursor: str | None = None


class ThreadSearchCancelParams(V2Model):
    request_id: RequestId


class ThreadSearchCancelResponse(V2Model):
    pass


class ThreadSearchPartialNotification(V2Model):
    """A best-effort early batch of a `thread/search/stream`; the final response replaces it."""

    request_id: RequestId
    data: list[ThreadSearchResult]


METHODS = MethodTable()
THREAD_SEARCH = METHODS.request(
    "thread/search", ThreadSearchParams, ThreadSearchResponse, experimental=True
)
THREAD_SEARCH_STREAM = METHODS.request(
    "thread/search/stream", ThreadSearchParams, ThreadSearchResponse, experimental=True
)
THREAD_SEARCH_CANCEL = METHODS.request(
    "thread/search/cancel",
    ThreadSearchCancelParams,
    ThreadSearchCancelResponse,
    experimental=True,
)
THREAD_SEARCH_STREAM_CANCEL = METHODS.request(
    "thread/search/stream/cancel",
    ThreadSearchCancelParams,
    ThreadSearchCancelResponse,
    experimental=True,
)
METHODS.notification("thread/search/partial", ThreadSearchPartialNotification)
