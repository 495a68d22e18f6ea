"""`thread/search` and `thread/search/stream` over the stored threads.

A thread matches when one of its messages (the user's or the agent's) or its name holds the
term, case aside; the snippet is the first text that matched. The stream answers with the same
final page and no partial batch: those are best-effort in the protocol, and a search over one of
the store's pages finishes before an early batch would be worth sending. A search ends within
its own request, so a cancellation only acknowledges it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
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
from codex_lsp.protocol.turns.items import (
    AgentMessageThreadItem,
    TextUserInput,
    UserMessageThreadItem,
)


def _texts(thread: Thread) -> Iterator[str]:
    """The thread's messages in order: what the user typed and what the agent answered."""
    yield thread.preview
    for turn in thread.turns:
        for item in turn.items:
            if isinstance(item, UserMessageThreadItem):
                text = " ".join(c.text for c in item.content if isinstance(c, TextUserInput))
                yield text
            elif isinstance(item, AgentMessageThreadItem):
                yield item.text


async def _snippet(home: Path, thread: Thread, term: str) -> str | None:
    if term in thread.preview.lower():
        return thread.preview
    try:
        full = await thread_store.read_thread(home, thread.id, include_turns=True)
    except ApiError:
        return None  # a rollout gone or unreadable since the listing: nothing to match
    for text in _texts(full):
        if term in text.lower():
            return text
    if thread.name and term in thread.name.lower():
        return thread.name
    return None


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
        )
        home = ctx.services().codex_home
        page = await thread_store.list_page(home, listing, ctx.threads.statuses())
        lowered = term.lower()
        found = []
        for thread in page.data:
            snippet = await _snippet(home, thread, lowered)
            if snippet is not None:
                found.append(ThreadSearchResult(thread=thread, snippet=snippet))
        return ThreadSearchResponse(
            data=found,
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
