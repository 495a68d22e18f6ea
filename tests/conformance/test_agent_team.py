"""The `collaboration` tools (`[features] multi_agent_v2`) side by side with the real
`codex app-server` 0.171: the tools offered, the `subAgentActivity` and `collabAgentToolCall`
items of the user's thread (live, in `thread/read`, and after a restart), and what the model
reads back from each call."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import answer_request, run_turn, start_thread, start_turn, text_input
from tests.support.scripted_builders import (
    function_call_response,
    multi_item_response,
    text_response,
)
from tests.support.scripted_model import Script

TEAM = {"multi_agent_v2": True}
UNTIMED = ("startedAtMs", "completedAtMs")


def team_call(name: str, args: dict[str, Any], call_id: str) -> Script:
    item = {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "namespace": "collaboration",
        "arguments": json.dumps(args),
        "status": "completed",
    }
    return multi_item_response([item], response_id=f"resp_{call_id}")


def child_answer(text: str, response_id: str) -> Script:
    """A child's answer, a second late: its parent is waiting for it by then, on both servers."""
    return [{"stall_s": 1.0}, *text_response(text, response_id=response_id)]


def _script(run: Any) -> None:
    root = "root-marker"
    calls = [
        (
            "spawn_agent",
            {"task_name": "helper", "message": "child-marker: hi", "fork_turns": "none"},
        ),
        ("wait_agent", {"timeout_ms": 10000}),
        ("list_agents", {}),
        ("send_message", {"target": "helper", "message": "note-marker"}),
        ("followup_task", {"target": "/root/helper", "message": "again-marker"}),
        ("wait_agent", {"timeout_ms": 10000}),
        ("interrupt_agent", {"target": "helper"}),
    ]
    for n, (name, args) in enumerate(calls, start=1):
        run.model.enqueue(team_call(name, args, f"r{n}"), when=root)
    run.model.enqueue(text_response("all done", response_id="resp_end"), when=root)
    run.model.enqueue(child_answer("hi from the child", "c1"), when="child-marker")
    run.model.enqueue(child_answer("again from the child", "c2"), when="child-marker")


def _items(messages: list[dict[str, Any]], root: str, child: str) -> list[Any]:
    """The user's thread's items as a client sees them, ids that differ run to run masked."""
    seen = []
    for m in messages:
        if m.get("method") not in ("item/started", "item/completed"):
            continue
        if m["params"]["threadId"] != root:
            continue
        seen.append((m["method"], _masked(m["params"]["item"], root, child)))
    return seen


def _masked(item: dict[str, Any], root: str, child: str) -> Any:
    if item["type"] not in ("subAgentActivity", "collabAgentToolCall"):
        return item["type"]
    text = json.dumps({k: v for k, v in item.items() if k not in UNTIMED}, sort_keys=True)
    text = text.replace(root, "<root>").replace(child, "<child>")
    return json.loads(re.sub(r"subagent-completed-[^\"]+", "subagent-completed-<turn>", text))


def _child_notifications(messages: list[dict[str, Any]], root: str, child: str) -> list[Any]:
    """The child thread's own notifications in order, among the parent's reports of it."""
    seen: list[Any] = []
    for m in messages:
        params = m.get("params")
        if "method" not in m or not isinstance(params, dict):
            continue
        item = params.get("item") or {}
        if params.get("threadId") == root and item.get("type") == "subAgentActivity":
            seen.append(("<root>", m["method"], item["kind"]))
        elif params.get("threadId") == child or params.get("thread", {}).get("id") == child:
            status = params.get("status") or params.get("turn", {}).get("status")
            kind = item.get("type") or (status.get("type") if isinstance(status, dict) else status)
            seen.append(("<child>", m["method"], kind))
    return seen


def _own(seen: list[Any]) -> list[Any]:
    return [entry for entry in seen if entry[0] == "<child>"]


def _among_reports(seen: list[Any]) -> list[Any]:
    """The parent's reports with the child's turn starts and items among them; the reference
    sends the child's status changes and turn ends in a race with the parent's reports."""
    return [
        entry
        for entry in seen
        if entry[0] == "<root>" or entry[1] == "turn/started" or entry[1].startswith("item/")
    ]


