"""Each subagent tool doing what its user expects: await bounds, the active cap, send,
interrupt, read-only logs, list, cancel (with descendants), prune, forks and approvals."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from codex_lsp.engine.subagents.tools import await_timeout
from codex_lsp.engine.tools.base import ToolError
from tests.engine.test_subagents import (
    SUBAGENTS_ON,
    call,
    child_request,
    output_json,
    outputs_for,
    subagent_events,
)
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import created, text_response

ROOT = "root-marker"
# A child's model call that hangs until the child is interrupted or cancelled.
HANG = [created("resp_hang"), {"stall_s": 30}]


def _tool_names(request: Any) -> set[str]:
    return {tool.get("name") for tool in request.body.get("tools", [])}


@pytest.mark.parametrize("value", [None, 0, 0.0, 300, 1800, 900.5])
def test_await_timeout_accepts_the_default_and_the_bounds(value):
    assert await_timeout(value) == (1800.0 if not value else float(value))


@pytest.mark.parametrize("value", [299, 1801, -1, 0.5, True, "600", math.inf])
def test_await_timeout_rejects_anything_else(value):
    with pytest.raises(ToolError, match="timeout_s"):
        await_timeout(value)


async def test_tools_are_offered_only_with_the_feature_flag(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("plain"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hello")
    assert not any(name.startswith("subagent_") for name in _tool_names(scripted_model.requests[0]))

    write_config(home, scripted_model.base_url, extra=SUBAGENTS_ON)
    scripted_model.enqueue(text_response("with children"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hello")
    assert {
        "subagent_spawn",
        "subagent_send",
        "subagent_interrupt",
        "subagent_logs",
        "subagent_await",
        "subagent_list",
        "subagent_cancel",
        "subagent_prune",
    } <= _tool_names(scripted_model.requests[1])


async def test_await_timeout_bounds_reach_the_model_as_clear_errors(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra=SUBAGENTS_ON)
    steps: list[tuple[str, dict[str, Any]]] = [
        ("subagent_spawn", {"message": "alpha-marker: hello"}),
        ("subagent_await", {"timeout_s": 299}),
        ("subagent_await", {"timeout_s": 1801}),
        ("subagent_await", {"agent_id": 1, "timeout_s": 0}),
        ("subagent_await", {"agent_id": 1}),
        ("subagent_await", {"timeout_s": 300}),
    ]
    for number, (name, args) in enumerate(steps, start=1):
        scripted_model.enqueue(call(name, args, f"r{number}"), when=ROOT)
    scripted_model.enqueue(text_response("done", response_id="resp_end"), when=ROOT)
    scripted_model.enqueue(text_response("hello back", response_id="a1"), when="alpha-marker")
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn(f"{ROOT}: go")

    too_short, too_long = outputs_for(scripted_model, "r2")[0], outputs_for(scripted_model, "r3")[0]
    for text, value in ((too_short, "299"), (too_long, "1801")):
        assert f"timeout_s = {value} is out of bounds" in text
        assert "between 300 and 1800 seconds" in text and "0 (or omit it)" in text
    for call_id in ("r4", "r5", "r6"):
        result = output_json(scripted_model, call_id)
        assert result["timed_out"] is False
        assert [(a["agent_id"], a["status"], a["last_message"]) for a in result["agents"]] == [
            (1, "completed", "hello back")
        ]


async def test_max_active_subagents_caps_spawning_until_one_is_cancelled(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    extra = f"max_active_subagents = 1\n{SUBAGENTS_ON}"
    write_config(home, scripted_model.base_url, extra=extra)
    steps: list[tuple[str, dict[str, Any]]] = [
        ("subagent_spawn", {"message": "alpha-marker: hang"}),
        ("subagent_spawn", {"message": "bravo-marker: hi"}),
        ("subagent_prune", {}),
        ("subagent_list", {}),
        ("subagent_cancel", {"agent_id": 1}),
        ("subagent_spawn", {"message": "bravo-marker: hi"}),
        ("subagent_await", {}),
    ]
    for number, (name, args) in enumerate(steps, start=1):
        scripted_model.enqueue(call(name, args, f"r{number}"), when=ROOT)
    scripted_model.enqueue(text_response("done", response_id="resp_end"), when=ROOT)
    scripted_model.enqueue(HANG, when="alpha-marker")
    scripted_model.enqueue(text_response("bravo here", response_id="b1"), when="bravo-marker")
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn(f"{ROOT}: go")

    refused = outputs_for(scripted_model, "r2")[0]
    assert "already running" in refused and "max_active_subagents = 1" in refused
    assert output_json(scripted_model, "r3") == {"pruned": [], "skipped": {"1": "still working"}}
    listed = output_json(scripted_model, "r4")
    assert listed["active"] == 1 and listed["max_active"] == 1
    assert [(a["agent_id"], a["status"]) for a in listed["agents"]] == [(1, "running")]
    assert output_json(scripted_model, "r5") == {
        "agent_id": 1,
        "previous_status": "running",
        "canceled": [1],
    }
    # A freed slot takes the next spawn; ids are never reused.
    assert output_json(scripted_model, "r6")["agent_id"] == 2
    assert output_json(scripted_model, "r7")["agents"][0]["last_message"] == "bravo here"
    assert subagent_events(engine) == [
        ("lifecycle", 1, "spawned", "running"),
        ("lifecycle", 1, "canceled", "canceled"),
        ("lifecycle", 2, "spawned", "running"),
        ("lifecycle", 2, "status", "completed"),
    ]
    assert engine.of_type("subagent_lifecycle")[1].agents == []


async def test_interrupt_send_logs_and_prune(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra=SUBAGENTS_ON)
    steps: list[tuple[str, dict[str, Any]]] = [
        ("subagent_spawn", {"message": "alpha-marker: start", "label": "alpha"}),
        ("subagent_logs", {"agent_id": 1}),
        ("subagent_interrupt", {"agent_id": 1, "message": "alpha-stop: summarise"}),
        ("subagent_await", {"agent_id": 1, "timeout_s": 600}),
        ("subagent_logs", {"agent_id": 1, "limit": 50}),
        ("subagent_send", {"agent_id": 1, "message": "alpha-more: one more"}),
        ("subagent_await", {"agent_id": 1}),
        ("subagent_prune", {}),
        ("subagent_list", {}),
        ("subagent_send", {"agent_id": 1, "message": "anyone there?"}),
    ]
    for number, (name, args) in enumerate(steps, start=1):
        scripted_model.enqueue(call(name, args, f"r{number}"), when=ROOT)
    scripted_model.enqueue(text_response("done", response_id="resp_end"), when=ROOT)
    # Later scripts first: a request matches the earliest script whose marker it contains.
    scripted_model.enqueue(text_response("stopped early", response_id="a2"), when="alpha-stop")
    scripted_model.enqueue(text_response("one more done", response_id="a3"), when="alpha-more")
    scripted_model.enqueue(HANG, when="alpha-marker")
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn(f"{ROOT}: go")

    first_look = output_json(scripted_model, "r2")
    assert first_look["status"] == "running"
    assert "message: alpha-marker: start" in first_look["activity"]
    interrupted = output_json(scripted_model, "r3")
    assert interrupted["interrupted"] is True and interrupted["status"] == "running"
    assert output_json(scripted_model, "r4")["agents"][0]["last_message"] == "stopped early"
    # The child knows its turn was cut short, and got the interrupt message next.
    stop_request = child_request(scripted_model, "alpha-stop", ROOT)
    assert "<turn_aborted>" in json.dumps(stop_request.body["input"])
    activity = output_json(scripted_model, "r5")["activity"]
    assert activity == [
        "message: alpha-marker: start",
        "turn aborted (interrupted)",
        "message: alpha-stop: summarise",
        "assistant: stopped early",
        "task complete",
    ]
    assert output_json(scripted_model, "r6") == {
        "agent_id": 1,
        "status": "running",
        "queued": False,
    }
    assert output_json(scripted_model, "r7")["agents"][0]["last_message"] == "one more done"
    assert output_json(scripted_model, "r8") == {"pruned": [1]}
    assert output_json(scripted_model, "r9")["agents"] == []
    assert "no subagent with id 1" in outputs_for(scripted_model, "r10")[0]
    # Logs changed nothing: no lifecycle or inbox event came from either look.
    assert subagent_events(engine, 1) == [
        ("lifecycle", 1, "spawned", "running"),
        ("inbox", 1, 0, 1),
        ("inbox", 1, 0, 0),
        ("lifecycle", 1, "status", "completed"),
        ("lifecycle", 1, "status", "running"),
        ("lifecycle", 1, "status", "completed"),
        ("lifecycle", 1, "pruned", "completed"),
    ]


async def test_forked_child_spawns_its_own_child_and_cancel_takes_both(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra=SUBAGENTS_ON)
    fork_args = {"message": "alpha-marker: delegate", "fork": True}
    scripted_model.enqueue(call("subagent_spawn", fork_args, "r1"), when=ROOT)
    # The fork copies the root's conversation, marker included; only the root's later
    # requests carry the spawn call's output.
    after_spawn = '"call_id":"r1"'
    scripted_model.enqueue(call("subagent_await", {"agent_id": 1}, "r2"), when=after_spawn)
    scripted_model.enqueue(call("subagent_cancel", {"agent_id": 1}, "r3"), when=after_spawn)
    scripted_model.enqueue(call("subagent_list", {}, "r4"), when=after_spawn)
    scripted_model.enqueue(text_response("done", response_id="resp_end"), when=after_spawn)
    golf = {"message": "golf-marker: deep", "label": "golf"}
    scripted_model.enqueue(call("subagent_spawn", golf, "a1"), when="alpha-marker")
    scripted_model.enqueue(call("subagent_await", {}, "a2"), when="alpha-marker")
    scripted_model.enqueue(text_response("alpha saw golf", response_id="a3"), when="alpha-marker")
    scripted_model.enqueue(text_response("golf done", response_id="g1"), when="golf-marker")
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn(f"{ROOT}: fan out")

    # The child started from the root's conversation, told who it is, then given its task.
    child_first = next(
        r for r in scripted_model.requests if "You are subagent 1" in json.dumps(r.body)
    )
    texts = [
        part["text"]
        for item in child_first.body["input"]
        if item.get("type") == "message"
        for part in item["content"]
    ]
    assert texts[-1] == "alpha-marker: delegate"
    assert f"{ROOT}: fan out" in texts and "started by agent 0" in texts[-2]
    grandchild = output_json(scripted_model, "a1")
    assert grandchild["agent_id"] == 2 and grandchild["parent_agent_id"] == 1
    assert output_json(scripted_model, "a2")["agents"][0]["last_message"] == "golf done"
    assert output_json(scripted_model, "r2")["agents"][0]["last_message"] == "alpha saw golf"
    cancelled = output_json(scripted_model, "r3")
    assert cancelled["previous_status"] == "completed" and cancelled["canceled"] == [2, 1]
    assert output_json(scripted_model, "r4")["agents"] == []
    lifecycle = engine.of_type("subagent_lifecycle")
    assert [(e.agent_id, e.change, e.agent.parent_agent_id) for e in lifecycle] == [
        (1, "forked", 0),
        (2, "spawned", 1),
        (2, "status", 1),
        (1, "status", 0),
        (2, "canceled", 1),
        (1, "canceled", 0),
    ]


async def test_a_child_asks_the_user_through_the_root_thread(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, approval_policy="untrusted", extra=SUBAGENTS_ON)
    spawn = {"message": "alpha-marker: write"}
    scripted_model.enqueue(call("subagent_spawn", spawn, "r1"), when=ROOT)
    scripted_model.enqueue(call("subagent_await", {}, "r2"), when=ROOT)
    scripted_model.enqueue(text_response("done", response_id="resp_end"), when=ROOT)
    write = {"cmd": "touch from-child.txt", "workdir": str(ws)}
    scripted_model.enqueue(call("exec_command", write, "a1"), when="alpha-marker")
    scripted_model.enqueue(text_response("wrote it", response_id="a2"), when="alpha-marker")
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn(f"{ROOT}: go", approvals=["approved"])

    # The request reached the root thread's UI, and the user's answer reached the child.
    (request,) = engine.of_type("exec_approval_request", events)
    assert request.call_id == "a1" and "touch from-child.txt" in " ".join(request.command)
    assert (ws / "from-child.txt").exists()
    assert output_json(scripted_model, "r2")["agents"][0]["last_message"] == "wrote it"


async def test_a_child_still_working_at_shutdown_comes_back_interrupted(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra=SUBAGENTS_ON)
    scripted_model.enqueue(
        call("subagent_spawn", {"message": "alpha-marker: hang"}, "r1"), when=ROOT
    )
    scripted_model.enqueue(text_response("leaving it running", response_id="r2"), when=ROOT)
    scripted_model.enqueue(HANG, when="alpha-marker")
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn(f"{ROOT}: go")

    scripted_model.enqueue(call("subagent_list", {}, "r3"), when=ROOT)
    scripted_model.enqueue(text_response("checked", response_id="r4"), when=ROOT)
    async with running_engine(home) as engine:
        await engine.configure(resume_path=configured.msg.rollout_path)
        await engine.run_turn(f"{ROOT}: and now?")
    listed = output_json(scripted_model, "r3")
    assert [(a["agent_id"], a["status"]) for a in listed["agents"]] == [(1, "interrupted")]
    assert listed["active"] == 0
