"""Thread listing: newest (or oldest) first, filtered, paged with an opaque cursor.

A rollout is listed when its head holds a `session_meta` and a `user_message` (the first 10
records, and up to 200 more while looking for the user message). The page is filled from a
newest-first walk that stops once the page is full, so the first page costs the same over 1,000
or 50,000 rollouts. Sorting by `updated_at` needs every file's mtime and so stats them all.

The cursor encodes the sort key of the last item returned (timestamp and uuid); the next page
starts strictly after it. Threads created meanwhile sort before the anchor, so they show up in a
fresh listing and never as duplicates or shifts mid-pagination. A page also gives a cursor to page
back from (`codex_lsp.store.thread_order`).
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codex_lsp.store.rollout import EVENT_MSG, SESSION_META, TURN_CONTEXT, parse_line
from codex_lsp.store.rollout_files import RolloutFile, is_archived_path, parse_rollout_name
from codex_lsp.store.thread_index import load_thread_names
from codex_lsp.store.thread_order import (
    Direction,
    InvalidCursorError,
    Key,
    SortKey,
    backwards_place,
    decode_cursor,
    encode_cursor,
    next_place,
    ordered_rollouts,
)

__all__ = ["InvalidCursorError", "SortKey", "ThreadPage", "ThreadSummary", "list_threads"]

HEAD_RECORDS = 10
HEAD_EXTRA_RECORDS = 200
SCAN_CAP = 10_000
USER_REQUEST_MARKER = "## My request for Codex:"
DEFAULT_PROVIDER = "openai"
_TAIL_BYTES = 16 * 1024


@dataclass(slots=True)
class ThreadSummary:
    """What a thread list shows about one thread, read from the head of its rollout."""

    id: str
    path: Path
    preview: str
    created_at: datetime
    updated_at: datetime
    model_provider: str | None = None
    cwd: str | None = None
    cli_version: str | None = None
    source: Any = None
    originator: str | None = None
    name: str | None = None
    forked_from_id: str | None = None
    model: str | None = None
    reasoning_effort: str | None = None
    git: dict[str, Any] | None = None
    agent_nickname: str | None = None
    agent_role: str | None = None
    archived: bool = False
    # Where a listing placed it: its sort key and the order's name and direction.
    listed_at: tuple[SortKey, Direction, Key] | None = None


def backwards_cursor(summary: ThreadSummary, *, repeat_first: bool = True) -> str | None:
    """The cursor that pages back from a page `summary` begins: followed in the opposite
    direction, it lists the threads before `summary` (and `summary` first, with
    `repeat_first`). None for a thread no listing placed."""
    if summary.listed_at is None:
        return None
    sort_key, direction, key = summary.listed_at
    return encode_cursor(sort_key, backwards_place(key, direction, repeat_first=repeat_first))


def following_cursor(summary: ThreadSummary) -> str | None:
    """The cursor of the page that follows one ending at `summary`: the place just past it.
    None for a thread no listing placed."""
    if summary.listed_at is None:
        return None
    sort_key, direction, key = summary.listed_at
    return encode_cursor(sort_key, next_place(key, direction))


@dataclass(slots=True)
class ThreadPage:
    items: list[ThreadSummary]
    next_cursor: str | None
    warnings: list[str] = field(default_factory=list)
    reached_scan_cap: bool = False


def strip_preview(message: str) -> str:
    """The user's request without a leading Codex-style context block, trimmed."""
    _, marker, rest = message.partition(USER_REQUEST_MARKER)
    return (rest if marker else message).strip()


@dataclass(slots=True)
class _Head:
    meta: dict[str, Any]
    first_user: str | None = None
    turn_context: dict[str, Any] | None = None
    name: str | None = None


