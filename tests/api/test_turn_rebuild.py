"""Turns rebuilt from a rollout's persisted events (`thread/resume`, `thread/read`)."""

from __future__ import annotations

from codex_lsp.api.threads.rebuild import rebuild_turns
from codex_lsp.protocol.common import dump


def _turns(events, **kwargs):
    return [dump(turn) for turn in rebuild_turns(events, **kwargs)]


def test_a_turn_with_reasoning_a_command_a_patch_and_an_answer():
    events = [
        {"type": "task_started", "turn_id": "t1", "started_at": 100},
        {"type": "user_message", "message": "fix it", "images": ["https://x/y.png"]},
        {"type": "agent_reasoning", "text": "first"},
        {"type": "agent_reasoning", "text": "second"},
        {"type": "token_count", "info": None},
        {
            "type": "exec_command_end",
            "call_id": "c1",
            "turn_id": "t1",
            "command": ["ls"],
            "cwd": "/w",
            "aggregated_output": "a\n",
            "exit_code": 0,
            "duration": {"secs": 0, "nanos": 5_000_000},
            "status": "completed",
        },
        {
            "type": "patch_apply_end",
            "call_id": "p1",
            "turn_id": "t1",
            "success": True,
            "status": "completed",
            "changes": {"/w/a.txt": {"type": "add", "content": "hi\n"}},
        },
        {"type": "agent_message", "message": "Fixed.", "item_id": "msg_1"},
        {"type": "task_complete", "turn_id": "t1", "completed_at": 105, "duration_ms": 5000},
    ]
    (turn,) = _turns(events)
    assert (turn["id"], turn["status"], turn["startedAt"], turn["completedAt"]) == (
        "t1",
        "completed",
        100,
        105,
    )
    kinds = [item["type"] for item in turn["items"]]
    assert kinds == ["userMessage", "reasoning", "commandExecution", "fileChange", "agentMessage"]
    user, reasoning, command, patch, answer = turn["items"]
    assert user["content"] == [
        {"type": "text", "text": "fix it", "text_elements": []},
        {"type": "image", "url": "https://x/y.png"},
    ]
    assert reasoning["summary"] == ["first", "second"]
    assert (command["status"], command["aggregatedOutput"], command["durationMs"]) == (
        "completed",
        "a\n",
        5,
    )
    assert patch["changes"] == [{"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "hi\n"}]
    assert answer == {**answer, "id": "msg_1", "text": "Fixed."}


def test_errors_interruptions_rollbacks_and_unfinished_turns():
    events = [
        {"type": "task_started", "turn_id": "t1"},
        {"type": "user_message", "message": "one"},
        {"type": "error", "message": "boom", "codex_error_info": "context_window_exceeded"},
        {"type": "task_complete", "turn_id": "t1"},
        {"type": "task_started", "turn_id": "t2"},
        {"type": "user_message", "message": "two"},
        {"type": "turn_aborted", "turn_id": "t2", "reason": "interrupted"},
        {"type": "task_started", "turn_id": "t3"},
        {"type": "user_message", "message": "three"},
        {"type": "thread_rolled_back", "num_turns": 1},
        {"type": "task_started", "turn_id": "t4"},
        {"type": "user_message", "message": "four"},
    ]
    failed, interrupted, open_turn = _turns(events)
    assert failed["status"] == "failed"
    assert failed["error"] == {
        "message": "boom",
        "codexErrorInfo": "contextWindowExceeded",
        "additionalDetails": None,
        "misalignment": None,
    }
    assert interrupted["status"] == "interrupted"
    assert open_turn["id"] == "t4" and open_turn["status"] == "interrupted"
    assert _turns(events, running_turn="t4")[-1]["status"] == "inProgress"


def test_older_rollouts_without_turn_markers_get_a_turn_per_user_message():
    events = [
        {"type": "user_message", "message": "hi"},
        {"type": "agent_message", "message": "hello"},
        {"type": "user_message", "message": "again"},
    ]
    turns = _turns(events)
    assert [len(turn["items"]) for turn in turns] == [2, 1]
    assert len({turn["id"] for turn in turns}) == 2


def test_a_look_at_an_image_comes_back_as_its_image_view_item():
    events = [
        {"type": "task_started", "turn_id": "t1"},
        {"type": "user_message", "message": "look"},
        {"type": "view_image_tool_call", "call_id": "v1", "path": "/w/dot.png"},
        {"type": "agent_message", "message": "A dot.", "item_id": "msg_1"},
        {"type": "task_complete", "turn_id": "t1"},
    ]
    (turn,) = _turns(events)
    assert [(i["type"], i.get("path")) for i in turn["items"]] == [
        ("userMessage", None),
        ("imageView", "/w/dot.png"),
        ("agentMessage", None),
    ]
    assert turn["items"][1]["id"] == "v1"
