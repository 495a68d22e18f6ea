"""`thread/turns/list` and `thread/items/list`: a long thread read a page at a time.

Turns come newest first by default and items oldest first, as the reference server pages them.
A cursor is an opaque string naming the turn (or item) a page ended on and whether the next
page includes it: `nextCursor` continues past the last entry in the same direction, and
`backwardsCursor`, used with the opposite direction, starts again from the first entry, so a
client can refresh an entry that was still changing. Cursors name entries rather than
positions, so a page read while the thread grows still continues where the last one ended.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.api.threads import store as thread_store
from codex_lsp.api.threads.rebuild import rebuild_turns
from codex_lsp.protocol.threads.ops import (
    THREAD_ITEMS_LIST,
    THREAD_TURNS_LIST,
    ItemThreadItemsListAnchor,
    ThreadItemEntry,
    ThreadItemsListParams,
    ThreadItemsListResponse,
    ThreadTurnsListParams,
    ThreadTurnsListResponse,
)
from codex_lsp.protocol.turns.models import Turn

DEFAULT_TURNS = 25
DEFAULT_ITEMS = 100
MAX_PAGE = 500


@dataclass(frozen=True)
class Anchor:
    """Where a page starts: just past (or at, with `include`) one turn or one item."""

    thread_id: str
    turn_id: str
    item_id: str | None = None
    include: bool = False

    def encode(self) -> str:
        fields: dict[str, Any] = {"threadId": self.thread_id, "turnId": self.turn_id}
        if self.item_id is not None:
            fields["itemId"] = self.item_id
        fields["includeAnchor"] = self.include
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def decode(cls, cursor: str, thread_id: str, *, items: bool) -> Anchor:
        try:
            fields = json.loads(cursor)
            anchor = cls(
                thread_id=fields["threadId"],
                turn_id=fields["turnId"],
                item_id=fields.get("itemId"),
                include=bool(fields.get("includeAnchor", False)),
            )
        except (ValueError, KeyError, TypeError, RecursionError):
            # RecursionError: a cursor nested past the decoder's recursion.
            raise _bad_cursor(cursor) from None
        valid = (
            isinstance(anchor.thread_id, str)
            and isinstance(anchor.turn_id, str)
            and (isinstance(anchor.item_id, str) if items else anchor.item_id is None)
        )
        if not valid:
            raise _bad_cursor(cursor)
        if anchor.thread_id != thread_id:
            raise ApiError(INVALID_REQUEST, f"cursor belongs to thread {anchor.thread_id}")
        return anchor


def _bad_cursor(cursor: str) -> ApiError:
    return ApiError(INVALID_REQUEST, f"invalid cursor: {cursor}")


def _limit(requested: int | None, default: int) -> int:
    if requested is None:
        return default
    # A page holds at least one entry (a limit of 0 still moves the cursor on), as the real
    # server's pages do.
    return max(1, min(requested, MAX_PAGE))


async def thread_turns(ctx: ApiContext, thread_id: str) -> list[Turn]:
    """Every turn of a thread with all its items, loaded or stored, archived or not."""
    loaded = ctx.threads.loaded.get(thread_id)
    if loaded is not None and loaded.rollout_path is None:
        return []  # an ephemeral thread keeps no history to page through
    running = loaded.map.active_turn_id if loaded is not None and loaded.map is not None else None
    home = ctx.services().codex_home
    path = loaded.rollout_path if loaded is not None else None

    def read() -> list[Turn]:
        source = path or thread_store.rollout_path(home, thread_id)
        return rebuild_turns(thread_store.rollout_events(source), running_turn=running)

    return await anyio.to_thread.run_sync(read)


def _view(turn: Turn, view: str) -> Turn:
    if view == "full":
        return turn
    if view == "notLoaded":
        return turn.model_copy(update={"items": [], "items_view": "notLoaded"})
    # The summary a list shows: what the user said and the turn's final answer.
    answers = [item for item in turn.items if item.type == "agentMessage"]
    kept = [item for item in turn.items if item.type == "userMessage"] + answers[-1:]
    return turn.model_copy(update={"items": kept, "items_view": "summary"})


def _position(ids: list[tuple[str, str | None]], anchor: Anchor) -> int:
    key = (anchor.turn_id, anchor.item_id)
    try:
        index = ids.index(key)
    except ValueError:
        what = f"item {anchor.item_id}" if anchor.item_id else f"turn {anchor.turn_id}"
        raise ApiError(
            INVALID_REQUEST, f"invalid cursor: {what} is no longer in the thread"
        ) from None
    return index if anchor.include else index + 1


async def list_turns(ctx: ApiContext, params: ThreadTurnsListParams) -> ThreadTurnsListResponse:
    turns = await thread_turns(ctx, params.thread_id)
    if params.sort_direction != "asc":
        turns.reverse()
    start = 0
    if params.cursor is not None:
        anchor = Anchor.decode(params.cursor, params.thread_id, items=False)
        start = _position([(t.id, None) for t in turns], anchor)
    limit = _limit(params.limit, DEFAULT_TURNS)
    page = turns[start : start + limit]
    more = start + limit < len(turns)
    return ThreadTurnsListResponse(
        data=[_view(turn, params.items_view or "summary") for turn in page],
        next_cursor=Anchor(params.thread_id, page[-1].id).encode() if page and more else None,
        backwards_cursor=Anchor(params.thread_id, page[0].id, include=True).encode()
        if page
        else None,
    )


async def list_items(ctx: ApiContext, params: ThreadItemsListParams) -> ThreadItemsListResponse:
    turns = await thread_turns(ctx, params.thread_id)
    if params.turn_id:
        turns = [turn for turn in turns if turn.id == params.turn_id]
        if not turns:
            raise ApiError(INVALID_REQUEST, f"turn not found: {params.turn_id}")
    entries = [
        ThreadItemEntry(
            turn_id=turn.id,
            item=item,
            started_at_ms=item.started_at_ms,
            completed_at_ms=item.completed_at_ms,
        )
        for turn in turns
        for item in turn.items
    ]
    if params.sort_direction == "desc":
        entries.reverse()
    start = 0
    cursor = params.cursor
    if isinstance(cursor, ItemThreadItemsListAnchor):
        if not params.turn_id:
            raise ApiError(INVALID_REQUEST, "an item anchor needs a non-empty turnId")
        cursor = Anchor(params.thread_id, params.turn_id, cursor.item_id).encode()
    if cursor is not None:
        anchor = Anchor.decode(cursor, params.thread_id, items=True)
        start = _position([(e.turn_id, e.item.id) for e in entries], anchor)
    limit = _limit(params.limit, DEFAULT_ITEMS)
    page = entries[start : start + limit]
    more = start + limit < len(entries)

    def at(entry: ThreadItemEntry, include: bool) -> str:
        return Anchor(params.thread_id, entry.turn_id, entry.item.id, include).encode()

    return ThreadItemsListResponse(
        data=page,
        next_cursor=at(page[-1], False) if page and more else None,
        backwards_cursor=at(page[0], True) if page else None,
    )


def handlers(ctx: ApiContext) -> Routes:
    async def turns(params: ThreadTurnsListParams, _raw: dict[str, Any]) -> ThreadTurnsListResponse:
        return await list_turns(ctx, params)

    async def items(params: ThreadItemsListParams, _raw: dict[str, Any]) -> ThreadItemsListResponse:
        return await list_items(ctx, params)

    return Routes().on(THREAD_TURNS_LIST, turns).on(THREAD_ITEMS_LIST, items)
