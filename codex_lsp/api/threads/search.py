"""`thread/search` and `thread/search/stream` over the stored threads, and their cancellations.

A thread matches when one of its messages (the user's or the agent's) or its name holds the
term, case aside; the snippet is the first text that matched. A page holds `limit` matches,
read from as many listing pages as it takes (fewer only at the end of the listing); its next
cursor, given when another match follows, is the place just past its last match. The stream
also sends early batches (`thread/search/partial`) while it runs: the first match at once, then
what was found since, at most every `PARTIAL_EVERY` seconds; the final response replaces them
and nothing follows it. `thread/search/cancel` stops a running `thread/search` of the same
client (and `thread/search/stream/cancel` a stream), checked between any two threads: the
search answers with the reference's "thread search cancelled" error. A cancellation is
acknowledged whether or not it found the search running.
The stream takes a term of at most 64 KiB (UTF-8, once trimmed), as the reference does.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST, SERVING_REQUEST, ApiError
from codex_lsp.api.threads import store as thread_store
from codex_lsp.protocol.common import RequestId
from codex_lsp.protocol.threads.models import Thread, ThreadListParams
from codex_lsp.protocol.threads.search import (
    THREAD_SEARCH,
    THREAD_SEARCH_CANCEL,
    THREAD_SEARCH_STREAM,
    THREAD_SEARCH_STREAM_CANCEL,
    ThreadSearchCancelParams,
    ThreadSearchCancelResponse,
    ThreadSearchParams,
    ThreadSearchPartialNotification,
    ThreadSearchResponse,
    ThreadSearchResult,
)
from codex_lsp.protocol.turns.items import (
    AgentMessageThreadItem,
    TextUserInput,
    UserMessageThreadItem,
)

PARTIAL_EVERY = 0.25
MAX_STREAM_TERM_BYTES = 65536
PARTIAL = "thread/search/partial"


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


def _key(request_id: RequestId) -> tuple[str, int | str]:
    # A request id and its cancellation's `requestId` are compared as JSON values.
    return (type(request_id).__name__, request_id)


class ThreadSearches:
    """The searches running for this client, by method and request id, each with the event a
    cancellation sets."""

    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx
        self._running: dict[tuple[str, tuple[str, int | str]], anyio.Event] = {}

    async def search(
        self, params: ThreadSearchParams, _raw: dict[str, Any]
    ) -> ThreadSearchResponse:
        return await self._run(THREAD_SEARCH.name, params)

    async def stream(
        self, params: ThreadSearchParams, _raw: dict[str, Any]
    ) -> ThreadSearchResponse:
        return await self._run(THREAD_SEARCH_STREAM.name, params)

    async def cancel(
        self, params: ThreadSearchCancelParams, _raw: dict[str, Any]
    ) -> ThreadSearchCancelResponse:
        self._cancel(THREAD_SEARCH.name, params.request_id)
        return ThreadSearchCancelResponse()

    async def cancel_stream(
        self, params: ThreadSearchCancelParams, _raw: dict[str, Any]
    ) -> ThreadSearchCancelResponse:
        self._cancel(THREAD_SEARCH_STREAM.name, params.request_id)
        return ThreadSearchCancelResponse()

    def _cancel(self, method: str, request_id: RequestId) -> None:
        cancelled = self._running.get((method, _key(request_id)))
        if cancelled is not None:
            cancelled.set()

    async def _run(self, method: str, params: ThreadSearchParams) -> ThreadSearchResponse:
        # Registered before the first await: a cancellation sent right after the search, and
        # so served after it started, finds it.
        request_id = SERVING_REQUEST.get()
        cancelled = anyio.Event()
        key = None if request_id is None else (method, _key(request_id))
        if key is not None:
            self._running[key] = cancelled
        try:
            return await self._search(
                params, cancelled, request_id, method == THREAD_SEARCH_STREAM.name
            )
        finally:
            if key is not None and self._running.get(key) is cancelled:
                del self._running[key]

    async def _search(
        self,
        params: ThreadSearchParams,
        cancelled: anyio.Event,
        request_id: RequestId | None,
        partials: bool,
    ) -> ThreadSearchResponse:
        term = params.search_term.strip()
        if not term:
            raise ApiError(INVALID_PARAMS, "Invalid params: searchTerm: must not be empty")
        if partials and len(term.encode()) > MAX_STREAM_TERM_BYTES:
            raise ApiError(
                INVALID_PARAMS,
                f"thread/search/stream searchTerm exceeds {MAX_STREAM_TERM_BYTES} UTF-8 bytes",
            )
        home = self._ctx.services().codex_home
        limit = min(max(params.limit or thread_store.DEFAULT_PAGE, 1), thread_store.MAX_PAGE)
        lowered = term.lower()
        found: list[ThreadSearchResult] = []
        unsent: list[ThreadSearchResult] = []
        sent_at: float | None = None
        backwards: str | None = None
        following: str | None = None
        more = False
        async with aclosing(self._listed(home, params, limit, cancelled)) as listed:
            async for thread, anchors in listed:
                snippet = await _snippet(home, thread, lowered)
                if snippet is None:
                    continue
                if len(found) == limit:
                    more = True  # a match past the page: the next page begins past its last
                    break
                result = ThreadSearchResult(thread=thread, snippet=snippet)
                found.append(result)
                # Where a page of these matches begins (at the first) and where the next would.
                backwards = anchors.backwards if backwards is None else backwards
                following = anchors.following
                if not partials or request_id is None:
                    continue
                unsent.append(result)
                now = time.monotonic()
                if sent_at is None or now - sent_at >= PARTIAL_EVERY:
                    partial = ThreadSearchPartialNotification(request_id=request_id, data=unsent)
                    self._ctx.client.notify(PARTIAL, partial)
                    unsent, sent_at = [], now
        if cancelled.is_set():
            raise ApiError(INVALID_REQUEST, "thread search cancelled")
        return ThreadSearchResponse(
            data=found, next_cursor=following if more else None, backwards_cursor=backwards
        )

    async def _listed(
        self, home: Path, params: ThreadSearchParams, limit: int, cancelled: anyio.Event
    ) -> AsyncGenerator[tuple[Thread, thread_store.Anchors]]:
        """The listed threads from the search's cursor on, to the end of the listing, read a
        page at a time (pages growing up to the listing's largest); the search is cancelled
        between any two."""
        cursor = params.cursor
        size = limit
        while True:
            listing = ThreadListParams(
                cursor=cursor,
                limit=size,
                sort_key=params.sort_key,
                sort_direction=params.sort_direction,
                source_kinds=params.source_kinds,
                archived=params.archived,
            )
            page, anchors = await thread_store.listing(
                home, listing, self._ctx.threads.statuses(), searching=True
            )
            for thread in page.data:
                await anyio.lowlevel.checkpoint()  # lets a cancellation in
                if cancelled.is_set():
                    raise ApiError(INVALID_REQUEST, "thread search cancelled")
                yield thread, anchors[thread.id]
            if page.next_cursor is None:
                return
            cursor, size = page.next_cursor, min(2 * size, thread_store.MAX_PAGE)


def handlers(ctx: ApiContext) -> Routes:
    searches = ThreadSearches(ctx)
    return (
        Routes()
        .on(THREAD_SEARCH, searches.search)
        .on(THREAD_SEARCH_STREAM, searches.stream)
        .on(THREAD_SEARCH_CANCEL, searches.cancel)
        .on(THREAD_SEARCH_STREAM_CANCEL, searches.cancel_stream)
    )
