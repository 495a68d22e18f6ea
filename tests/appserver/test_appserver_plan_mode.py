"""Plan mode over the app-server: a thread explores read-only, keeps a checklist, ends with a
plan item, and changes nothing until the user takes it out of Plan mode.

The model is the scripted server; its commands and patches really run (or are really refused)
in the real sandbox, and what the model reads back is taken from its next request.
"""

from __future__ import annotations

from typing import Any

from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

PATCH = "*** Begin Patch\n*** Add File: planned.txt\n+from the plan\n*** End Patch\n"
PLAN_ANSWER = (
    "I looked around.\n\n<proposed_plan>\n# Add planned.txt\n\n1. Create it.\n</proposed_plan>"
)
PLAN = {"mode": "plan", "settings": {"model": "gpt-5.4"}}


def _tool_output(request: Any, call_id: str) -> str:
    for item in request.body["input"]:
        if item.get("call_id") == call_id and "output" in item:
            return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _plan_turn(scripted_model: Any) -> None:
    steps = [{"step": "Read the code", "status": "in_progress"}]
    scripted_model.enqueue(
        function_call_response("update_plan", {"plan": steps}, call_id="plan", response_id="r1")
    )
    write = {"cmd": "echo written > made.txt", "login": False}
    scripted_model.enqueue(
        function_call_response("exec_command", write, call_id="write", response_id="r2")
    )
    escalate = {"cmd": "touch escaped.txt", "sandbox_permissions": "require_escalated"}
    scripted_model.enqueue(
        function_call_response("exec_command", escalate, call_id="escalate", response_id="r3")
    )
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="patch"))
    scripted_model.enqueue(text_response(PLAN_ANSWER, response_id="r5"))


def test_a_plan_mode_turn_changes_nothing_and_ends_with_a_plan(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="on-request")
    _plan_turn(scripted_model)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="patch2"))
    scripted_model.enqueue(text_response("Done as planned.", response_id="r7"))
    with app_server(home, ws) as client:
        thread = client.start_thread(sandbox="workspace-write")
        client.run_turn(thread["id"], "plan adding a file", collaborationMode=PLAN)
        requests = list(scripted_model.requests)

        tools = {t.get("name") for t in requests[0].body["tools"]}
        assert "update_plan" in tools
        assert "Plan mode" in str(requests[0].body["input"])
        assert not (ws / "made.txt").exists()
        assert "Read-only file system" in _tool_output(requests[2], "write")
        assert "Plan mode is read-only" in _tool_output(requests[3], "escalate")
        assert not (ws / "escaped.txt").exists()
        assert "Plan mode is read-only" in _tool_output(requests[4], "patch")
        assert not (ws / "planned.txt").exists()
        # No approval was asked for anything.
        assert not [m for m in client.received if "requestApproval" in str(m.get("method"))]

        checklist = client.first("turn/plan/updated", threadId=thread["id"])["params"]
        assert checklist["plan"] == [{"step": "Read the code", "status": "inProgress"}]
        plans = [
            m["params"]["item"]
            for m in client.received
            if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "plan"
        ]
        assert [p["text"] for p in plans] == ["# Add planned.txt\n\n1. Create it."]
        settings = client.first("thread/settings/updated", threadId=thread["id"])["params"]
        assert settings["threadSettings"]["collaborationMode"]["mode"] == "plan"
        # The user's own policies stay the thread's: Plan mode only holds its turns.
        assert settings["threadSettings"]["sandboxPolicy"]["type"] == "workspaceWrite"

        read = client.result("thread/read", {"threadId": thread["id"], "includeTurns": True})
        kinds = [item["type"] for item in read["thread"]["turns"][0]["items"]]
        assert "plan" in kinds

        default = {"mode": "default", "settings": {"model": "gpt-5.4"}}
        client.result(
            "thread/settings/update", {"threadId": thread["id"], "collaborationMode": default}
        )
        client.run_turn(thread["id"], "go ahead")
        assert (ws / "planned.txt").read_text() == "from the plan\n"
        assert "Plan mode has ended" in str(scripted_model.requests[-2].body["input"])
