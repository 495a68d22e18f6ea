"""`thread/search` and `thread/search/stream` over the stored threads.

A thread matches when its preview (its first message) or its name holds the term, case aside;
the snippet is the text that matched. The stream answers with the same final page: its partial
batches are best-effort in the protocol, and a search over the store's pages finishes before an
early batch would be worth sending. A search ends within its own request, so a cancellation
only acknowledges it.
"""

from __future__ import annotations

from typing import Any

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_PARAMS, ApiError
from codex_lsp.api.threads import store as thread_store
from codex_lsp.protocol.threads.models import Thread, ThreadListParams
from codex_lsp.protocol.threads.search import (
    THREAD_SEARCH,
    THREAD_SEARCH_CANCEL,
    THREAD_SEARCH_STREAM,
    THREAD_SEARCH_STREAM_CANCEL,
    ThreadSearchCancelParams,
    ThreadSearchCancelResponse,
    ThreadSearchParams,
    ThreadSearchResponse,
    ThreadSearchResult,
)


def _snippet(thread: Thread, term: str) -> str:
    if term in thread.preview.lower() or not thread.name:
        return thread.preview
    return thread.name


def handlers(ctx: ApiContext) -> Routes:
    async def search(params: ThreadSearchParams, _raw: dict[str, Any]) -> ThreadSearchResponse:
        term = params.search_term.strip()
        if not term:
            raise ApiError(INVALID_PARAMS, "Invalid params: searchTerm: must not be empty")
        listing = ThreadListParams(
            cursor=params.cursor,
            limit=params.limit,
            sort_key=params.sort_key,
            sort_direction=params.sort_direction,
            source_kinds=params.source_kinds,
            archived=params.archived,
            search_term=term,
        )
        home = ctx.services().codex_home
        page = await thread_store.list_page(home, listing, ctx.threads.statuses())
        lowered = term.lower()
        return ThreadSearchResponse(
            data=[ThreadSearchResult(thread=t, snippet=_snippet(t, lowered)) for t in page.data],
            next_cursor=page.next_cursor,
            backwards_cursor=page.backwards_cursor,
        )

    async def cancel(
        _params: ThreadSearchCancelParams, _raw: dict[str, Any]
    ) -> ThreadSearchCancelResponse:
        return ThreadSearchCancelResponse()

    return (
        Routes()
        .on(THREAD_SEARCH, search)
        .on(THREAD_SEARCH_STREAM, search)
        .on(THREAD_SEARCH_CANCEL, cancel)
        .on(THREAD_SEARCH_STREAM_CANCEL, cancel)
    )