def _journey(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path, features=TEAM) as run:
        _script(run)
        thread_id = start_thread(run)
        done = run_turn(run, thread_id, "root-marker: delegate")
        messages = [entry.message for entry in run.client.seen()]
        started = next(
            m["params"]["item"]
            for m in messages
            if m.get("method") == "item/started"
            and m["params"]["item"]["type"] == "subAgentActivity"
        )
        child = started["agentThreadId"]
        read = run.client.call("thread/read", {"threadId": thread_id, "includeTurns": True})
        loaded = run.client.call("thread/loaded/list", {})["data"]
        run.restart()
        resumed = run.client.call("thread/resume", {"threadId": thread_id})
        root_requests = [r.body for r in run.model.requests if "root-marker" in json.dumps(r.body)]
        spec = next(t for t in root_requests[0]["tools"] if t.get("name") == "collaboration")
        child_requests = [
            r.body for r in run.model.requests if "root-marker" not in json.dumps(r.body)
        ]
        answers = [
            (item["type"], item.get("call_id"), item.get("output"), item.get("content"))
            for item in root_requests[-1]["input"]
            if item.get("type") in ("function_call_output", "agent_message")
        ]

        def rebuilt(thread: dict[str, Any]) -> list[Any]:
            (turn,) = thread["turns"]
            return [_masked(item, thread_id, child) for item in turn["items"]]

        return {
            "status": done["turn"]["status"],
            "live": _items(messages, thread_id, child),
            "child": _child_notifications(messages, thread_id, child),
            "loaded": sorted(loaded) == sorted([thread_id, child]),
            "read": rebuilt(read["thread"]),
            "resumed": rebuilt(resumed["thread"]),
            "spec": spec,
            "answers": answers,
            "child_offered": sorted(
                {t.get("name") or t["type"] for body in child_requests for t in body["tools"]}
            ),
        }


