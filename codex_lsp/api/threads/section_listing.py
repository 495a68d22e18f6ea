"""`thread/list` by section: the `sectionId` filter, and the `section_position` order.

`sectionId` given as an id lists only that section's threads (an unknown or deleted section
lists none); given as `null` it lists the threads in no section; left out, it filters nothing.
`section_position` orders a section's threads as the user arranged them (first placed first,
`sortDirection: "desc"` turns it round) and needs a section id to order by. Its cursor names the
last thread of the page, so the next page starts after it even when threads were moved in
between; a thread moved out since falls back on its former place. The backwards cursor is the
place on the far side of the page's first thread: sent with the opposite direction, it lists
from that thread back.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.protocol.threads.models import ThreadListParams
from codex_lsp.store import thread_sections

SECTION_POSITION = "section_position"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SectionFilter:
    """What a listing's section filter keeps: only `only` (when set), never `never`."""

    only: list[str] | None
    never: frozenset[str]
    section_id: str | None


def section_filter(home: Path, params: ThreadListParams) -> SectionFilter | None:
    """The section filter `params` asks for; None when it asks for none.

    Raises the reference's invalid-request error for `section_position` without a section id.
    """
    filtered = "section_id" in params.model_fields_set
    if params.sort_key == SECTION_POSITION and (not filtered or params.section_id is None):
        raise ApiError(INVALID_REQUEST, "section-position sorting requires a section filter")
    if not filtered:
        return None
    state = thread_sections.load_sections(home)
    if params.section_id is None:
        placed = frozenset(t for members in state.members.values() for t in members)
        return SectionFilter(only=None, never=placed, section_id=None)
    members = list(state.members.get(params.section_id, ()))
    return SectionFilter(only=members, never=frozenset(), section_id=params.section_id)


def narrowed(wanted: Sequence[str] | None, section: SectionFilter | None) -> list[str] | None:
    """The ids a listing is restricted to: the client's list and the section's, both."""
    if section is None or section.only is None:
        return None if wanted is None else list(wanted)
    if wanted is None:
        return list(section.only)
    chosen = {w.lower() for w in wanted}
    return [t for t in section.only if t.lower() in chosen]


def bad_cursor(cursor: str) -> ApiError:
    """The reference's answer to a cursor no listing of this kind gave out."""
    return ApiError(INVALID_REQUEST, f"invalid cursor: {cursor}")


def _encode(section_id: str, index: int, thread_id: str, *, above: bool) -> str:
    fields = [SECTION_POSITION, section_id, str(index), thread_id, ">" if above else "<"]
    return base64.urlsafe_b64encode("|".join(fields).encode()).decode().rstrip("=")


def _decode(cursor: str, section_id: str) -> tuple[int, str, bool]:
    """The cursor's place: by a thread's place in the section, first placed first (and that
    place's index, should the thread have left), and whether it is just above or below it."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, section, index, thread_id, side = raw.split("|")
        if kind != SECTION_POSITION or section != section_id or not thread_id:
            raise ValueError(raw)
        if side not in ("<", ">"):
            raise ValueError(raw)
        return int(index), thread_id, side == ">"
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise bad_cursor(cursor) from None


def section_page(
    items: Sequence[T],
    thread_id: Callable[[T], str],
    order: Sequence[str],
    params: ThreadListParams,
    limit: int,
) -> tuple[list[T], str | None, str | None]:
    """One page of `items` in the section's `order`, the cursor of the next page, and the
    cursor that pages back (with the opposite `sortDirection`, from the page's first thread)."""
    section_id = params.section_id or ""
    by_id = {thread_id(item): item for item in items}
    ranked = [t for t in order if t in by_id]
    descending = params.sort_direction == "desc"
    # Cursors are places in the section's own order, so either direction can follow them.
    low = 0  # the first index, in the section's order, a page from the cursor may reach
    high = len(ranked)
    if params.cursor:
        index, anchor, above = _decode(params.cursor, section_id)
        at = ranked.index(anchor) if anchor in ranked else min(max(index, 0), len(ranked))
        gap = at + 1 if above and anchor in ranked else at
        low, high = (0, gap) if descending else (gap, len(ranked))
    window = ranked[low:high]
    page = (window[::-1] if descending else window)[:limit]
    more = len(window) > limit

    def place(thread: str, above: bool) -> str:
        return _encode(section_id, ranked.index(thread), thread, above=above)

    cursor = place(page[-1], above=not descending) if more and page else None
    backwards = place(page[0], above=not descending) if page else None
    return [by_id[t] for t in page], cursor, backwards
