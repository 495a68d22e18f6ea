"""Threads as the store knows them: `Thread` objects from rollouts, and the `thread/*` methods
that need no engine (list, read, archive, unarchive, naming a thread that is not loaded).

File work runs in a worker thread: a listing walks directories and reads file heads, which must
not stall the event loop that streams other threads' deltas.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import anyio
from pydantic import ValidationError

from codex_lsp import __version__
from codex_lsp.api.convert import invalid
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.api.threads.project_filter import check_project_filter
from codex_lsp.api.threads.rebuild import rebuild_turns
from codex_lsp.api.threads.section_listing import (
    SECTION_POSITION,
    bad_cursor,
    narrowed,
    section_filter,
    section_page,
)
from codex_lsp.protocol.common import GitInfo
from codex_lsp.protocol.threads.models import (
    MAX_INCLUDED_THREAD_IDS,
    NotLoadedThreadStatus,
    SubAgentSessionSource,
    Thread,
    ThreadListParams,
    ThreadListResponse,
)
from codex_lsp.store.history import reconstruct_history
from codex_lsp.store.rollout import EVENT_MSG, RolloutInUseError, RolloutRecorder, read_rollout
from codex_lsp.store.rollout_files import (
    ThreadNotFoundError,
    archive_thread,
    find_rollout,
    unarchive_thread,
)
from codex_lsp.store.thread_index import append_thread_name
from codex_lsp.store.thread_metadata import load_git
from codex_lsp.store.thread_order import Direction
from codex_lsp.store.threads import (
    InvalidCursorError,
    SortKey,
    ThreadSummary,
    backwards_cursor,
    following_cursor,
    list_threads,
    read_thread_summary,
)

DEFAULT_PAGE = 25
MAX_PAGE = 200
_SOURCES = frozenset({"cli", "vscode", "exec", "appServer", "unknown"})


# The v2 kinds of sub-agent threads; the store knows them all as `subagent`.
_SUBAGENT_KINDS = frozenset(
    {"subAgent", "subAgentReview", "subAgentCompact", "subAgentThreadSpawn", "subAgentOther"}
)


def store_source_filter(kinds: Sequence[str] | None) -> dict[str, Any]:
    """`list_threads` filter arguments for v2 `sourceKinds`.

    Without `sourceKinds` a listing shows the threads people started: sub-agents' threads are
    left out, as they belong to their parent thread.
    """
    if not kinds:
        return {"exclude_source_kinds": ("subagent",)}
    return {"source_kinds": {"subagent" if k in _SUBAGENT_KINDS else k for k in kinds}}


def not_found(thread_id: str) -> ApiError:
    return ApiError(INVALID_REQUEST, f"thread not found: {thread_id}")


def session_source(raw: Any) -> Any:
    """The v2 `SessionSource` of a rollout's `source`: known names as they are, sub-agents as
    tables, anything else `unknown` (a newer writer's kind must not break a listing)."""
    if isinstance(raw, str):
        return raw if raw in _SOURCES else "unknown"
    if isinstance(raw, dict) and len(raw) == 1:
        key, value = next(iter(raw.items()))
        if key in ("subagent", "sub_agent", "subAgent"):
            try:
                return SubAgentSessionSource(sub_agent=value)
            except ValidationError:
                return "unknown"
    return "unknown"


def git_info(raw: dict[str, Any] | None) -> GitInfo | None:
    if not raw:
        return None
    return GitInfo(
        sha=raw.get("commit_hash") or raw.get("sha"),
        branch=raw.get("branch"),
        origin_url=raw.get("repository_url") or raw.get("origin_url"),
    )


def apply_metadata(home: Path, threads: list[Thread]) -> list[Thread]:
    """Threads with the metadata set after they began (`thread/metadata/update`) applied."""
    overrides = load_git(home)
    for thread in threads:
        if thread.id in overrides:
            thread.git_info = git_info(overrides[thread.id])
    return threads


def _spawned_by(source: Any) -> str | None:
    """The parent thread of a subagent's thread, from its `session_meta.source`."""
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return parent if isinstance(parent, str) else None


def thread_from_summary(summary: ThreadSummary, status: Any = None) -> Thread:
    parent = _spawned_by(summary.source)
    return Thread(
        id=summary.id,
        session_id=summary.id,
        preview=summary.preview,
        ephemeral=False,
        model_provider=summary.model_provider or "openai",
        created_at=int(summary.created_at.timestamp()),
        updated_at=int(summary.updated_at.timestamp()),
        status=status or NotLoadedThreadStatus(),
        cwd=summary.cwd or "",
        cli_version=summary.cli_version or __version__,
        source=session_source(summary.source),
        forked_from_id=summary.forked_from_id,
        parent_thread_id=parent,
        thread_source="subagent" if parent is not None else None,
        path=str(summary.path),
        model=summary.model,
        reasoning_effort=summary.reasoning_effort,
        originator=summary.originator,
        agent_nickname=summary.agent_nickname,
        agent_role=summary.agent_role,
        git_info=git_info(summary.git),
        name=summary.name,
    )


def rollout_path(home: Path, thread_id: str, explicit: str | None = None) -> Path:
    """Where a thread's rollout is: the client's `path`, else found by id."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise invalid("path", f"no rollout file at {explicit}")
        return path
    found = find_rollout(home, thread_id)
    if found is None:
        raise not_found(thread_id)
    return found


def rollout_events(path: Path) -> list[dict[str, Any]]:
    return reconstruct_history(read_rollout(path).lines).events


class Anchors(NamedTuple):
    """The cursors of a page of matches that would begin at a thread (`backwards`), and of
    the page that follows one ending at it (`following`)."""

    backwards: str | None
    following: str | None


async def list_page(
    home: Path, params: ThreadListParams, statuses: dict[str, Any]
) -> ThreadListResponse:
    """One page of `thread/list`."""
    page, _backwards = await listing(home, params, statuses)
    return page


async def listing(
    home: Path, params: ThreadListParams, statuses: dict[str, Any], *, searching: bool = False
) -> tuple[ThreadListResponse, dict[str, Anchors]]:
    """One page of `thread/list` (or of the threads `thread/search` looks through, `searching`),
    and the cursors of a page that would begin or end at each of its threads.

    The page's `backwardsCursor`, given when it holds a thread, pages back when sent with the
    opposite `sortDirection`, repeating the page's first thread or not as the reference's does.
    """
    recency = params.sort_key in ("updated_at", "recency_at")
    sort_key: SortKey = "updated_at" if recency else "created_at"
    by_section = params.sort_key == SECTION_POSITION
    direction: Direction = "asc" if params.sort_direction == "asc" else "desc"
    limit = min(max(params.limit or DEFAULT_PAGE, 1), MAX_PAGE)
    included = params.included_thread_ids
    if included is not None and len(included) > MAX_INCLUDED_THREAD_IDS:
        raise invalid("includedThreadIds", f"at most {MAX_INCLUDED_THREAD_IDS} thread ids")
    check_project_filter(params)
    section = await anyio.to_thread.run_sync(section_filter, home, params)
    wanted = narrowed(included, section)
    unwanted = {*(params.excluded_thread_ids or ()), *(section.never if section else ())}

    def scan(cursor: str | None, size: int) -> Any:
        return list_threads(
            home,
            cursor=cursor,
            limit=size,
            model_providers=params.model_providers,
            archived=bool(params.archived),
            sort_key=sort_key,
            sort_direction=direction,
            cwd=params.cwd,
            originators=params.originators,
            thread_ids=wanted,
            exclude_thread_ids=unwanted,
            **store_source_filter(params.source_kinds),
        )

    def whole_section() -> Any:
        """Every thread of the section, to be ordered and paged here; past the store's cap on
        files read per page, the scan goes on where it stopped."""
        page = scan(None, max(len(wanted or ()), 1))
        while page.reached_scan_cap and page.next_cursor:
            more = scan(page.next_cursor, max(len(wanted or ()), 1))
            more.items[:0] = page.items
            page = more
        return page

    try:
        if by_section:
            page = await anyio.to_thread.run_sync(whole_section)
        else:
            page = await anyio.to_thread.run_sync(scan, params.cursor, limit)
    except InvalidCursorError:
        raise bad_cursor(params.cursor or "") from None
    summaries, next_cursor = page.items, page.next_cursor
    backwards: str | None = None
    if by_section and section is not None and section.only is not None:
        summaries, next_cursor, backwards = section_page(
            summaries, lambda s: s.id, section.only, params, limit
        )
    if params.search_term:
        # The store pages without a text filter; the term narrows each page it returns.
        term = params.search_term.lower()
        summaries = [
            s for s in summaries if term in s.preview.lower() or term in (s.name or "").lower()
        ]
    backs: dict[str, Anchors] = {}
    if not by_section:
        # As the reference's: its listings by creation anchor on the other side of the first
        # thread in one direction, which a section filter turns round; its searches by
        # creation, oldest first.
        if sort_key == "updated_at":
            repeat_first = True
        elif searching:
            repeat_first = direction == "desc"
        else:
            repeat_first = (direction == "desc") == (section is not None)
        backs = {
            s.id: Anchors(backwards_cursor(s, repeat_first=repeat_first), following_cursor(s))
            for s in summaries
        }
        backwards = backs[summaries[0].id].backwards if summaries else None
    threads = [thread_from_summary(s, statuses.get(s.id)) for s in summaries]
    threads = await anyio.to_thread.run_sync(apply_metadata, home, threads)
    page = ThreadListResponse(data=threads, next_cursor=next_cursor, backwards_cursor=backwards)
    return page, backs


async def read_thread(
    home: Path,
    thread_id: str,
    *,
    include_turns: bool,
    status: Any = None,
    running_turn: str | None = None,
) -> Thread:
    def read() -> Thread:
        path = rollout_path(home, thread_id)
        summary = read_thread_summary(home, path)
        if summary is None:
            raise ApiError(INVALID_REQUEST, f"{path} is not a thread rollout")
        thread = apply_metadata(home, [thread_from_summary(summary, status)])[0]
        if include_turns:
            thread.turns = rebuild_turns(rollout_events(path), running_turn=running_turn)
        return thread

    return await anyio.to_thread.run_sync(read)


async def archive(home: Path, thread_id: str) -> None:
    try:
        await anyio.to_thread.run_sync(archive_thread, home, thread_id)
    except ThreadNotFoundError:
        raise not_found(thread_id) from None
    except FileExistsError as err:
        raise ApiError(INVALID_REQUEST, str(err)) from None


async def unarchive(home: Path, thread_id: str) -> Thread:
    try:
        path = await anyio.to_thread.run_sync(unarchive_thread, home, thread_id)
    except ThreadNotFoundError:
        raise not_found(thread_id) from None
    except FileExistsError as err:
        raise ApiError(INVALID_REQUEST, str(err)) from None
    summary = await anyio.to_thread.run_sync(read_thread_summary, home, path)
    if summary is None:
        raise ApiError(INVALID_REQUEST, f"{path} is not a thread rollout")
    return thread_from_summary(summary)


async def name_stored_thread(home: Path, thread_id: str, name: str) -> None:
    """Name a thread no engine has loaded: an event in its rollout, and the name index."""

    def write() -> None:
        path = rollout_path(home, thread_id)
        recorder = RolloutRecorder.open_existing(path)
        try:
            event = {"type": "thread_name_updated", "thread_id": thread_id, "thread_name": name}
            recorder.record(EVENT_MSG, event)
        finally:
            recorder.close()
        # The recorder indexes names only for rollouts under a home it recognises.
        append_thread_name(home, thread_id, name)

    try:
        await anyio.to_thread.run_sync(write)
    except RolloutInUseError as err:
        raise ApiError(INVALID_REQUEST, str(err)) from None
