"""Thread listing, lookup, archive and names over real rollout directories."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from codex_lsp.store import threads as threads_module
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout import RolloutRecorder
from codex_lsp.store.rollout_files import (
    ThreadNotFoundError,
    archive_thread,
    find_rollout,
    unarchive_thread,
)
from codex_lsp.store.synthetic import populate_sessions, write_synthetic_rollout
from codex_lsp.store.threads import (
    InvalidCursorError,
    list_threads,
    read_thread_summary,
    strip_preview,
)


def list_all(home: Path, **options) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        page = list_threads(home, cursor=cursor, **options)
        ids += [item.id for item in page.items]
        cursor = page.next_cursor
        if cursor is None:
            return ids


def start_thread(home: Path, message: str, provider: str = "openai") -> RolloutRecorder:
    recorder = RolloutRecorder.create(
        home, new_thread_id(), {"cwd": "/p", "model_provider": provider, "source": "vscode"}
    )
    recorder.record_event({"type": "user_message", "message": message})
    return recorder


@pytest.fixture(scope="module")
def big_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """10,000 threads that no test modifies."""
    home = tmp_path_factory.mktemp("big")
    return home, populate_sessions(home, 10_000, per_day=100)


def test_10k_paged_with_no_duplicate_or_gap_while_threads_are_added(tmp_path: Path) -> None:
    home = tmp_path
    # 10,000 threads, 100 per day; groups of 20 share a creation second.
    expected = populate_sessions(home, 10_000, per_day=100, same_second=20)
    seen: list[str] = []
    new_ids: list[str] = []
    stop = threading.Event()

    def keep_writing() -> None:  # another process's engine, starting threads all along
        while not stop.is_set():
            with start_thread(home, "written concurrently") as recorder:
                new_ids.append(recorder.thread_id)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        cursor = None
        pages = 0
        while True:
            page = list_threads(home, cursor=cursor, limit=97)
            assert page.warnings == []
            seen += [item.id for item in page.items]
            pages += 1
            if pages % 10 == 1:  # and some arrive right between two pages
                with start_thread(home, f"new during listing {pages}") as recorder:
                    new_ids.append(recorder.thread_id)
            cursor = page.next_cursor
            if cursor is None:
                break
    finally:
        stop.set()
        writer.join()
    assert len(new_ids) > 10
    # The first page may already show threads created after the listing began; none after it.
    later = [thread_id for thread_id in seen if thread_id in set(new_ids)]
    old = [thread_id for thread_id in seen if thread_id not in set(new_ids)]
    assert later == seen[: len(later)] and len(later) <= 97
    assert len(seen) == len(set(seen)), "duplicates"
    assert old == expected  # every old thread once, newest first, no gap
    fresh = list_all(home, limit=100)
    assert set(fresh[: len(new_ids)]) == set(new_ids)
    assert fresh[len(new_ids) :] == expected


def test_first_page_reads_only_what_the_page_needs(big_home, monkeypatch) -> None:
    home, expected = big_home
    scanned: list[Path] = []
    original = threads_module._scan_head

    def counting(path: Path, need_user: bool):
        scanned.append(path)
        return original(path, need_user)

    monkeypatch.setattr(threads_module, "_scan_head", counting)
    listed: list[str] = []
    original_listdir = os.listdir
    monkeypatch.setattr(
        os, "listdir", lambda path=".": listed.append(str(path)) or original_listdir(path)
    )
    page = list_threads(home, limit=25)
    assert [item.id for item in page.items] == expected[:25]
    assert len(scanned) == 25
    assert len(listed) <= 4  # sessions/, the year, the month, one day
    # The second page starts from the cursor without walking the days before it.
    scanned.clear()
    listed.clear()
    list_threads(home, limit=25, cursor=page.next_cursor)
    assert len(scanned) == 25 and len(listed) <= 4


def test_same_second_threads_tie_break_on_uuid(tmp_path: Path) -> None:
    created = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    ids = sorted((new_thread_id() for _ in range(7)), reverse=True)
    for thread_id in ids:
        write_synthetic_rollout(tmp_path, thread_id, created, message="same second")
    assert list_all(tmp_path, limit=2) == ids


def test_filter_by_model_provider(tmp_path: Path) -> None:
    ids = populate_sessions(tmp_path, 30, providers=("openai", "ollama", "mock"))
    ollama = [tid for index, tid in enumerate(ids) if index % 3 == 1]
    assert list_all(tmp_path, limit=4, model_providers=["ollama"]) == ollama
    both = [tid for index, tid in enumerate(ids) if index % 3 != 2]
    assert list_all(tmp_path, limit=5, model_providers=["ollama", "openai"]) == both
    assert list_all(tmp_path, limit=50, model_providers=[]) == ids  # empty means no filter
    page = list_threads(tmp_path, limit=1, model_providers=["mock"])
    assert page.items[0].model_provider == "mock"


def test_archive_and_unarchive(tmp_path: Path) -> None:
    ids = populate_sessions(tmp_path, 5)
    original = find_rollout(tmp_path, ids[2])
    archived = archive_thread(tmp_path, ids[2])
    assert archived == tmp_path / "archived_sessions" / original.name
    assert not original.exists()
    assert ids[2] not in list_all(tmp_path)
    page = list_threads(tmp_path, archived=True)
    assert [item.id for item in page.items] == [ids[2]]
    assert page.items[0].archived
    assert find_rollout(tmp_path, ids[2]) == archived
    assert archive_thread(tmp_path, ids[2]) == archived  # idempotent

    restored = unarchive_thread(tmp_path, ids[2])
    assert restored == original
    assert list_all(tmp_path) == ids
    assert list_threads(tmp_path, archived=True).items == []
    with pytest.raises(ThreadNotFoundError):
        archive_thread(tmp_path, new_thread_id())


def test_foreign_and_corrupt_files_are_skipped_with_a_warning(tmp_path: Path) -> None:
    ids = populate_sessions(tmp_path, 3, newest=datetime(2025, 5, 5, 12, tzinfo=UTC))
    day = tmp_path / "sessions/2025/05/05"
    (day / "notes.txt").write_text("not a rollout")
    corrupt = day / f"rollout-2025-05-05T23-00-00-{new_thread_id()}.jsonl"
    corrupt.write_bytes(b"\x00\x01garbage\n{not json}\n")
    foreign = day / f"rollout-2025-05-05T22-00-00-{new_thread_id()}.jsonl"
    foreign.write_text(json.dumps({"hello": "world"}) + "\n")
    (tmp_path / "sessions/2025/xx").mkdir()
    # Files a recorder is creating right now are skipped quietly: empty, or a partial first line.
    empty = day / f"rollout-2025-05-05T21-00-00-{new_thread_id()}.jsonl"
    empty.write_text("")
    partial = day / f"rollout-2025-05-05T20-00-00-{new_thread_id()}.jsonl"
    partial.write_text('{"timestamp":"2025-05-05T20:00:00.000Z","type":"session_me')
    page = list_threads(tmp_path)
    assert [item.id for item in page.items] == ids
    joined = "\n".join(page.warnings)
    for path in (day / "notes.txt", corrupt, foreign, tmp_path / "sessions/2025/xx"):
        assert str(path) in joined
    assert str(empty) not in joined and str(partial) not in joined


def test_thread_without_a_user_message_is_not_listed(tmp_path: Path) -> None:
    RolloutRecorder.create(tmp_path, new_thread_id(), {"cwd": "/p"}).close()
    with start_thread(tmp_path, "listed") as recorder:
        pass
    assert list_all(tmp_path) == [recorder.thread_id]


def test_user_message_found_beyond_the_first_ten_records(tmp_path: Path) -> None:
    recorder = RolloutRecorder.create(tmp_path, new_thread_id(), {"cwd": "/p"})
    for index in range(150):
        recorder.record_event({"type": "agent_reasoning", "text": str(index)})
    recorder.record_event({"type": "user_message", "message": "late"})
    recorder.close()
    too_late = RolloutRecorder.create(tmp_path, new_thread_id(), {"cwd": "/p"})
    for index in range(300):
        too_late.record_event({"type": "agent_reasoning", "text": str(index)})
    too_late.record_event({"type": "user_message", "message": "too late"})
    too_late.close()
    assert [item.preview for item in list_threads(tmp_path).items] == ["late"]


def test_preview_and_metadata(tmp_path: Path) -> None:
    message = "# AGENTS.md\nbe nice\n## My request for Codex:\n  fix the bug  \n"
    with start_thread(tmp_path, message) as recorder:
        recorder.record_turn_context({"model": "gpt-5", "effort": "high"})
    (item,) = list_threads(tmp_path).items
    assert item.preview == "fix the bug"
    assert item.cwd == "/p" and item.source == "vscode" and item.model_provider == "openai"
    assert item.model == "gpt-5" and item.reasoning_effort == "high"
    assert item.path == recorder.path
    assert abs(item.created_at - datetime.now(UTC)) < timedelta(minutes=5)
    assert item.updated_at.timestamp() == pytest.approx(recorder.path.stat().st_mtime)
    assert strip_preview("  plain  ") == "plain"


def test_latest_name_is_listed(tmp_path: Path) -> None:
    with start_thread(tmp_path, "a") as recorder:
        recorder.record_event({"type": "thread_name_updated", "thread_name": "first"})
        for index in range(300):  # push the names far from both ends of the file
            recorder.record_event({"type": "agent_message", "message": "z" * 100 + str(index)})
        recorder.record_event({"type": "thread_name_updated", "thread_name": "second"})
        for index in range(300):
            recorder.record_event({"type": "agent_message", "message": "z" * 100 + str(index)})
    assert list_threads(tmp_path).items[0].name == "second"
    # Without the index (e.g. a copied rollout), a name near the end of the file is still found.
    (tmp_path / "session_index.jsonl").unlink()
    with start_thread(tmp_path, "b") as other:
        other.record_event({"type": "thread_name_updated", "thread_name": "tail name"})
    (tmp_path / "session_index.jsonl").unlink()
    names = {item.id: item.name for item in list_threads(tmp_path).items}
    assert names[other.thread_id] == "tail name"


def test_sort_by_updated_at(tmp_path: Path) -> None:
    ids = populate_sessions(tmp_path, 6)
    for offset, thread_id in enumerate(ids):  # oldest created becomes most recently updated
        path = find_rollout(tmp_path, thread_id)
        os.utime(path, (1_700_000_000 + offset, 1_700_000_000 + offset))
    assert list_all(tmp_path, limit=4, sort_key="updated_at") == list(reversed(ids))
    page = list_threads(tmp_path, limit=2, sort_key="updated_at")
    with pytest.raises(InvalidCursorError):  # a cursor belongs to its sort key
        list_threads(tmp_path, cursor=page.next_cursor, sort_key="created_at")


def test_invalid_cursor_is_rejected(tmp_path: Path) -> None:
    for cursor in ("%%%", "bm9wZQ", "2025-01-01T00:00:00Z|x"):
        with pytest.raises(InvalidCursorError):
            list_threads(tmp_path, cursor=cursor)


def test_find_rollout_and_read_summary(tmp_path: Path) -> None:
    with start_thread(tmp_path, "find me") as recorder:
        pass
    assert find_rollout(tmp_path, recorder.thread_id) == recorder.path
    assert find_rollout(tmp_path, new_thread_id()) is None
    assert find_rollout(tmp_path, "../../etc/passwd") is None
    # An id whose embedded time does not match its directory is still found by the full walk.
    odd_id = new_thread_id(0)
    path = write_synthetic_rollout(tmp_path, odd_id, datetime(2023, 1, 1, tzinfo=UTC))
    assert find_rollout(tmp_path, odd_id) == path
    summary = read_thread_summary(tmp_path, recorder.path)
    assert summary.id == recorder.thread_id and summary.preview == "find me"


def test_excluded_source_kinds_leave_threads_out_whatever_else_matches(tmp_path: Path) -> None:
    home = tmp_path
    person = start_thread(home, "from a person")
    child = RolloutRecorder.create(
        home,
        new_thread_id(),
        {"cwd": "/p", "model_provider": "openai", "source": {"subagent": {"thread_spawn": {}}}},
    )
    child.record_event({"type": "user_message", "message": "from a parent agent"})
    assert set(list_all(home)) == {person.thread_id, child.thread_id}
    assert list_all(home, exclude_source_kinds=("subagent",)) == [person.thread_id]
    assert list_all(home, source_kinds={"subagent"}) == [child.thread_id]
