"""Rollout files: writing, reading back damaged files, surviving kill -9, persisted events."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from codex_lsp.store.home import new_thread_id, uuid7_millis
from codex_lsp.store.persist import MAX_PERSISTED_EXEC_OUTPUT_BYTES, should_persist_event
from codex_lsp.store.rollout import RolloutClosedError, RolloutRecorder, read_rollout

TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def user_item(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def new_recorder(home: Path, **meta) -> RolloutRecorder:
    meta = {"cwd": "/p", "model_provider": "openai", **meta}
    return RolloutRecorder.create(home, new_thread_id(), meta)


def test_create_names_the_file_by_local_time_and_uuid(tmp_path: Path) -> None:
    now = datetime(2025, 3, 4, 5, 6, 7).astimezone()
    thread_id = new_thread_id()
    with RolloutRecorder.create(tmp_path, thread_id, {"cwd": "/p"}, now=now) as recorder:
        path = recorder.path
    expected = tmp_path / "sessions/2025/03/04" / f"rollout-2025-03-04T05-06-07-{thread_id}.jsonl"
    assert path == expected
    first = json.loads(path.read_text().splitlines()[0])
    assert first["type"] == "session_meta"
    assert first["payload"]["id"] == thread_id
    assert first["payload"]["cwd"] == "/p"
    assert TIMESTAMP_RE.match(first["timestamp"])


def test_round_trip(tmp_path: Path) -> None:
    recorder = new_recorder(tmp_path, cli_version="1.2.3")
    recorder.record_turn_context({"model": "gpt-5", "cwd": "/p"})
    recorder.record_item(user_item("hi"))
    assert recorder.record_event({"type": "user_message", "message": "hi"})
    assert not recorder.record_event({"type": "agent_message_delta", "delta": "h"})
    recorder.record_compacted("summary", [user_item("hi")])
    recorder.close()
    contents = read_rollout(recorder.path)
    assert contents.warnings == []
    assert contents.meta["id"] == recorder.thread_id
    assert contents.meta["cli_version"] == "1.2.3"
    kinds = [line.type for line in contents.lines]
    assert kinds == ["session_meta", "turn_context", "response_item", "event_msg", "compacted"]
    assert contents.lines[2].payload == user_item("hi")
    assert contents.lines[4].payload["replacement_history"] == [user_item("hi")]
    assert all(TIMESTAMP_RE.match(line.timestamp) for line in contents.lines)
    # compact separators: no spaces after `:` or `,` outside strings
    assert '"type":"session_meta"' in recorder.path.read_text()


def test_lines_are_visible_before_close(tmp_path: Path) -> None:
    recorder = new_recorder(tmp_path)
    recorder.record_item(user_item("one"))
    # Another reader sees the line at once: nothing waits in a user-space buffer.
    assert len(read_rollout(recorder.path).lines) == 2
    recorder.sync()
    recorder.close()
    with pytest.raises(RolloutClosedError):
        recorder.record_item(user_item("late"))


def test_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    recorder = new_recorder(tmp_path)
    recorder.record_item(user_item("complete"))
    recorder.close()
    with open(recorder.path, "ab") as handle:
        handle.write(b'{"timestamp":"2025-01-01T00:00:00.000Z","type":"response_it')
    contents = read_rollout(recorder.path)
    assert [line.type for line in contents.lines] == ["session_meta", "response_item"]
    assert len(contents.warnings) == 1
    assert "torn last line" in contents.warnings[0]
    assert str(recorder.path) in contents.warnings[0]


def test_corrupt_middle_line_and_missing_meta(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    good = json.dumps({"timestamp": "t", "type": "response_item", "payload": user_item("a")})
    path.write_text(f"{good}\nnot json at all\n[1,2]\n{good}\n")
    contents = read_rollout(path)
    assert len(contents.lines) == 2
    assert contents.meta is None
    assert any(":2: skipped corrupt line" in warning for warning in contents.warnings)
    assert any(":3: skipped corrupt line" in warning for warning in contents.warnings)
    assert any("no session_meta" in warning for warning in contents.warnings)


def test_lines_that_only_lenient_json_reads_are_kept(tmp_path: Path) -> None:
    # A lone surrogate escaped in a string, and an integer past 64 bits: JSON that Python's
    # json module reads (and writes), so a rollout may hold them; neither is a corrupt line.
    path = tmp_path / "x.jsonl"
    good = json.dumps({"timestamp": "t", "type": "response_item", "payload": user_item("a")})
    surrogate = '{"timestamp": "t", "type": "response_item", "payload": {"text": "\\ud800"}}'
    big = json.dumps({"timestamp": "t", "type": "event_msg", "payload": {"n": 2**70}})
    path.write_text(f"{good}\n{surrogate}\n{big}\n")
    contents = read_rollout(path)
    assert [line.payload for line in contents.lines[1:]] == [{"text": "\ud800"}, {"n": 2**70}]
    assert not any("corrupt" in warning for warning in contents.warnings)


def test_open_existing_after_a_torn_line_keeps_new_lines_intact(tmp_path: Path) -> None:
    recorder = new_recorder(tmp_path)
    recorder.record_item(user_item("before"))
    recorder.close()
    with open(recorder.path, "ab") as handle:
        handle.write(b'{"timestamp":"2025-01-')
    resumed = RolloutRecorder.open_existing(recorder.path)
    assert resumed.thread_id == recorder.thread_id
    resumed.record_item(user_item("after"))
    resumed.close()
    contents = read_rollout(recorder.path)
    texts = [line.payload["content"][0]["text"] for line in contents.lines[1:]]
    assert texts == ["before", "after"]
    assert len(contents.warnings) == 1 and "corrupt line" in contents.warnings[0]


def test_concurrent_writers_never_interleave(tmp_path: Path) -> None:
    recorder = new_recorder(tmp_path)

    def write(worker: int) -> None:
        for index in range(300):
            recorder.record_item(user_item(f"{worker}:{index}:" + "x" * 500))

    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recorder.close()
    contents = read_rollout(recorder.path)
    assert contents.warnings == []
    assert len(contents.lines) == 1 + 6 * 300


WRITER = """
import sys
from pathlib import Path
from codex_lsp.store.rollout import RolloutRecorder
recorder = RolloutRecorder.create(Path(sys.argv[1]), sys.argv[2], {"cwd": "/p"})
print(recorder.path, flush=True)
index = 0
while True:
    recorder.record("response_item", {"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": str(index) + "y" * 3000}]})
    index += 1
