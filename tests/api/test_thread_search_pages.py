"""`thread/search` pages over many stored threads, few of which match: each page holds `limit`
matches (the last one fewer, and no next cursor), however many listing pages the search reads
to find them, and following the next cursors yields every match once, in every order. A stream
is still cancelled once it reads past its first listing page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.api.server import ApiServer
from codex_lsp.engine.bootstrap import load_services
from codex_lsp.store.synthetic import populate_sessions
from tests.api.test_api_server import FakeClient
from tests.support.appserver import make_home

_COUNT = 450
_LIMIT = 4
_ORDERS = [
    (key, direction) for key in ("created_at", "updated_at") for direction in ("desc", "asc")
]


@pytest.fixture
async def searched(scripted_model: Any, tmp_path: Path) -> Any:
    """A server over `_COUNT` threads whose first messages are `thread <n>`, and their ids,
    newest first."""
    home, _ws = make_home(tmp_path, scripted_model.base_url)
    ids = populate_sessions(home, _COUNT, per_day=50)
    client = FakeClient()
    server = ApiServer(lambda: load_services(codex_home=home), client)
    yield server, client, ids
    await server.aclose()


@pytest.mark.parametrize(("sort_key", "direction"), _ORDERS)
async def test_each_page_holds_limit_matches_and_the_cursors_skip_none(
    searched: Any, sort_key: str, direction: str
) -> None:
    server, _client, ids = searched
    # The threads whose number holds a 7: a few in each listing page, none in some.
    wanted = [thread_id for n, thread_id in enumerate(ids) if "7" in str(n)]
    by = {"searchTerm": "7", "sortKey": sort_key, "sortDirection": direction}
    whole = await server.handle("thread/search", {**by, "limit": 200})
    in_order = [hit["thread"]["id"] for hit in whole["data"]]
    assert sorted(in_order) == sorted(wanted) and whole["nextCursor"] is None
    if sort_key == "created_at":
        assert in_order == (wanted if direction == "desc" else wanted[::-1])
    pages: list[list[str]] = []
    cursor = None
    while True:
        more = {"cursor": cursor} if cursor else {}
        page = await server.handle("thread/search/stream", {**by, "limit": _LIMIT, **more})
        pages.append([hit["thread"]["id"] for hit in page["data"]])
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert [thread_id for page in pages for thread_id in page] == in_order
    full, last = divmod(len(wanted), _LIMIT)
    assert [len(page) for page in pages] == [_LIMIT] * full + ([last] if last else [])


async def test_a_stream_is_cancelled_past_its_first_listing_page(searched: Any) -> None:
    server, client, ids = searched
    failed: list[ApiError] = []

    async def search() -> None:
        # Only the newest thread matches: the rest is read a listing page after another.
        params = {"searchTerm": "thread 0", "limit": 1}
        try:
            await server.handle("thread/search/stream", params, request_id=7)
        except ApiError as err:
            failed.append(err)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(search)
        first = await client.until("thread/search/partial", requestId=7)
        assert [hit["thread"]["id"] for hit in first["data"]] == [ids[0]]
        assert await server.handle("thread/search/stream/cancel", {"requestId": 7}) == {}
    assert [(err.code, err.message) for err in failed] == [
        (INVALID_REQUEST, "thread search cancelled")
    ]
