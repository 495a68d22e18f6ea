"""`fuzzyFileSearch` and the search sessions behind a file picker.

A session (`fuzzyFileSearch/sessionStart`) lists its roots once, in the background, and answers
each `sessionUpdate` query from that list: `fuzzyFileSearch/sessionUpdated` carries the best
matches so far, first from the files already listed (so a picker shows results while a large
tree is still being read), then again once the listing is done, followed by
`fuzzyFileSearch/sessionCompleted`. A newer query supersedes an older one still running.

The one-shot `fuzzyFileSearch` lists its roots and answers with the best 50 matches; listings
are kept for a few seconds, so the requests a picker sends per keystroke do not re-read the tree.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from pydantic import BaseModel

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.protocol.file_search.models import (
    FUZZY_FILE_SEARCH,
    FUZZY_FILE_SEARCH_SESSION_START,
    FUZZY_FILE_SEARCH_SESSION_STOP,
    FUZZY_FILE_SEARCH_SESSION_UPDATE,
    FuzzyFileSearchParams,
    FuzzyFileSearchResponse,
    FuzzyFileSearchResult,
    FuzzyFileSearchSessionCompletedNotification,
    FuzzyFileSearchSessionStartParams,
    FuzzyFileSearchSessionStopParams,
    FuzzyFileSearchSessionUpdatedNotification,
    FuzzyFileSearchSessionUpdateParams,
)
from codex_lsp.search.files import list_files
from codex_lsp.search.match import FileIndex, Match

MATCH_LIMIT = 50
LISTING_TTL_S = 5.0
# While a listing is still running, partial results go out at most this often.
PARTIAL_EVERY_S = 0.05


@dataclass
class RootListing:
    """The files of one root, filled in by a background thread."""

    root: Path
    index: FileIndex = field(default_factory=FileIndex)
    done: anyio.Event = field(default_factory=anyio.Event)
    finished_at: float | None = None
    grew: Callable[[], None] | None = None

    def fill(self) -> None:
        """List the root (in a worker thread), handing each batch to the event loop."""
        for batch in list_files(self.root):
            anyio.from_thread.run_sync(self._add, batch)
        anyio.from_thread.run_sync(self._finish)

    def _add(self, batch: list[str]) -> None:
        self.index.add(batch)
        if self.grew is not None:
            self.grew()

    def _finish(self) -> None:
        self.finished_at = time.monotonic()
        self.done.set()
        if self.grew is not None:
            self.grew()


def results(listings: list[RootListing], query: str) -> list[FuzzyFileSearchResult]:
    """The best matches over every root, as the wire carries them."""
    if not query.strip():
        return []
    ranked: list[tuple[Match, Path]] = []
    for listing in listings:
        ranked += [(m, listing.root) for m in listing.index.search(query, MATCH_LIMIT)]
    ranked.sort(key=lambda pair: (-pair[0].score, pair[0].path))
    return [
        FuzzyFileSearchResult(
            root=str(root),
            path=match.path,
            match_type="directory" if match.is_dir else "file",
            file_name=match.file_name,
            score=match.score,
            indices=match.indices,
        )
        for match, root in ranked[:MATCH_LIMIT]
    ]


def _roots(values: list[str]) -> list[Path]:
    """The roots that can be searched: absolute existing directories (others match nothing)."""
    return [Path(os.path.normpath(v)) for v in values if os.path.isabs(v) and os.path.isdir(v)]


@dataclass
class SearchSession:
    session_id: str
    listings: list[RootListing]
    query: str = ""
    wake: anyio.Event = field(default_factory=anyio.Event)
    stopped: bool = False

    def poke(self) -> None:
        """Something changed: the serving task looks again (`wake` is replaced as it does)."""
        self.wake.set()


class FuzzySearch:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx
        self._cache: dict[Path, RootListing] = {}
        self._sessions: dict[str, SearchSession] = {}

    async def _listing(self, root: Path, *, fresh: bool) -> RootListing:
        cached = self._cache.get(root)
        stale = (
            cached is None
            or fresh
            or (
                cached.finished_at is not None
                and time.monotonic() - cached.finished_at > LISTING_TTL_S
            )
        )
        if cached is not None and not stale:
            return cached
        listing = RootListing(root)
        self._cache[root] = listing
        host = await self._ctx.host()
        host.start_soon(anyio.to_thread.run_sync, listing.fill)
        return listing

    async def search(self, query: str, roots: list[str]) -> FuzzyFileSearchResponse:
        listings = [await self._listing(root, fresh=False) for root in _roots(roots)]
        for listing in listings:
            await listing.done.wait()
        return FuzzyFileSearchResponse(files=results(listings, query))

    async def start(self, session_id: str, roots: list[str]) -> None:
        old = self._sessions.pop(session_id, None)
        if old is not None:
            self._stop(old)
        listings = [await self._listing(root, fresh=True) for root in _roots(roots)]
        session = SearchSession(session_id, listings)
        self._sessions[session_id] = session
        for listing in listings:
            listing.grew = session.poke
        host = await self._ctx.host()
        host.start_soon(self._serve, session)

    async def update(self, session_id: str, query: str) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            raise ApiError(INVALID_REQUEST, f"fuzzy file search session not found: {session_id}")
        session.query = query
        session.poke()

    async def stop(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            self._stop(session)

    async def close(self) -> None:
        for session in self._sessions.values():
            self._stop(session)
        self._sessions.clear()

    @staticmethod
    def _stop(session: SearchSession) -> None:
        session.stopped = True
        session.poke()

    async def _serve(self, session: SearchSession) -> None:
        """Answer the session's latest query whenever it changes or the listing grows."""
        answered: tuple[str, bool] | None = None
        last_partial = 0.0
        while True:
            await session.wake.wait()
            session.wake = anyio.Event()
            if session.stopped:
                return
            query = session.query
            if not query:
                continue
            complete = all(listing.done.is_set() for listing in session.listings)
            if (query, complete) == answered:
                continue
            if not complete and not any(listing.index.count for listing in session.listings):
                continue  # nothing listed yet: the first batch will wake this up
            now = time.monotonic()
            too_soon = now - last_partial < PARTIAL_EVERY_S
            if not complete and answered is not None and answered[0] == query and too_soon:
                # Too soon after the last partial answer: look again a little later.
                await anyio.sleep(PARTIAL_EVERY_S - (now - last_partial))
                session.wake.set()
                continue
            files = await anyio.to_thread.run_sync(results, session.listings, query)
            if session.stopped or session.query != query:
                session.wake.set()
                continue
            self._notify(
                "fuzzyFileSearch/sessionUpdated",
                FuzzyFileSearchSessionUpdatedNotification(
                    session_id=session.session_id, query=query, files=files
                ),
            )
            last_partial, answered = time.monotonic(), (query, complete)
            if complete:
                self._notify(
                    "fuzzyFileSearch/sessionCompleted",
                    FuzzyFileSearchSessionCompletedNotification(session_id=session.session_id),
                )

    def _notify(self, method: str, notice: BaseModel) -> None:
        self._ctx.client.notify(method, notice)


def handlers(ctx: ApiContext) -> Routes:
    search = FuzzySearch(ctx)
    ctx.closers.append(search.close)

    async def one_shot(
        params: FuzzyFileSearchParams, _raw: dict[str, Any]
    ) -> FuzzyFileSearchResponse:
        return await search.search(params.query, params.roots)

    async def start(params: FuzzyFileSearchSessionStartParams, _raw: dict[str, Any]) -> None:
        await search.start(params.session_id, params.roots)

    async def update(params: FuzzyFileSearchSessionUpdateParams, _raw: dict[str, Any]) -> None:
        await search.update(params.session_id, params.query)

    async def stop(params: FuzzyFileSearchSessionStopParams, _raw: dict[str, Any]) -> None:
        await search.stop(params.session_id)

    return (
        Routes()
        .on(FUZZY_FILE_SEARCH, one_shot)
        .on(FUZZY_FILE_SEARCH_SESSION_START, start)
        .on(FUZZY_FILE_SEARCH_SESSION_UPDATE, update)
        .on(FUZZY_FILE_SEARCH_SESSION_STOP, stop)
    )