"""


def test_kill_9_mid_write_loses_at_most_the_line_being_written(tmp_path: Path) -> None:
    thread_id = new_thread_id()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path), thread_id],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        path = Path(proc.stdout.readline().strip())
        deadline = time.monotonic() + 30
        while path.stat().st_size < 2_000_000 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    contents = read_rollout(path)
    assert contents.meta["id"] == thread_id
    assert len(contents.warnings) <= 1  # only the line cut by the kill, if any
    numbers = [int(line.payload["content"][0]["text"].rstrip("y")) for line in contents.lines[1:]]
    assert len(numbers) > 100
    assert numbers == list(range(len(numbers)))  # every complete line is there, in order


def test_persisted_event_filter() -> None:
    for kept in (
        "user_message",
        "agent_message",
        "agent_reasoning",
        "token_count",
        "thread_name_updated",
        "context_compacted",
        "task_started",
        "task_complete",
        "turn_aborted",
        "error",
        "exec_command_end",
        "patch_apply_end",
        "mcp_tool_call_end",
        "web_search_end",
        "thread_rolled_back",
    ):
        assert should_persist_event(kept), kept
    for dropped in (
        "agent_message_delta",
        "exec_command_begin",
        "exec_command_output_delta",
        "session_configured",
        "warning",
        "stream_error",
        "item_started",
    ):
        assert not should_persist_event(dropped), dropped
    assert should_persist_event("item_completed", {"item": {"type": "Plan"}})
    assert not should_persist_event("item_completed", {"item": {"type": "AgentMessage"}})


def test_exec_output_is_truncated_in_the_rollout(tmp_path: Path) -> None:
    recorder = new_recorder(tmp_path)
    big = "é" * 30_000
    event = {
        "type": "exec_command_end",
        "call_id": "c1",
        "stdout": big,
        "stderr": "err",
        "aggregated_output": big,
        "formatted_output": big,
        "exit_code": 0,
    }
    assert recorder.record_event(event)
    recorder.record("event_msg", event)  # the plain path trims too
    recorder.close()
    first, stored = (line.payload for line in read_rollout(recorder.path).lines[-2:])
    assert first == stored
    assert len(stored["aggregated_output"].encode()) <= MAX_PERSISTED_EXEC_OUTPUT_BYTES
    assert stored["aggregated_output"] == big[: len(stored["aggregated_output"])]
    assert stored["stdout"] == stored["stderr"] == stored["formatted_output"] == ""
    assert event["stdout"] == big  # the caller's event is left alone


def test_thread_ids_are_time_ordered_uuid7() -> None:
    first = new_thread_id(1_700_000_000_000)
    second = new_thread_id(1_700_000_000_001)
    assert first < second
    assert uuid7_millis(first) == 1_700_000_000_000
    assert uuid7_millis("not-a-uuid") is None