def _scan_head(path: Path, need_user: bool) -> _Head | str | None:
    """The head of a rollout, a warning saying why it is not one, or None for a file that
    is still being created (empty, or its first line not yet complete)."""
    head: _Head | None = None
    records = 0
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                if not raw.strip():
                    continue
                records += 1
                line = parse_line(raw)
                if head is None:
                    if line is None and not raw.endswith(b"\n"):
                        return None
                    if line is None or line.type != SESSION_META:
                        return f"{path}: skipped: first line is not a session_meta record"
                    if not isinstance(line.payload, dict):
                        return f"{path}: skipped: session_meta payload is not an object"
                    head = _Head(meta=line.payload)
                elif line is None:
                    continue  # a torn line; the rest of the head still counts
                elif line.type == EVENT_MSG and isinstance(line.payload, dict):
                    _note_event(head, line.payload)
                elif (
                    line.type == TURN_CONTEXT
                    and head.turn_context is None
                    and isinstance(line.payload, dict)
                ):
                    head.turn_context = line.payload
                if records >= HEAD_RECORDS and (head.first_user is not None or not need_user):
                    break
                if records >= HEAD_RECORDS + HEAD_EXTRA_RECORDS:
                    break
    except OSError as err:
        return f"{path}: skipped: {err.strerror or err}"
    return head


def _note_event(head: _Head, event: dict[str, Any]) -> None:
    kind = event.get("type")
    if kind == "user_message" and head.first_user is None:
        message = event.get("message")
        head.first_user = message if isinstance(message, str) else ""
    elif kind == "item_completed" and head.first_user is None:
        # Codex 0.171 and later record the user's message as a completed `UserMessage` item.
        item = event.get("item")
        if isinstance(item, dict) and item.get("type") == "UserMessage":
            content = item.get("content")
            parts: list[Any] = content if isinstance(content, list) else []
            head.first_user = "".join(
                part["text"]
                for part in parts
                if isinstance(part, dict)
                and part.get("type") == "text"
                and isinstance(part.get("text"), str)
            )
    elif kind == "thread_name_updated" and isinstance(event.get("thread_name"), str):
        head.name = event["thread_name"]


