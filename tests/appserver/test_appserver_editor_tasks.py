"""`turn/startTask` through `codex-lsp app-server`: an editor request shows as the user made it,
and the model gets the engine's instructions; plus `thread/delete`, and an interrupted answer
that keeps its text when the thread is read back."""

from __future__ import annotations

from typing import Any

from tests.support.appserver import app_server, items_of, make_home, text_input
from tests.support.scripted_builders import created, message_item, text_response

Message = dict[str, Any]


def _range(first: int, last: int) -> Message:
    """An LSP range over whole 0-based lines `first`..`last`."""
    return {"start": {"line": first, "character": 0}, "end": {"line": last + 1, "character": 0}}


def _texts(request: Any, role: str) -> list[str]:
    return [
        part.get("text", "")
        for item in request.body["input"]
        if item.get("role") == role
        for part in item.get("content", [])
    ]


def _after_last_user(request: Any) -> list[Message]:
    items = request.body["input"]
    last = max(n for n, item in enumerate(items) if item.get("role") == "user")
    return items[last + 1 :]


def _shown_user(client: Any, thread_id: str) -> list[str]:
    read = client.result("thread/read", {"threadId": thread_id, "includeTurns": True})
    return [
        "".join(c.get("text", "") for c in item["content"])
        for turn in read["thread"]["turns"]
        for item in turn["items"]
        if item["type"] == "userMessage"
    ]


