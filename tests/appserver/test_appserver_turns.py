"""Turns through `codex-lsp app-server`, as a client sees them: streamed answers, reasoning,
commands and patches with approvals, interrupts, failures, and per-turn overrides."""

from __future__ import annotations

import base64

from tests.support.appserver import app_server, items_of, make_home, text_input
from tests.support.scripted_builders import (
    created,
    custom_tool_call_response,
    function_call_response,
    http_error,
    message_item,
    multi_item_response,
    reasoning_step,
    text_response,
    usage,
)

ANSWER = "Hello! Here is a streamed answer in several pieces."


def test_streamed_answer_with_reasoning_items_deltas_and_usage(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(
        multi_item_response(
            [reasoning_step("Thinking it over", index=0), message_item(ANSWER, index=1)],
            usage_=usage(100, 20, reasoning_tokens=5),
        )
    )
    with app_server(home, ws) as client:
        thread = client.start_thread()
        assert thread["status"] == {"type": "idle"} and thread["cwd"] == str(ws)
        turn, done = client.run_turn(thread["id"], "Say hello.")
        assert turn["status"] == "inProgress"
        stream = client.since(client.first("turn/started", threadId=thread["id"]))
        started = items_of(stream, "item/started", "agentMessage")
        assert len(started) == 1 and started[0]["text"] == ""
        message_id = started[0]["id"]
        deltas = [m["params"] for m in stream if m.get("method") == "item/agentMessage/delta"]
        assert {d["itemId"] for d in deltas} == {message_id} and len(deltas) >= 2
        assert "".join(d["delta"] for d in deltas) == ANSWER
        completed = items_of(stream, "item/completed", "agentMessage")
        assert [(i["id"], i["text"]) for i in completed] == [(message_id, ANSWER)]

        user = items_of(stream, "item/completed", "userMessage")
        assert user[0]["content"] == [text_input("Say hello.")]
        reasoning = items_of(stream, "item/completed", "reasoning")
        assert reasoning[0]["summary"] == ["Thinking it over"]
        summary_deltas = [
            m["params"] for m in stream if m.get("method") == "item/reasoning/summaryTextDelta"
        ]
        assert "".join(d["delta"] for d in summary_deltas) == "Thinking it over"
        assert {d["itemId"] for d in summary_deltas} == {reasoning[0]["id"]}
        assert any(m.get("method") == "item/reasoning/summaryPartAdded" for m in stream)

        methods = [m.get("method") for m in stream]
        assert methods.index("item/completed") < methods.index("item/agentMessage/delta")
        assert methods[-1] == "turn/completed"
        final = done["params"]["turn"]
        assert final["id"] == turn["id"] and final["status"] == "completed"
        assert final["items"][0]["text"] == ANSWER
        usage_note = client.notifications("thread/tokenUsage/updated", turnId=turn["id"])[-1][
            "params"
        ]
        total = usage_note["tokenUsage"]["total"]
        assert (total["inputTokens"], total["outputTokens"], total["totalTokens"]) == (100, 20, 120)
        assert total["reasoningOutputTokens"] == 5


def _command_turn(scripted_model, ws, command: str) -> None:
    scripted_model.enqueue(
        function_call_response(
            "exec_command", {"cmd": command, "workdir": str(ws)}, call_id="call_cmd"
        )
    )
    scripted_model.enqueue(text_response("Finished.", response_id="resp_2"))


def test_command_approval_accepted_runs_it_and_streams_its_output(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    _command_turn(scripted_model, ws, "printf 'hi\\n' > out.txt && cat out.txt")
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.request(
            "turn/start",
            {
                "threadId": thread["id"],
                "input": [text_input("Run it")],
                "approvalPolicy": "untrusted",
            },
        )
        request = client.wait_method("item/commandExecution/requestApproval")
        params = request["params"]
        assert params["itemId"] == "call_cmd" and params["threadId"] == thread["id"]
        assert (
            params["command"] == "/bin/sh -lc 'printf '\"'\"'hi\\n'\"'\"' > out.txt && cat out.txt'"
        )
        assert params["cwd"] == str(ws)
        # A script with redirections is not a plain read: the parser says "unknown".
        script = "printf 'hi\\n' > out.txt && cat out.txt"
        assert params["commandActions"] == [{"type": "unknown", "command": script}]
        assert not (ws / "out.txt").exists(), "nothing runs before the answer"
        client.answer(request, {"decision": "accept"})
        done = client.wait_method("turn/completed", threadId=thread["id"])

        assert (ws / "out.txt").read_text() == "hi\n"
        assert done["params"]["turn"]["status"] == "completed"
        everything = client.received
        position = {id(m): i for i, m in enumerate(everything)}
        started = next(
            m
            for m in everything
            if m.get("method") == "item/started" and m["params"]["item"]["id"] == "call_cmd"
        )
        resolved = client.notifications("serverRequest/resolved", requestId=request["id"])[0]
        output = client.notifications("item/commandExecution/outputDelta", itemId="call_cmd")
        finished = next(
            m
            for m in everything
            if m.get("method") == "item/completed" and m["params"]["item"]["id"] == "call_cmd"
        )
        order = [started, request, resolved, *output, finished]
        assert [position[id(m)] for m in order] == sorted(position[id(m)] for m in order)
        assert "".join(o["params"]["delta"] for o in output) == "hi\n"
        item = finished["params"]["item"]
        assert (item["status"], item["exitCode"], item["aggregatedOutput"]) == (
            "completed",
            0,
            "hi\n",
        )
        assert isinstance(item["durationMs"], int)
    tool_output = [
        i
        for i in scripted_model.requests[1].body["input"]
        if i.get("type") == "function_call_output"
    ]
    assert "hi" in tool_output[0]["output"]


def test_command_declined_is_not_run_and_the_turn_goes_on(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    _command_turn(scripted_model, ws, "touch should-not-exist.txt")
    with app_server(home, ws) as client:
        thread = client.start_thread(approvalPolicy="untrusted")
        client.request("turn/start", {"threadId": thread["id"], "input": [text_input("Touch it")]})
        request = client.wait_method("item/commandExecution/requestApproval")
        client.answer(request, {"decision": "decline"})
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["status"] == "completed"
        item = items_of(client.received, "item/completed", "commandExecution")[0]
        assert item["status"] == "declined" and item.get("exitCode") is None
        assert not client.notifications("item/commandExecution/outputDelta")
    assert not (ws / "should-not-exist.txt").exists()
    tool_output = [
        i
        for i in scripted_model.requests[1].body["input"]
        if i.get("type") == "function_call_output"
    ]
    assert "rejected by user" in tool_output[0]["output"]


def test_command_cancelled_interrupts_the_turn(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    _command_turn(scripted_model, ws, "touch nope.txt")
    with app_server(home, ws) as client:
        thread = client.start_thread(approvalPolicy="untrusted")
        client.request("turn/start", {"threadId": thread["id"], "input": [text_input("Touch it")]})
        client.answer(
            client.wait_method("item/commandExecution/requestApproval"), {"decision": "cancel"}
        )
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["status"] == "interrupted"
    assert not (ws / "nope.txt").exists()
    assert len(scripted_model.requests) == 1


PATCH = """*** Begin Patch
*** Add File: hello.txt
+Hello from apply_patch
+second line
*** Update File: app.py
@@
-print("hi")
+print("hello")
*** End Patch"""


def test_patch_approval_carries_the_diff_and_lands_on_disk(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "app.py").write_text('print("hi")\n')
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    scripted_model.enqueue(text_response("Created hello.txt.", response_id="resp_2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.request(
            "turn/start",
            {
                "threadId": thread["id"],
                "input": [text_input("Edit")],
                "approvalPolicy": "untrusted",
            },
        )
        request = client.wait_method("item/fileChange/requestApproval")
        pending = items_of(client.received, "item/started", "fileChange")[0]
        assert pending["id"] == request["params"]["itemId"] == "call_patch"
        assert pending["status"] == "inProgress"
        by_path = {change["path"]: change for change in request["params"]["codexLsp"]["changes"]}
        added, updated = by_path[str(ws / "hello.txt")], by_path[str(ws / "app.py")]
        assert added["kind"] == {"type": "add"}
        assert (
            added["diff"].startswith("--- /dev/null\n")
            and "+Hello from apply_patch\n" in added["diff"]
        )
        assert updated["kind"]["type"] == "update"
        assert '-print("hi")\n+print("hello")\n' in updated["diff"]
        assert not (ws / "hello.txt").exists(), "nothing is written before the answer"

        client.answer(request, {"decision": "accept"})
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["status"] == "completed"
        finished = items_of(client.received, "item/completed", "fileChange")[0]
        assert finished["status"] == "completed"
        assert {c["path"] for c in finished["changes"]} == set(by_path)
        diff = client.notifications("turn/diff/updated", threadId=thread["id"])[-1]["params"][
            "diff"
        ]
        assert '+print("hello")' in diff and "+second line" in diff
    assert (ws / "hello.txt").read_text() == "Hello from apply_patch\nsecond line\n"
    assert (ws / "app.py").read_text() == 'print("hello")\n'


def test_interrupt_ends_the_turn_as_interrupted_and_the_thread_goes_on(scripted_model, tmp_path):
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
        params = {"threadId": thread["id"], "turnId": turn["id"]}
        answer = client.call("turn/interrupt", params)
        assert answer["result"] == {}
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["id"] == turn["id"]
        assert done["params"]["turn"]["status"] == "interrupted"
        # As the reference server does: the answer comes once the turn has stopped, before its
        # end; the half-streamed message is left as it was and the turn lists no items.
        assert client.received.index(answer) < client.received.index(done)
        assert items_of(client.received, "item/completed", "agentMessage") == []
        assert done["params"]["turn"]["items"] == []
        # A turn that is no longer running cannot be interrupted.
        again = client.call("turn/interrupt", params)
        assert again["error"] == {"code": -32600, "message": "no active turn to interrupt"}

        _, second = client.run_turn(thread["id"], "Keep it short")
        assert second["params"]["turn"]["status"] == "completed"
        assert second["params"]["turn"]["items"][0]["text"] == "Short now."


def test_model_errors_fail_the_turn_and_retries_are_announced(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue([created("resp_drop"), {"disconnect": True}])
    scripted_model.enqueue(text_response("Recovered.", response_id="resp_ok"))
    scripted_model.enqueue(http_error(400, {"error": {"message": "Unsupported parameter: nope"}}))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        _, recovered = client.run_turn(thread["id"], "first")
        assert recovered["params"]["turn"]["status"] == "completed"
        retry = client.notifications("error", threadId=thread["id"])
        assert retry and all(note["params"]["willRetry"] for note in retry)

        turn, failed = client.run_turn(thread["id"], "second")
        final = failed["params"]["turn"]
        assert final["status"] == "failed"
        assert "Unsupported parameter" in final["error"]["message"]
        fatal = [
            n
            for n in client.notifications("error", turnId=turn["id"])
            if not n["params"]["willRetry"]
        ]
        assert fatal and fatal[0]["params"]["error"]["message"] == final["error"]["message"]


def test_turn_overrides_and_images_reach_the_model_and_stick(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    (ws / "dot.png").write_bytes(png)
    scripted_model.enqueue(text_response("one", response_id="resp_1"))
    scripted_model.enqueue(text_response("two", response_id="resp_2"))
    pasted = "data:image/png;base64," + base64.b64encode(png).decode()
    with app_server(home, ws) as client:
        thread = client.start_thread()
        # As codex: an image travels in the request; a URL for the provider to fetch is refused.
        remote = client.call(
            "turn/start",
            {
                "threadId": thread["id"],
                "input": [
                    text_input("Look"),
                    {"type": "image", "url": "https://example.com/a.png"},
                ],
            },
        )
        assert remote["error"] == {
            "code": -32600,
            "message": "remote image URLs are not supported; use an inline data URL instead",
        }
        inputs = [
            text_input("Look"),
            {"type": "image", "url": pasted},
            {"type": "localImage", "path": str(ws / "dot.png")},
        ]
        client.result(
            "turn/start",
            {
                "threadId": thread["id"],
                "input": inputs,
                "model": "gpt-5.2",
                "effort": "high",
                "summary": "concise",
            },
        )
        client.wait_method("turn/completed", threadId=thread["id"])
        user = items_of(client.received, "item/completed", "userMessage")[0]
        assert user["content"][1:] == [inputs[1], inputs[2]]
        client.run_turn(thread["id"], "again")
    first, second = (r.body for r in scripted_model.requests)
    for body in (first, second):
        assert body["model"] == "gpt-5.2"
        assert body["reasoning"] == {"effort": "high", "summary": "concise"}
    images = [
        part
        for item in first["input"]
        if item.get("role") == "user"
        for part in item["content"]
        if part["type"] == "input_image"
    ]
    assert [image["image_url"] for image in images] == [pasted, pasted]


QUESTION = {
    "id": "color",
    "header": "Color",
    "question": "Which color should the button be?",
    "options": [
        {"value": "red", "label": "Red (Recommended)", "description": "Warm and loud"},
        {"value": "blue", "label": "Blue", "description": "Calm"},
    ],
}


def test_a_question_to_the_user_goes_out_and_the_answer_reaches_the_model(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response("request_user_input", {"questions": [QUESTION]}, call_id="call_q")
    )
    scripted_model.enqueue(text_response("Red it is.", response_id="resp_2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.request("turn/start", {"threadId": thread["id"], "input": [text_input("Style it")]})
        request = client.wait_method("item/tool/requestUserInput")
        params = request["params"]
        assert params["itemId"] == "call_q" and params["threadId"] == thread["id"]
        (question,) = params["questions"]
        assert question["question"] == QUESTION["question"] and question["isOther"] is True
        assert [o["label"] for o in question["options"]] == ["Red (Recommended)", "Blue"]
        waiting = client.notifications("thread/status/changed", threadId=thread["id"])[-1]
        assert waiting["params"]["status"]["activeFlags"] == ["waitingOnUserInput"]
        client.answer(request, {"answers": {"color": {"answers": ["Red (Recommended)"]}}})
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["status"] == "completed"
        assert client.notifications("serverRequest/resolved", requestId=request["id"])
    outputs = [
        item["output"]
        for item in scripted_model.requests[1].body["input"]
        if item.get("type") == "function_call_output"
    ]
    assert '"selected": ["red"]' in outputs[0] or '"selected":["red"]' in outputs[0]


def test_changed_settings_are_announced_before_the_turns_answer(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("noted", response_id="resp_1"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        params = {
            "threadId": thread["id"],
            "input": [text_input("go")],
            "approvalPolicy": "untrusted",
            "effort": "low",
        }
        answer = client.call("turn/start", params)
        client.wait_method("turn/completed", threadId=thread["id"])
        (update,) = client.notifications("thread/settings/updated", threadId=thread["id"])
    # As the reference server sends it: once, and before the answer to turn/start.
    assert client.received.index(update) < client.received.index(answer)
    settings = update["params"]["threadSettings"]
    assert (settings["approvalPolicy"], settings["effort"]) == ("untrusted", "low")
    assert settings["collaborationMode"] == {
        "mode": "default",
        "settings": {"model": "gpt-5.4", "reasoning_effort": "low", "developer_instructions": None},
    }