def _without_spawn_description(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with spawn_agent's description cut: it lists each server's own model catalog."""
    tools = [
        {
            k: v
            for k, v in tool.items()
            if not (tool["name"] == "spawn_agent" and k == "description")
        }
        for tool in spec["tools"]
    ]
    return {**spec, "tools": tools}


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_agent_team_tools_and_items_as_the_real_server_has_them(side: Side, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real")
    activity = [
        (item["kind"], item["id"])
        for method, item in real["live"]
        if method == "item/completed"
        and isinstance(item, dict)
        and item["type"] == "subAgentActivity"
    ]
    assert activity == [
        ("started", "r1"),
        ("completed", "subagent-completed-<turn>"),
        ("interacted", "r4"),
        ("interacted", "r5"),
        ("completed", "subagent-completed-<turn>"),
        ("interrupted", "r7"),
    ]
    ours = _journey(side, tmp_path / side)
    assert ours["status"] == real["status"] == "completed"
    assert ours["live"] == real["live"]
    assert ("<child>", "turn/started", "inProgress") in real["child"]
    assert not any(method == "thread/started" for _, method, _ in real["child"])
    assert _own(ours["child"]) == _own(real["child"])
    assert _among_reports(ours["child"]) == _among_reports(real["child"])
    assert ours["loaded"] and real["loaded"]
    assert ours["read"] == real["read"]
    assert ours["resumed"] == real["resumed"] == real["read"]
    assert _without_spawn_description(ours["spec"]) == _without_spawn_description(real["spec"])
    assert [t["name"] for t in ours["spec"]["tools"]] == [
        "followup_task",
        "interrupt_agent",
        "list_agents",
        "send_message",
        "spawn_agent",
        "wait_agent",
    ]
    assert ours["answers"] == real["answers"]
    assert "collaboration" not in ours["child_offered"]
    assert "collaboration" not in real["child_offered"]


@pytest.mark.parametrize("side", ["real", "ours"])
def test_no_collaboration_tools_without_the_feature(side: Side, tmp_path: Path) -> None:
    with run_on(side, tmp_path) as run:
        run.model.enqueue(text_response("ok", response_id="r0"))
        run_turn(run, start_thread(run), "hi")
        offered = {t.get("name") for t in run.model.requests[0].body["tools"]}
    assert not offered & {"collaboration", "spawn_agent", "wait_agent", "send_message"}


def _after_restart(side: Side, tmp_path: Path) -> dict[str, Any]:
    """A child spawned before a restart: not listed as live, yet a follow-up task wakes it."""
    with run_on(side, tmp_path, features=TEAM) as run:
        spawn = {"task_name": "helper", "message": "child-marker: hi", "fork_turns": "none"}
        run.model.enqueue(team_call("spawn_agent", spawn, "r1"), when="root-marker")
        run.model.enqueue(team_call("wait_agent", {"timeout_ms": 10000}, "r2"), when="root-marker")
        run.model.enqueue(text_response("first done", response_id="e1"), when="root-marker")
        run.model.enqueue(child_answer("hi from the child", "c1"), when="child-marker")
        thread_id = start_thread(run)
        run_turn(run, thread_id, "root-marker: delegate")
        run.restart()
        run.client.call("thread/resume", {"threadId": thread_id})
        followup = {"target": "helper", "message": "again-marker"}
        run.model.enqueue(team_call("list_agents", {}, "s1"), when="root-marker")
        run.model.enqueue(team_call("followup_task", followup, "s2"), when="root-marker")
        run.model.enqueue(team_call("wait_agent", {"timeout_ms": 10000}, "s3"), when="root-marker")
        run.model.enqueue(text_response("second done", response_id="e2"), when="root-marker")
        run.model.enqueue(child_answer("again from the child", "c2"), when="again")
        done = run_turn(run, thread_id, "root-marker: more")
        completed = [
            m["params"]["item"]
            for m in (entry.message for entry in run.client.seen())
            if m.get("method") == "item/completed" and m["params"]["threadId"] == thread_id
        ]
        child = next(i["agentThreadId"] for i in completed if i["type"] == "subAgentActivity")
        read = run.client.call("thread/read", {"threadId": thread_id, "includeTurns": True})
        last = [r.body for r in run.model.requests if "root-marker" in json.dumps(r.body)][-1]
        return {
            "status": done["turn"]["status"],
            "live": [_masked(item, thread_id, child) for item in completed],
            "read": [
                [_masked(item, thread_id, child) for item in turn["items"]]
                for turn in read["thread"]["turns"]
            ],
            "answers": [
                (item["type"], item.get("call_id"), item.get("output"), item.get("content"))
                for item in last["input"]
                if item.get("type") in ("function_call_output", "agent_message")
            ],
        }


def test_agent_team_after_a_restart_as_the_real_server_has_it(tmp_path: Path) -> None:
    real = _after_restart("real", tmp_path / "real")
    assert [
        (i["type"], i.get("kind") or i.get("tool")) for i in real["live"] if isinstance(i, dict)
    ] == [
        ("subAgentActivity", "interacted"),
        ("subAgentActivity", "completed"),
        ("collabAgentToolCall", "wait"),
    ]
    assert _after_restart("ours", tmp_path / "ours") == real


def _refusals(side: Side, tmp_path: Path) -> dict[str, Any]:
    """Calls the tools refuse, and a spawn that chooses its child's reasoning effort."""
    with run_on(side, tmp_path, features=TEAM) as run:
        calls = [
            ("spawn_agent", {"task_name": "Bad-Name", "message": "child-marker: x"}),
            (
                "spawn_agent",
                {
                    "task_name": "helper",
                    "message": "child-marker: hi",
                    "fork_turns": "none",
                    "model": "gpt-5.5",
                    "reasoning_effort": "low",
                },
            ),
            ("spawn_agent", {"task_name": "helper", "message": "x", "fork_turns": "none"}),
            ("send_message", {"target": "nobody", "message": "x"}),
            ("wait_agent", {"timeout_ms": 10000}),
        ]
        for n, (name, args) in enumerate(calls):
            run.model.enqueue(team_call(name, args, f"r{n}"), when="root-marker")
        run.model.enqueue(text_response("done", response_id="e1"), when="root-marker")
        run.model.enqueue(child_answer("hi from the child", "c1"), when="child-marker")
        thread_id = start_thread(run)
        run_turn(run, thread_id, "root-marker: delegate")
        completed = [
            m["params"]["item"]
            for m in (entry.message for entry in run.client.seen())
            if m.get("method") == "item/completed" and m["params"]["threadId"] == thread_id
        ]
        child = next(i["agentThreadId"] for i in completed if i["type"] == "subAgentActivity")
        bodies = [r.body for r in run.model.requests]
        last = [b for b in bodies if "root-marker" in json.dumps(b)][-1]
        return {
            "items": [_masked(item, thread_id, child) for item in completed],
            "answers": [
                (item["type"], item.get("call_id"), item.get("output"), item.get("content"))
                for item in last["input"]
                if item.get("type") in ("function_call_output", "agent_message")
            ],
            "child": [
                (b["model"], b["reasoning"]["effort"])
                for b in bodies
                if "root-marker" not in json.dumps(b)
            ],
        }


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_agent_team_refusals_as_the_real_server_has_them(side: Side, tmp_path: Path) -> None:
    real = _refusals("real", tmp_path / "real")
    assert real["child"] == [("gpt-5.5", "low")]
    assert _refusals(side, tmp_path / side) == real


def _steered_wait(side: Side, tmp_path: Path) -> dict[str, Any]:
    """The user steers input into a turn waiting for agents: the wait ends at once."""
    with run_on(side, tmp_path, features=TEAM) as run:
        run.model.enqueue(team_call("wait_agent", {"timeout_ms": 60000}, "w1"))
        run.model.enqueue(text_response("ok", response_id="e1"))
        thread_id = start_thread(run)
        turn_id = start_turn(run, thread_id, "root-marker: wait")
        run.client.wait(
            lambda m: (
                m.get("method") == "item/started"
                and m["params"]["item"]["type"] == "collabAgentToolCall"
            )
        )
        steer = {"threadId": thread_id, "input": [text_input("steer-marker")]}
        run.client.call("turn/steer", {**steer, "expectedTurnId": turn_id})
        done = run.client.wait_method("turn/completed", threadId=thread_id)["params"]
        items = [
            (m["method"], m["params"]["item"]["type"], m["params"]["item"].get("status"))
            for m in (entry.message for entry in run.client.seen())
            if m.get("method") in ("item/started", "item/completed")
        ]
        last = run.model.requests[-1].body["input"]
        return {
            "status": done["turn"]["status"],
            "items": items,
            "tail": [
                item.get("output") or item.get("content")
                for item in last
                if item.get("type") in ("function_call_output", "message")
            ][-2:],
        }


def test_a_steered_wait_ends_as_on_the_real_server(tmp_path: Path) -> None:
    real = _steered_wait("real", tmp_path / "real")
    assert real["tail"][0] == '{"message":"Wait interrupted by new input.","timed_out":false}'
    assert _steered_wait("ours", tmp_path / "ours") == real


def _child_thread(side: Side, tmp_path: Path) -> dict[str, Any]:
    """What `thread/read` says of a spawned child's thread: its parent and task path."""
    with run_on(side, tmp_path, features=TEAM) as run:
        spawn = {"task_name": "helper", "message": "child-marker: hi", "fork_turns": "none"}
        run.model.enqueue(team_call("spawn_agent", spawn, "r1"), when="root-marker")
        run.model.enqueue(team_call("wait_agent", {"timeout_ms": 10000}, "r2"), when="root-marker")
        run.model.enqueue(text_response("done", response_id="e1"), when="root-marker")
        run.model.enqueue(child_answer("hi from the child", "c1"), when="child-marker")
        thread_id = start_thread(run)
        run_turn(run, thread_id, "root-marker: go")
        child = next(
            m["params"]["item"]["agentThreadId"]
            for m in (entry.message for entry in run.client.seen())
            if m.get("method") == "item/completed"
            and m["params"]["item"]["type"] == "subAgentActivity"
        )
        thread = run.client.call("thread/read", {"threadId": child})["thread"]
        spawned = thread["source"]["subAgent"]["thread_spawn"]
        listed = [each["id"] for each in run.client.call("thread/list", {})["data"]]
        return {
            "parent": thread["parentThreadId"] == thread_id,
            "threadSource": thread["threadSource"],
            "spawn": (spawned["parent_thread_id"] == thread_id, spawned["depth"]),
            "path": spawned["agent_path"],
            "listed": listed == [thread_id],
        }


def test_a_child_thread_names_its_parent_as_on_the_real_server(tmp_path: Path) -> None:
    real = _child_thread("real", tmp_path / "real")
    assert real["path"] == "/root/helper" and real["parent"]
    assert _child_thread("ours", tmp_path / "ours") == real


def test_a_forked_agent_reads_the_parents_conversation_and_its_role(tmp_path: Path) -> None:
    """codex-lsp alone (the role note is in its own words): a full-history fork."""
    with run_on("ours", tmp_path, features=TEAM) as run:
        role = "You are `/root/helper`"
        run.model.enqueue(child_answer("forked answer", "c1"), when=role)
        spawn = {"task_name": "helper", "message": "look again"}
        run.model.enqueue(team_call("spawn_agent", spawn, "r1"), when="root-marker")
        run.model.enqueue(team_call("wait_agent", {"timeout_ms": 10000}, "r2"), when="root-marker")
        run.model.enqueue(text_response("done", response_id="e1"), when="root-marker")
        run_turn(run, start_thread(run), "root-marker: fork a helper")
        bodies = [json.dumps(r.body) for r in run.model.requests]
    (child,) = [body for body in bodies if role in body]
    assert "root-marker: fork a helper" in child and "look again" in child
    assert "You are subagent" not in child
    assert "forked answer" in bodies[-1]


def _child_asks(side: Side, tmp_path: Path) -> dict[str, Any]:
    """Under `untrusted` a child runs a command: who is asked, on which thread and turn."""
    with run_on(side, tmp_path, features=TEAM) as run:
        spawn = {"task_name": "helper", "message": "child-marker: hi", "fork_turns": "none"}
        run.model.enqueue(team_call("spawn_agent", spawn, "r1"), when="root-marker")
        run.model.enqueue(team_call("wait_agent", {"timeout_ms": 30000}, "r2"), when="root-marker")
        run.model.enqueue(text_response("done", response_id="e1"), when="root-marker")
        touch = {"cmd": "touch child.flag", "workdir": str(run.ws)}
        run.model.enqueue(
            function_call_response("exec_command", touch, call_id="c1", response_id="rc1"),
            when="child-marker",
        )
        run.model.enqueue(text_response("flag made", response_id="c2"), when="child-marker")
        thread_id = start_thread(run, approvalPolicy="untrusted")
        start_turn(run, thread_id, "root-marker: go")
        asked = answer_request(run, "item/commandExecution/requestApproval", {"decision": "accept"})
        run.client.wait_method("turn/completed", threadId=thread_id)
        messages = [entry.message for entry in run.client.seen()]
        child = asked["params"]["threadId"]
        child_turn = next(
            m["params"]["turn"]["id"]
            for m in messages
            if m.get("method") == "turn/started" and m["params"]["threadId"] == child
        )
        return {
            "child": _own(_child_notifications(messages, thread_id, child)),
            "asked": (
                child != thread_id,
                asked["params"]["turnId"] == child_turn,
                re.fullmatch(
                    r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", child_turn
                )
                is not None,
                asked["params"]["itemId"],
            ),
            "flag": (run.ws / "child.flag").exists(),
        }


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_a_child_asks_on_its_own_thread_as_on_the_real_server(side: Side, tmp_path: Path) -> None:
    real = _child_asks("real", tmp_path / "real")
    assert real["asked"] == (True, True, True, "c1") and real["flag"]
    assert ("<child>", "item/commandExecution/requestApproval", None) in real["child"]
    assert _child_asks(side, tmp_path / side) == real
