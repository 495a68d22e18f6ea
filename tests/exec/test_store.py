"""`ProcessStore`: session ids, the 64-process limit and which process makes room."""

from __future__ import annotations

import os
from pathlib import Path

from codex_lsp.engine.unified_exec import (
    MAX_PROCESSES,
    WARNING_PROCESSES,
    ExecProcess,
    ProcessEntry,
    ProcessStore,
    SpawnSpec,
    too_many_processes_warning,
)


async def _entry(store: ProcessStore, tmp_path: Path, argv: list[str]) -> ProcessEntry:
    process = await ExecProcess.spawn(SpawnSpec(argv=argv, cwd=tmp_path, env=dict(os.environ)))
    process_id = store.reserve_id()
    return ProcessEntry(
        process=process,
        process_id=process_id,
        call_id=f"call_{process_id}",
        sub_id="turn",
        command=argv,
        cwd=str(tmp_path),
        tty=False,
    )


async def test_ids_are_unique_and_come_back_after_release(tmp_path: Path) -> None:
    store = ProcessStore()
    ids = {store.reserve_id() for _ in range(500)}
    assert len(ids) == 500
    assert all(1_000 <= i < 100_000 for i in ids)
    entry = await _entry(store, tmp_path, ["true"])
    store.add(entry)
    assert store.get(entry.process_id) is entry
    assert store.release(entry.process_id) is entry
    assert store.get(entry.process_id) is None
    await entry.process.wait()


async def test_the_65th_process_ends_the_least_recently_used(tmp_path: Path) -> None:
    store = ProcessStore()
    entries = []
    try:
        for _ in range(MAX_PROCESSES):
            entry = await _entry(store, tmp_path, ["sleep", "300"])
            pruned, count = store.add(entry)
            assert pruned is None
            entries.append(entry)
        assert count == MAX_PROCESSES
        # The oldest is used again: the next oldest is the one to go.
        entries[0].touch()
        newcomer = await _entry(store, tmp_path, ["sleep", "300"])
        pruned, count = store.add(newcomer)
        assert pruned is entries[1]
        assert count == MAX_PROCESSES
        assert await entries[1].process.wait() == 137
        assert store.get(entries[1].process_id) is None
        assert store.get(entries[0].process_id) is entries[0]
    finally:
        for entry in store.terminate_all():
            await entry.process.wait()
    assert len(store) == 0


async def test_an_exited_process_makes_room_before_a_running_one(tmp_path: Path) -> None:
    store = ProcessStore()
    try:
        done = await _entry(store, tmp_path, ["true"])
        await done.process.wait()
        store.add(done)
        for _ in range(MAX_PROCESSES - 1):
            store.add(await _entry(store, tmp_path, ["sleep", "300"]))
        pruned, _ = store.add(await _entry(store, tmp_path, ["sleep", "300"]))
        assert pruned is done
    finally:
        for entry in store.terminate_all():
            await entry.process.wait()


def test_the_warning_names_the_limit_and_the_count() -> None:
    assert WARNING_PROCESSES == 60
    text = too_many_processes_warning(61)
    assert "keep open is 60" in text and "currently have 61 processes open" in text
