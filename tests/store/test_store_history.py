"""Rebuilding a thread from its rollout: compaction, rollback, settings, usage; and forks."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_lsp.store.fork import fork_lines, fork_thread
from codex_lsp.store.history import SUMMARY_PREFIX, message_text, reconstruct_history
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout import RolloutLine, RolloutRecorder, read_rollout


def msg(role: str, text: str, item_id: str | None = None) -> dict:
    part = "input_text" if role == "user" else "output_text"
    item = {"type": "message", "role": role, "content": [{"type": part, "text": text}]}
    if item_id:
        item["id"] = item_id
    return item


def line(kind: str, payload) -> RolloutLine:
    return RolloutLine("2025-01-01T00:00:00.000Z", kind, payload)


def turn(text: str, answer: str, turn_id: str, answer_id: str | None = None) -> list[RolloutLine]:
    return [
        line("event_msg", {"type": "task_started", "turn_id": turn_id}),
        line("turn_context", {"turn_id": turn_id, "model": f"model-{turn_id}"}),
        line("response_item", msg("user", text)),
        line("event_msg", {"type": "user_message", "message": text}),
        line("response_item", msg("assistant", answer, answer_id)),
        line("event_msg", {"type": "agent_message", "message": answer}),
        line("event_msg", {"type": "task_complete", "turn_id": turn_id}),
    ]


META = line("session_meta", {"id": "meta-id", "cwd": "/p"})


def texts(history: list[dict]) -> list[str]:
    return [message_text(item) for item in history]


def test_plain_history_settings_and_usage() -> None:
    lines = [
        META,
        *turn("one", "first answer", "t1"),
        line("event_msg", {"type": "token_count", "info": {"total_token_usage": {"x": 1}}}),
        *turn("two", "second answer", "t2"),
        line("event_msg", {"type": "token_count", "info": None, "rate_limits": {"p": 1}}),
        line("event_msg", {"type": "thread_name_updated", "thread_name": "My thread"}),
    ]
    state = reconstruct_history(lines)
    assert state.meta == {"id": "meta-id", "cwd": "/p"}
    assert texts(state.history) == ["one", "first answer", "two", "second answer"]
    assert state.turn_context["model"] == "model-t2"
    assert state.token_info == {"total_token_usage": {"x": 1}}  # a null info does not erase it
    assert state.rate_limits == {"p": 1}
    assert state.thread_name == "My thread"
    assert [event["type"] for event in state.events].count("user_message") == 2


def test_newest_compaction_replacement_is_the_base() -> None:
    lines = [
        META,
        *turn("one", "a1", "t1"),
        line("compacted", {"message": "s1", "replacement_history": [msg("user", "R1")]}),
        *turn("two", "a2", "t2"),
        line("compacted", {"message": "s2", "replacement_history": [msg("user", "R2")]}),
        *turn("three", "a3", "t3"),
    ]
    state = reconstruct_history(lines)
    assert texts(state.history) == ["R2", "three", "a3"]


def test_compaction_without_replacement_rebuilds_from_user_messages_and_summary() -> None:
    context = msg("user", "<environment_context>\n<cwd>/p</cwd>\n</environment_context>")
    lines = [
        META,
        line("response_item", context),
        *turn("one", "a1", "t1"),
        *turn("two", "a2", "t2"),
        line("compacted", {"message": "we did things"}),
        *turn("three", "a3", "t3"),
    ]
    state = reconstruct_history(lines)
    assert texts(state.history) == [
        "one",
        "two",
        f"{SUMMARY_PREFIX}\nwe did things",
        "three",
        "a3",
    ]
    # A second legacy compaction does not keep the earlier summary as a user turn.
    state = reconstruct_history([*lines, line("compacted", {"message": "again"})])
    assert texts(state.history) == ["one", "two", "three", f"{SUMMARY_PREFIX}\nagain"]


def test_legacy_compaction_keeps_recent_user_messages_within_budget() -> None:
    huge = "x" * 200_000
    lines = [META, *turn(huge, "a", "t1"), *turn("recent", "b", "t2")]
    lines.append(line("compacted", {"message": "sum"}))
    history = reconstruct_history(lines).history
    assert texts(history)[1] == "recent"
    assert len(texts(history)[0].encode()) <= 80_000
    assert "truncated" in texts(history)[0]


def test_rollback_drops_whole_user_turns() -> None:
    lines = [
        META,
        *turn("one", "a1", "t1"),
        *turn("two", "a2", "t2"),
        *turn("three", "a3", "t3"),
        line("event_msg", {"type": "thread_rolled_back", "num_turns": 2}),
        *turn("four", "a4", "t4"),
    ]
    assert texts(reconstruct_history(lines).history) == ["one", "a1", "four", "a4"]


def test_fork_lines_by_turn_count() -> None:
    lines = [META, *turn("one", "a1", "t1"), *turn("two", "a2", "t2"), *turn("three", "a3", "t3")]
    kept = fork_lines(lines, keep_turns=2)
    assert all(item.type != "session_meta" for item in kept)
    assert texts(reconstruct_history(kept).history) == ["one", "a1", "two", "a2"]
    assert kept[-1].payload["type"] == "task_complete"  # cut on a turn boundary, no marker
    assert fork_lines(lines, keep_turns=0) == []


def test_fork_lines_mid_turn_adds_an_interruption_marker() -> None:
    lines = [META, *turn("one", "a1", "t1", "r1"), *turn("two", "a2", "t2", "r2")]
    kept = fork_lines(lines, up_to_response_id="r2")
    assert texts(reconstruct_history(kept).history) == ["one", "a1", "two", "a2"]
    assert kept[-1].payload == {"type": "turn_aborted", "reason": "interrupted", "turn_id": "t2"}
    with pytest.raises(ValueError, match="no response item"):
        fork_lines(lines, up_to_response_id="missing")


def test_fork_then_resume_both_branches(tmp_path: Path) -> None:
    source = RolloutRecorder.create(tmp_path, new_thread_id(), {"cwd": "/p", "model_provider": "x"})
    for item in [*turn("one", "a1", "t1"), *turn("two", "a2", "t2")]:
        source.record(item.type, item.payload)
    source.record_event({"type": "thread_name_updated", "thread_name": "origin"})
    source.close()

    fork_id = new_thread_id()
    fork = fork_thread(tmp_path, source.path, fork_id, keep_turns=1)
    fork.close()
    fork_contents = read_rollout(fork.path)
    assert fork_contents.meta["id"] == fork_id
    assert fork_contents.meta["forked_from_id"] == source.thread_id
    assert fork_contents.meta["model_provider"] == "x"
    assert reconstruct_history(fork_contents.lines).thread_name is None

    # Both branches continue independently in their own files.
    for path, text in ((source.path, "source follow-up"), (fork.path, "fork follow-up")):
        with RolloutRecorder.open_existing(path) as recorder:
            recorder.record_item(msg("user", text))
    source_history = texts(reconstruct_history(read_rollout(source.path).lines).history)
    fork_history = texts(reconstruct_history(read_rollout(fork.path).lines).history)
    assert source_history == ["one", "a1", "two", "a2", "source follow-up"]
    assert fork_history == ["one", "a1", "fork follow-up"]