def test_an_edit_request_shows_the_instruction_and_tells_the_model_the_rest(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    scripted_model.enqueue(text_response("Fixed the sign."))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        turn = client.result(
            "turn/startTask",
            {
                "threadId": thread["id"],
                "task": {
                    "type": "edit",
                    "instruction": "make it add",
                    "path": "calc.py",
                    "range": _range(1, 1),
                },
                "model": "gpt-5.4-mini",
            },
        )["turn"]
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["id"] == turn["id"]
        live = items_of(client.received, "item/completed", "userMessage")
        assert [u["content"] for u in live] == [[text_input("make it add")]]
        assert _shown_user(client, thread["id"]) == ["make it add"]
        listed = client.result("thread/list", {})["data"]
        assert [t["preview"] for t in listed] == ["make it add"]

    [request] = scripted_model.requests
    assert request.body["model"] == "gpt-5.4-mini"
    assert _texts(request, "user")[-1] == "make it add"
    [note] = _after_last_user(request)
    told = note["content"][0]["text"]
    assert note["role"] == "developer"
    assert "line 2 of `calc.py`" in told and "apply_patch" in told
    # Read from disk: the app-server has no editor buffers.
    assert "```py\n    return a - b\n```" in told


def test_a_fix_request_is_worded_by_the_engine_and_reads_the_finding_s_lines(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "mean.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    scripted_model.enqueue(text_response("Guarded."))
    scripted_model.enqueue(text_response("Because len([]) is 0."))
    finding = {
        "title": "[P1] Empty input divides by zero",
        "body": "`mean([])` raises.",
        "priority": 1,
        "path": str(ws / "mean.py"),
        "lineRange": {"start": 2, "end": 2},
    }
    with app_server(home, ws) as client:
        thread = client.start_thread()
        for kind in ("fixFinding", "explainFinding"):
            client.result(
                "turn/startTask",
                {"threadId": thread["id"], "task": {"type": kind, "finding": finding}},
            )
            client.wait_method("turn/completed", threadId=thread["id"])
            client.received.clear()
        assert _shown_user(client, thread["id"]) == [
            "Fix: [P1] Empty input divides by zero (mean.py:2)",
            "Explain: [P1] Empty input divides by zero (mean.py:2)",
        ]

    fix, explain = scripted_model.requests
    told = _after_last_user(fix)[0]["content"][0]["text"]
    assert "smallest change" in told and "`mean([])` raises." in told
    assert "File: `mean.py`, line 2" in told and "    return sum(xs) / len(xs)\n" in told
    told = _after_last_user(explain)[0]["content"][0]["text"]
    assert "do not change any files" in told


def test_attached_context_reaches_the_model_and_not_the_transcript(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "a.py").write_text("import os\nprint(os.sep)\n")
    scripted_model.enqueue(text_response("It prints the separator."))
    problem = {
        "path": "a.py",
        "range": _range(0, 0),
        "severity": "warning",
        "message": "unused import",
        "source": "ruff",
    }
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.result(
            "turn/startTask",
            {
                "threadId": thread["id"],
                "task": {"type": "ask", "text": "What does it print?"},
                "context": [
                    {"type": "file", "path": "a.py"},
                    {"type": "file", "path": "a.py", "range": _range(1, 1), "text": "SELECTED\n"},
                    {"type": "problems", "problems": [problem]},
                ],
            },
        )
        client.wait_method("turn/completed", threadId=thread["id"])
        live = items_of(client.received, "item/completed", "userMessage")
        assert [c["text"] for c in live[0]["content"]] == [
            "What does it print?",
            "Context: a.py",
            "Context: a.py, line 2",
            "Context: problems in a.py",
        ]

    [request] = scripted_model.requests
    told = _after_last_user(request)[0]["content"][0]["text"]
    assert "`a.py`:\n```py\nimport os\nprint(os.sep)\n```" in told
    # The editor's text for a selection wins over the disk's.
    assert "`a.py`, line 2:\n```py\nSELECTED\n```" in told
    assert "- a.py:1 warning: unused import (ruff)" in told


def test_bad_task_requests_are_refused_with_the_field_named(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        thread = client.start_thread()
        for task, field in (
            ({"type": "dance"}, "task"),
            ({"type": "ask", "text": ""}, "text"),
            ({"type": "edit", "instruction": "x", "path": "a.py"}, "range"),
        ):
            reply = client.call("turn/startTask", {"threadId": thread["id"], "task": task})
            assert reply["error"]["code"] == -32602 and field in reply["error"]["message"]
        reply = client.call(
            "turn/startTask", {"threadId": "nope", "task": {"type": "ask", "text": "hi"}}
        )
        assert reply["error"]["code"] == -32600
        assert scripted_model.requests == []
        # The server is still up.
        assert client.result("thread/list", {})["data"] == []


def test_thread_delete_removes_the_thread_and_says_so(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("One."))
    scripted_model.enqueue(text_response("Two."))
    with app_server(home, ws) as client:
        first = client.start_thread()
        client.run_turn(first["id"], "first")
        second = client.start_thread()
        client.run_turn(second["id"], "second")
        client.result("thread/archive", {"threadId": second["id"]})
        for thread in (first, second):
            assert client.result("thread/delete", {"threadId": thread["id"]}) == {}
            client.wait_method("thread/deleted", threadId=thread["id"])
        assert client.result("thread/list", {})["data"] == []
        assert client.result("thread/list", {"archived": True})["data"] == []
        reply = client.call("thread/read", {"threadId": first["id"]})
        assert "error" in reply
        reply = client.call("thread/delete", {"threadId": first["id"]})
        assert reply["error"]["code"] == -32600
    assert not list((home / "sessions").rglob("*.jsonl"))
    assert not list((home / "archived_sessions").rglob("*.jsonl"))


def test_an_interrupted_answer_keeps_its_text_when_the_thread_is_read_back(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    stalled = [created("resp_slow"), *message_item("Once upon a time, ")[:2], {"stall_s": 60}]
    scripted_model.enqueue(stalled)
    scripted_model.enqueue(text_response("Short now.", response_id="resp_2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        turn = client.result(
            "turn/start", {"threadId": thread["id"], "input": [text_input("Write an essay")]}
        )["turn"]
        client.wait_method("item/agentMessage/delta", turnId=turn["id"])
        client.result("turn/interrupt", {"threadId": thread["id"], "turnId": turn["id"]})
        client.wait_method("turn/completed", threadId=thread["id"])
        client.run_turn(thread["id"], "Keep it short")

    with app_server(home, ws) as client:
        read = client.result("thread/read", {"threadId": thread["id"], "includeTurns": True})
        first = read["thread"]["turns"][0]
        assert first["status"] == "interrupted"
        answers = [i["text"] for i in first["items"] if i["type"] == "agentMessage"]
        assert answers and answers[0].startswith("Once")
    # The model heard what it had said before it was stopped.
    assistant = _texts(scripted_model.requests[1], "assistant")
    assert assistant and assistant[0].startswith("Once")
