"""The engine's extensions through `codex-lsp app-server`, as a client sees them: skills/list and
startup warnings, a question answered, web search items, MCP calls approved on their own item,
and subagent notifications. Messages the reference schema covers are validated against it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.support.appserver import AppServerClient, app_server, items_of, make_home, text_input
from tests.support.engine import make_git_repo
from tests.support.schema_check import SchemaChecker, TranscriptChecker
from tests.support.scripted_builders import (
    function_call_response,
    message_item,
    multi_item_response,
    text_response,
)

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_server.py"
OURS = {"subagent/lifecycle", "agent/inbox"}  # our extension: not in the reference schema


def assert_schema_valid(client: AppServerClient) -> None:
    transcript = [(sender, m) for sender, m in client.transcript if m.get("method") not in OURS]
    errors = TranscriptChecker(SchemaChecker(), forbid_jsonrpc_from_server=True).feed_all(
        transcript
    )
    assert errors == [], "\n".join(errors[:20])


def tool_output(server: Any, call_id: str) -> str:
    for request in server.requests:
        for item in request.body.get("input", []):
            if item.get("type") == "function_call_output" and item.get("call_id") == call_id:
                return item["output"]
    raise AssertionError(f"the model never got an output for {call_id}")


def test_skills_list_and_a_broken_skill_warned_about_after_thread_started(scripted_model, tmp_path):
    home, _ = make_home(tmp_path, scripted_model.base_url)
    repo = make_git_repo(tmp_path / "repo")
    good = repo / ".agents/skills/pdf-fill"
    good.mkdir(parents=True)
    (good / "SKILL.md").write_text(
        "---\nname: pdf-fill\ndescription: Fill PDF forms.\n"
        "metadata:\n  short-description: PDF filler\n---\nSteps.\n"
    )
    broken = repo / ".agents/skills/broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: broken\n---\nNo description.\n")

    with app_server(home, repo) as client:
        before = client.result("skills/list", {})  # no thread yet
        request = client.request("thread/start", {"cwd": str(repo)})
        warning = client.wait_method("warning")
        response = client.response(request)
        started = client.first("thread/started")
        listed = client.result("skills/list", {"cwds": [str(repo)], "forceReload": True})

    thread_id = response["result"]["thread"]["id"]
    # The client knows the thread before it hears what went wrong while it started.
    order = [client.received.index(m) for m in (response, started, warning)]
    assert order == sorted(order)
    assert warning["params"]["threadId"] == thread_id
    assert str(broken / "SKILL.md") in warning["params"]["message"]
    for result in (before, listed):
        (entry,) = result["data"]
        assert [(s["name"], s["scope"], s.get("shortDescription")) for s in entry["skills"]] == [
            ("pdf-fill", "repo", "PDF filler")
        ]
        assert [e["path"] for e in entry["errors"]] == [str(broken / "SKILL.md")]
    assert_schema_valid(client)


def test_a_question_with_options_and_free_text_reaches_the_model(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scope = {
        "id": "scope",
        "header": "Scope",
        "question": "Which files?",
        "options": [
            {"value": "src_only", "label": "src only", "description": "Smaller diff."},
            {"value": "everything", "label": "Everything", "description": "Tests too."},
        ],
    }
    name = {"id": "name", "header": "Name", "question": "Module name?"}
    scripted_model.enqueue(
        function_call_response("request_user_input", {"questions": [scope, name]}, call_id="q1")
    )
    scripted_model.enqueue(text_response("Thanks.", response_id="resp_2"))

    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.result("turn/start", {"threadId": thread["id"], "input": [text_input("Ask me.")]})
        asked = client.wait_method("item/tool/requestUserInput")
        client.answer(
            asked,
            {"answers": {"scope": {"answers": ["src only"]}, "name": {"answers": ["lexer"]}}},
        )
        done = client.wait_method("turn/completed", threadId=thread["id"])

    params = asked["params"]
    assert params["threadId"] == thread["id"] and params["itemId"] == "q1"
    assert params["turnId"] == done["params"]["turn"]["id"]
    first, second = params["questions"]
    assert (first["id"], first["header"], first["isOther"], first["isSecret"]) == (
        "scope",
        "Scope",
        True,
        False,
    )
    assert first["options"] == [
        {"label": "src only", "description": "Smaller diff."},
        {"label": "Everything", "description": "Tests too."},
    ]
    assert second.get("options") is None  # an open question
    statuses = [m["params"]["status"] for m in client.notifications("thread/status/changed")]
    assert {"type": "active", "activeFlags": ["waitingOnUserInput"]} in statuses
    assert json.loads(tool_output(scripted_model, "q1")) == {
        "answers": {
            "scope": {"selected": ["src_only"], "other": None},
            "name": {"selected": [], "other": "lexer"},
        }
    }
    assert done["params"]["turn"]["status"] == "completed"
    assert_schema_valid(client)


def test_web_search_calls_are_items_with_their_query(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra="[tools]\nweb_search = true\n")
    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "python 3.14 release date"},
    }
    scripted_model.enqueue(
        multi_item_response([search, message_item("October.", index=1)], response_id="r1")
    )

    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.run_turn(thread["id"], "When is Python 3.14 out?")
        stream = client.since(client.first("turn/started", threadId=thread["id"]))

    (started,) = items_of(stream, "item/started", "webSearch")
    (completed,) = items_of(stream, "item/completed", "webSearch")
    assert started["id"] == completed["id"] == "ws_1"
    assert completed["query"] == "python 3.14 release date"
    assert completed["action"] == {
        "type": "search",
        "query": "python 3.14 release date",
        "queries": None,
    }
    assert_schema_valid(client)


def test_mcp_approvals_are_asked_on_the_mcp_tool_call_item(scripted_model, tmp_path):
    tables = (
        f"[mcp_servers.tests]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(MCP_SERVER))}]\n"
        'default_tools_approval_mode = "prompt"\n'
    )
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=tables)
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 2, "b": 3}, call_id="m1")
    )
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 4, "b": 4}, call_id="m2")
    )
    scripted_model.enqueue(text_response("Five.", response_id="resp_3"))

    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.result("turn/start", {"threadId": thread["id"], "input": [text_input("Add.")]})
        first = client.wait_method("item/tool/requestUserInput")
        question = first["params"]["questions"][0]
        client.answer(first, {"answers": {question["id"]: {"answers": ["Approve Once"]}}})
        second = client.wait_method("item/tool/requestUserInput")
        client.answer(
            second, {"answers": {second["params"]["questions"][0]["id"]: {"answers": ["Deny"]}}}
        )
        done = client.wait_method("turn/completed", threadId=thread["id"])
        stream = client.since(client.first("turn/started", threadId=thread["id"]))

    assert done["params"]["turn"]["status"] == "completed"
    assert first["params"]["itemId"] == "m1" and second["params"]["itemId"] == "m2"
    assert "`tests`" in question["question"] and "`add`" in question["question"]
    assert [o["label"] for o in question["options"]] == [
        "Approve Once",
        "Approve this Session",
        "Deny",
        "Cancel",
    ]
    # The pending item is the MCP call itself, announced before the question; no command item.
    started = items_of(stream, "item/started", "mcpToolCall")
    assert [(i["id"], i["server"], i["tool"], i["arguments"]) for i in started] == [
        ("m1", "tests", "add", {"a": 2, "b": 3}),
        ("m2", "tests", "add", {"a": 4, "b": 4}),
    ]
    assert client.received.index(client.first("item/started")) < client.received.index(first)
    assert items_of(stream, "item/started", "commandExecution") == []
    approved, denied = items_of(stream, "item/completed", "mcpToolCall")
    assert approved["status"] == "completed" and approved["result"]["structuredContent"] == {
        "result": 5
    }
    assert denied["status"] == "failed" and "rejected" in denied["error"]["message"]
    assert "rejected" in tool_output(scripted_model, "m2")
    assert_schema_valid(client)


def test_subagent_lifecycle_and_inbox_notifications(scripted_model, tmp_path):
    home, _ = make_home(
        tmp_path, scripted_model.base_url, extra="[features]\nsubagent_tools = true\n"
    )
    ws = make_git_repo(tmp_path / "repo")
    root = "root-marker"
    spawn = {"message": "child-marker: say hi", "label": "helper"}
    scripted_model.enqueue(
        function_call_response("subagent_spawn", spawn, call_id="r1", response_id="resp_r1"),
        when=root,
    )
    scripted_model.enqueue(
        function_call_response("subagent_await", {}, call_id="r2", response_id="resp_r2"),
        when=root,
    )
    scripted_model.enqueue(text_response("all done", response_id="resp_r3"), when=root)
    scripted_model.enqueue(text_response("hi from the child", response_id="c1"), when="child")

    with app_server(home, ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], f"{root}: delegate")

    assert done["params"]["turn"]["status"] == "completed"
    lifecycle = [m["params"] for m in client.notifications("subagent/lifecycle")]
    assert [(p["change"], p["agentId"], p["agent"]["status"]) for p in lifecycle] == [
        ("spawned", 1, "running"),
        ("status", 1, "completed"),
    ]
    for params in lifecycle:
        assert params["threadId"] == thread["id"]
        assert params["agent"]["parentAgentId"] == 0
        assert params["agent"]["label"] == "helper"
        assert params["agent"]["parentSessionId"] == thread["id"]
        assert [a["agentId"] for a in params["agents"]] == [1]
    inbox = [m["params"] for m in client.notifications("agent/inbox")]
    assert all(p["threadId"] == thread["id"] and p["agentId"] == 1 for p in inbox)
    assert all(
        set(p) == {"threadId", "agentId", "sessionId", "pendingRegular", "pendingInterrupt"}
        for p in inbox
    )
    assert_schema_valid(client)


def test_a_subagent_asks_for_approval_after_the_root_turn_ended(scripted_model, tmp_path):
    home, _ = make_home(
        tmp_path,
        scripted_model.base_url,
        approval_policy="untrusted",
        extra="[features]\nsubagent_tools = true\n",
    )
    ws = make_git_repo(tmp_path / "repo")
    root = "root-marker"
    spawn = {"message": "child-marker: make the flag", "label": "flagger"}
    scripted_model.enqueue(
        function_call_response("subagent_spawn", spawn, call_id="r1", response_id="resp_r1"),
        when=root,
    )
    scripted_model.enqueue(text_response("spawned it", response_id="resp_r2"), when=root)
    touch = {"cmd": "touch child.flag", "workdir": str(ws)}
    scripted_model.enqueue(
        function_call_response("exec_command", touch, call_id="c1", response_id="resp_c1"),
        when="child-marker",
    )
    scripted_model.enqueue(text_response("flag made", response_id="resp_c2"), when="child")

    with app_server(home, ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], f"{root}: delegate and go")
        asked = client.first("item/commandExecution/requestApproval")
        client.answer(asked, {"decision": "accept"})
        client.wait(
            lambda m: (
                m.get("method") == "subagent/lifecycle"
                and m["params"]["agent"]["status"] == "completed"
            )
        )

    assert done["params"]["turn"]["status"] == "completed"
    assert asked["params"]["threadId"] == thread["id"]
    assert asked["params"]["itemId"] == "c1"
    # The child's request names the root turn that set it to work, a turn the client knows.
    assert asked["params"]["turnId"] == done["params"]["turn"]["id"]
    assert "touch child.flag" in asked["params"]["command"]
    assert (ws / "child.flag").exists()
    assert_schema_valid(client)


def test_subagent_tool_calls_are_collab_agent_items_live_and_after_resume(scripted_model, tmp_path):
    home, _ = make_home(
        tmp_path, scripted_model.base_url, extra="[features]\nsubagent_tools = true\n"
    )
    ws = make_git_repo(tmp_path / "repo")
    root = "root-marker"
    spawn = {"message": "child-marker: say hi"}
    scripted_model.enqueue(
        function_call_response("subagent_spawn", spawn, call_id="r1", response_id="resp_r1"),
        when=root,
    )
    scripted_model.enqueue(
        function_call_response("subagent_await", {}, call_id="r2", response_id="resp_r2"),
        when=root,
    )
    scripted_model.enqueue(text_response("all done", response_id="resp_r3"), when=root)
    scripted_model.enqueue(text_response("hi from the child", response_id="c1"), when="child")

    with app_server(home, ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], f"{root}: delegate")
        assert_schema_valid(client)
        started = items_of([m for _, m in client.transcript], "item/started", "collabAgentToolCall")
        completed = items_of(
            [m for _, m in client.transcript], "item/completed", "collabAgentToolCall"
        )
        resumed = client.result("thread/read", {"threadId": thread["id"], "includeTurns": True})

    assert done["params"]["turn"]["status"] == "completed"
    child = client.notifications("subagent/lifecycle")[0]["params"]["agent"]["sessionId"]
    assert [(i["tool"], i["status"]) for i in started] == [
        ("spawnAgent", "inProgress"),
        ("wait", "inProgress"),
    ]
    assert started[0]["receiverThreadIds"] == [] and started[1]["receiverThreadIds"] == [child]
    assert [(i["id"], i["tool"], i["status"]) for i in completed] == [
        ("r1", "spawnAgent", "completed"),
        ("r2", "wait", "completed"),
    ]
    for item in completed:
        assert item["senderThreadId"] == thread["id"]
        assert item["receiverThreadIds"] == [child]
    assert completed[0]["prompt"] == "child-marker: say hi"
    assert completed[1]["agentsStates"] == {
        child: {"status": "completed", "message": "hi from the child"}
    }
    (turn,) = resumed["thread"]["turns"]
    untimed = ("startedAtMs", "completedAtMs")
    rebuilt = [i for i in turn["items"] if i["type"] == "collabAgentToolCall"]
    assert [{k: v for k, v in i.items() if k not in untimed} for i in rebuilt] == [
        {k: v for k, v in i.items() if k not in untimed} for i in completed
    ]
