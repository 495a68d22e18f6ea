"""Listing threads oldest first, and paging back with a page's backwards cursor, over real
rollout directories: threads spread over days and sharing creation seconds, so the order also
rests on the uuid tie-break and on the walk across day directories."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.store.synthetic import populate_sessions
from codex_lsp.store.thread_order import Direction, SortKey
from codex_lsp.store.threads import ThreadPage, backwards_cursor, list_threads

_COUNT = 300


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """300 threads over three days, four to a creation second, with distinct mtimes (the
    newest created modified first, so the two orders differ); ids newest created first."""
    home = tmp_path_factory.mktemp("order")
    ids = populate_sessions(home, _COUNT, per_day=100, same_second=4)
    for n, path in enumerate(sorted((home / "sessions").rglob("*.jsonl"))):
        os.utime(path, (1_700_000_000 - n, 1_700_000_000 - n))
    return home, ids


def _walk(
    home: Path, cursor: str | None = None, **options: Any
) -> tuple[list[str], list[ThreadPage]]:
    ids: list[str] = []
    pages: list[ThreadPage] = []
    while True:
        page = list_threads(home, cursor=cursor, limit=37, **options)
        pages.append(page)
        ids += [item.id for item in page.items]
        cursor = page.next_cursor
        if cursor is None:
            return ids, pages


@pytest.mark.parametrize("sort_key", ["created_at", "updated_at"])
def test_oldest_first_is_newest_first_turned_round(
    home: tuple[Path, list[str]], sort_key: SortKey
) -> None:
    root, created = home
    newest, _ = _walk(root, sort_key=sort_key)
    oldest, _ = _walk(root, sort_key=sort_key, sort_direction="asc")
    assert len(newest) == _COUNT
    assert oldest == newest[::-1]
    if sort_key == "created_at":
        assert newest == created
    else:
        assert newest != created  # the mtimes order them otherwise


@pytest.mark.parametrize("sort_key", ["created_at", "updated_at"])
@pytest.mark.parametrize("direction", ["desc", "asc"])
@pytest.mark.parametrize("repeat_first", [True, False])
def test_a_backwards_cursor_lists_the_earlier_pages_the_other_way(
    home: tuple[Path, list[str]], sort_key: SortKey, direction: Direction, repeat_first: bool
) -> None:
    root, _ = home
    listed, pages = _walk(root, sort_key=sort_key, sort_direction=direction)
    opposite: Direction = "asc" if direction == "desc" else "desc"
    seen = 0
    for page in pages:
        cursor = backwards_cursor(page.items[0], repeat_first=repeat_first)
        back, _ = _walk(root, sort_key=sort_key, sort_direction=opposite, cursor=cursor)
        # The threads before the page, nearest first; and the page's first one with them.
        upto = seen + 1 if repeat_first else seen
        assert back == listed[:upto][::-1]
        # Followed the same way, it lists what follows its first thread (or the page again).
        again, _ = _walk(root, sort_key=sort_key, sort_direction=direction, cursor=cursor)
        assert again == listed[seen + repeat_first :]
        seen += len(page.items)