def _name_from_tail(path: Path) -> str | None:
    """The last name event in the file's final bytes, for names the index does not know."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(size - _TAIL_BYTES, 0))
            tail = handle.read()
    except OSError:
        return None
    if b'"thread_name_updated"' not in tail:
        return None
    name = None
    for raw in tail.split(b"\n"):
        if b'"thread_name_updated"' in raw:
            line = parse_line(raw)
            if line and line.type == EVENT_MSG and isinstance(line.payload, dict):
                value = line.payload.get("thread_name")
                name = value if isinstance(value, str) else name
    return name


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.astimezone()


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _summarize(
    file: RolloutFile, head: _Head, names: dict[str, str], mtime: float, archived: bool
) -> ThreadSummary:
    meta = head.meta
    thread_id = _str_or_none(meta.get("id")) or file.thread_id
    context = head.turn_context or {}
    name = names.get(thread_id) or _name_from_tail(file.path) or head.name
    git = meta.get("git")
    return ThreadSummary(
        id=thread_id,
        path=file.path,
        preview=strip_preview(head.first_user or ""),
        created_at=_parse_time(meta.get("timestamp")) or file.created_local(),
        updated_at=datetime.fromtimestamp(mtime, UTC),
        model_provider=_str_or_none(meta.get("model_provider")),
        cwd=_str_or_none(meta.get("cwd")),
        cli_version=_str_or_none(meta.get("cli_version")),
        source=meta.get("source"),
        originator=_str_or_none(meta.get("originator")),
        name=name,
        forked_from_id=_str_or_none(meta.get("forked_from_id")),
        model=_str_or_none(context.get("model")),
        reasoning_effort=_str_or_none(context.get("effort")),
        git=git if isinstance(git, dict) else None,
        agent_nickname=_str_or_none(meta.get("agent_nickname")),
        agent_role=_str_or_none(meta.get("agent_role")),
        archived=archived,
    )


def source_kind(source: Any) -> str | None:
    """`"cli"`, `"vscode"`, ... for string sources; the tag (e.g. `"subagent"`) for tables."""
    if isinstance(source, str):
        return source
    if isinstance(source, dict) and len(source) == 1:
        tag = next(iter(source))
        return tag if isinstance(tag, str) else None
    return None


@dataclass(slots=True)
class _Filters:
    providers: frozenset[str] | None
    cwds: frozenset[str] | None
    sources: frozenset[str] | None
    excluded_sources: frozenset[str] = frozenset()
    originators: frozenset[str] | None = None

    def accept(self, meta: dict[str, Any]) -> bool:
        # Rollouts from before providers were recorded ran on the default one.
        provider = meta.get("model_provider") or DEFAULT_PROVIDER
        if self.providers is not None and provider not in self.providers:
            return False
        if self.cwds is not None and meta.get("cwd") not in self.cwds:
            return False
        if self.originators is not None and meta.get("originator") not in self.originators:
            return False
        kind = source_kind(meta.get("source"))
        if kind in self.excluded_sources:
            return False
        return self.sources is None or kind in self.sources


def _as_set(values: Collection[str] | str | None) -> frozenset[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        return frozenset({values})
    return frozenset(values) or None


def list_threads(
    codex_home: Path,
    *,
    cursor: str | None = None,
    limit: int = 25,
    model_providers: Collection[str] | None = None,
    archived: bool = False,
    sort_key: SortKey = "created_at",
    sort_direction: Direction = "desc",
    cwd: Collection[str] | str | None = None,
    source_kinds: Collection[str] | None = None,
    exclude_source_kinds: Collection[str] = (),
    originators: Collection[str] | None = None,
    thread_ids: Collection[str] | None = None,
    exclude_thread_ids: Collection[str] = (),
) -> ThreadPage:
    """One page of threads, newest first (oldest first for `sort_direction="asc"`). Raises
    `InvalidCursorError` for a bad cursor.

    Empty filter collections mean "no filter", except `thread_ids`: given, only those threads
    are listed, and an empty one lists none. `exclude_source_kinds` and `exclude_thread_ids`
    leave threads out whatever the other filters say. Foreign or corrupt files are skipped and
    named in `ThreadPage.warnings`.
    """
    if sort_key not in ("created_at", "updated_at"):
        raise ValueError(f"unknown sort key {sort_key!r}; expected created_at or updated_at")
    limit = max(int(limit), 1)
    start = decode_cursor(cursor, sort_key) if cursor else None
    filters = _Filters(
        _as_set(model_providers),
        _as_set(cwd),
        _as_set(source_kinds),
        frozenset(exclude_source_kinds),
        _as_set(originators),
    )
    wanted = None if thread_ids is None else frozenset(i.lower() for i in thread_ids)
    unwanted = frozenset(i.lower() for i in exclude_thread_ids)
    warnings: list[str] = []
    names = load_thread_names(codex_home)
    ordered = ordered_rollouts(codex_home, sort_key, sort_direction, archived, start, warnings)

    page = ThreadPage(items=[], next_cursor=None, warnings=warnings)
    scanned = 0
    last_key = last_item_key = ("", "")
    for file, key, mtime in ordered:
        thread_id = file.thread_id.lower()
        # By name, before the file is opened: an id filter costs nothing per skipped thread,
        # and a page is not said to have a next one for threads it would leave out anyway.
        if (wanted is not None and thread_id not in wanted) or thread_id in unwanted:
            continue
        if len(page.items) == limit:
            # Another candidate exists, so there may be a next page.
            page.next_cursor = encode_cursor(sort_key, next_place(last_item_key, sort_direction))
            break
        if scanned == SCAN_CAP:
            page.reached_scan_cap = True
            page.next_cursor = encode_cursor(sort_key, next_place(last_key, sort_direction))
            break
        scanned += 1
        last_key = key
        head = _scan_head(file.path, need_user=True)
        if isinstance(head, str):
            warnings.append(head)
            continue
        if head is None or head.first_user is None or not filters.accept(head.meta):
            continue
        if mtime is None:
            try:
                mtime = file.path.stat().st_mtime
            except OSError:
                continue  # moved (archived) since the directory was listed
        summary = _summarize(file, head, names, mtime, archived)
        summary.listed_at = (sort_key, sort_direction, key)
        page.items.append(summary)
        last_item_key = key
    return page


def read_thread_summary(codex_home: Path, path: Path) -> ThreadSummary | None:
    """The summary of one rollout (for `thread/read`), listed or not; None if not a rollout."""
    path = Path(path)
    parsed = parse_rollout_name(path.name)
    if parsed is None:
        return None
    head = _scan_head(path, need_user=True)
    if head is None or isinstance(head, str):
        return None
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    file = RolloutFile(parsed[0], parsed[1], path)
    archived = is_archived_path(codex_home, path)
    return _summarize(file, head, load_thread_names(codex_home), mtime, archived)
