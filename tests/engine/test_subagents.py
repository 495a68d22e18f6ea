"""Subagents end to end: children working in parallel with the root, awaited, then rebuilt when
the root thread is resumed. The model is the scripted server; each agent's requests are routed
to its own scripts by a marker only that agent's conversation contains."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codex_lsp.store.rollout import read_rollout
from tests.support.engine import EngineDriver, make_git_repo, running_engine, write_config
from tests.support.scripted_builders import (
    function_call_item,
    function_call_response,
    multi_item_response,
    reasoning_step,
    text_response,
)

SUBAGENTS_ON = "[features]\nsubagent_tools = true\n"

# Waits (bounded) for a flag file only the other child creates: it can print "saw" only if
# both children run at the same time.
WAIT_FOR_FLAG = (
    "for i in $(seq 1 300); do [ -f b.flag ] && break; sleep 0.05; done; "
    "[ -f b.flag ] && echo alpha saw the flag"
)


def call(name: str, args: dict[str, Any], call_id: str) -> list[dict[str, Any]]:
    """A model response making one function call."""
    return function_call_response(name, args, call_id=call_id, response_id=f"resp_{call_id}")


def outputs_for(server: Any, call_id: str) -> list[str]:
    """What the model was told for `call_id`, from every request that carried it back."""
    found = []
    for request in server.requests:
        for item in request.body.get("input", []):
            if item.get("type") == "function_call_output" and item.get("call_id") == call_id:
                found.append(item["output"])
    return found


def output_json(server: Any, call_id: str) -> dict[str, Any]:
    texts = outputs_for(server, call_id)
    assert texts, f"the model never got an output for {call_id}"
    return json.loads(texts[0])


def child_request(server: Any, marker: str, root_marker: str) -> Any:
    """The first request a child made with `marker` in it (the root's quote it too)."""
    return next(
        r
        for r in server.requests
        if marker in json.dumps(r.body) and root_marker not in json.dumps(r.body)
    )


def subagent_events(driver: EngineDriver, agent_id: int | None = None) -> list[tuple]:
    """Lifecycle and inbox events as a UI would tally them, optionally for one agent."""
    seen: list[tuple] = []
    for event in driver.events:
        msg = event.msg
        if msg.type == "subagent_lifecycle" and agent_id in (None, msg.agent_id):
            seen.append(("lifecycle", msg.agent_id, msg.change, msg.agent.status))
        elif msg.type == "agent_inbox" and agent_id in (None, msg.agent_id):
            seen.append(("inbox", msg.agent_id, msg.pending_regular, msg.pending_interrupt))
    return seen


async def test_two_children_work_in_parallel_are_awaited_and_come_back_after_resume(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra=SUBAGENTS_ON)
    root = "root-marker"
    # The root's scripts go first: its requests also quote the children's tasks.
    scripted_model.enqueue(
        call("subagent_spawn", {"message": "alpha-marker: wait", "label": "alpha"}, "r1"),
        when=root,
    )
    scripted_model.enqueue(
        call("subagent_send", {"agent_id": 1, "message": "alpha-followup: again"}, "r2"),
        when=root,
    )
    scripted_model.enqueue(
        call("subagent_spawn", {"message": "bravo-marker: flag", "label": "bravo"}, "r3"),
        when=root,
    )
    scripted_model.enqueue(call("subagent_await", {}, "r4"), when=root)
    scripted_model.enqueue(text_response("both done", response_id="resp_r5"), when=root)
    alpha_shell = {"cmd": WAIT_FOR_FLAG, "workdir": str(ws), "yield_time_ms": 20_000}
    scripted_model.enqueue(call("exec_command", alpha_shell, "a1"), when="alpha-marker")
    scripted_model.enqueue(text_response("alpha finished", response_id="a2"), when="alpha-marker")
    scripted_model.enqueue(text_response("alpha followed up", response_id="a3"), when="alpha")
    bravo_shell = {"cmd": "touch b.flag", "workdir": str(ws)}
    scripted_model.enqueue(
        multi_item_response(
            [
                reasoning_step("**Making the flag**\n\nA touch will do."),
                function_call_item("exec_command", bravo_shell, call_id="b1", index=1),
            ],
            response_id="b1",
        ),
        when="bravo-marker",
    )
    scripted_model.enqueue(text_response("bravo made the flag", response_id="b2"), when="bravo")

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        root_id, rollout = configured.msg.session_id, configured.msg.rollout_path
        events = await engine.run_turn(f"{root}: split the job")
    assert engine.of_type("task_complete", events)[-1].last_agent_message == "both done"

    # Alpha's command saw bravo's flag while it waited: the two ran at the same time.
    assert "alpha saw the flag" in outputs_for(scripted_model, "a1")[0]
    spawned = output_json(scripted_model, "r1")
    assert spawned["agent_id"] == 1 and spawned["parent_agent_id"] == 0
    assert output_json(scripted_model, "r3")["agent_id"] == 2
    assert output_json(scripted_model, "r2") == {
        "agent_id": 1,
        "status": "running",
        "queued": True,
        "pending_regular": 1,
    }
    awaited = {a["agent_id"]: a for a in output_json(scripted_model, "r4")["agents"]}
    assert output_json(scripted_model, "r4")["timed_out"] is False
    assert awaited[1]["status"] == awaited[2]["status"] == "completed"
    assert awaited[1]["last_message"] == "alpha followed up"
    assert awaited[2]["last_message"] == "bravo made the flag"
    # The queued message reached alpha after its first task, in the same conversation.
    followup = child_request(scripted_model, "alpha-followup", root)
    assert "alpha finished" in json.dumps(followup.body["input"])

    # What a UI saw, per child, in order.
    assert subagent_events(engine, 1) == [
        ("lifecycle", 1, "spawned", "running"),
        ("inbox", 1, 1, 0),
        ("inbox", 1, 0, 0),
        ("lifecycle", 1, "status", "completed"),
    ]
    assert subagent_events(engine, 2) == [
        ("lifecycle", 2, "spawned", "running"),
        ("lifecycle", 2, "reasoning", "running"),
        ("lifecycle", 2, "status", "completed"),
    ]
    lifecycle = engine.of_type("subagent_lifecycle")
    final = {s.agent_id: s for s in lifecycle[-1].agents}
    assert sorted(final) == [1, 2]
    assert {s.parent_agent_id for s in final.values()} == {0}
    assert {s.parent_session_id for s in final.values()} == {root_id}
    assert final[2].reasoning_header == "Making the flag" and final[2].label == "bravo"
    assert len({final[1].session_id, final[2].session_id, root_id}) == 3
    # Each child has its own thread file, recorded as spawned by the root.
    child_meta = read_rollout(Path(final[1].rollout_path)).meta
    assert child_meta["source"]["subagent"]["thread_spawn"]["parent_thread_id"] == root_id
    persisted = [
        line.payload["type"]
        for line in read_rollout(Path(rollout)).lines
        if line.type == "event_msg"
    ]
    assert persisted.count("subagent_lifecycle") == len(lifecycle)
    assert "agent_inbox" in persisted

    # Resume: the children are back (ids, parents, statuses) before the next turn runs.
    scripted_model.enqueue(call("subagent_list", {}, "r6"), when=root)
    scripted_model.enqueue(
        call("subagent_send", {"agent_id": 1, "message": "alpha-resumed: recall"}, "r7"),
        when=root,
    )
    scripted_model.enqueue(
        call("subagent_spawn", {"message": "charlie-marker: hi"}, "r8"), when=root
    )
    scripted_model.enqueue(call("subagent_await", {"timeout_s": 0}, "r9"), when=root)
    scripted_model.enqueue(text_response("all recalled", response_id="resp_r10"), when=root)
    scripted_model.enqueue(text_response("alpha remembers", response_id="a4"), when="alpha-resumed")
    scripted_model.enqueue(text_response("charlie here", response_id="c1"), when="charlie-marker")
    async with running_engine(home) as engine:
        resumed = await engine.configure(resume_path=rollout)
        replayed = [m["type"] for m in resumed.msg.initial_messages]
        assert replayed.count("subagent_lifecycle") == len(lifecycle)
        await engine.run_turn(f"{root}: after the resume")

    listed = output_json(scripted_model, "r6")
    assert [
        (a["agent_id"], a["parent_agent_id"], a["status"], a["label"]) for a in listed["agents"]
    ] == [
        (1, 0, "completed", "alpha"),
        (2, 0, "completed", "bravo"),
    ]
    # Agent 1 woke from its own rollout: its conversation so far went with the new message.
    recall = child_request(scripted_model, "alpha-resumed: recall", root)
    assert "alpha saw the flag" in json.dumps(recall.body["input"])
    # Ids go on from where the thread left off.
    assert output_json(scripted_model, "r8")["agent_id"] == 3
    after = {a["agent_id"]: a for a in output_json(scripted_model, "r9")["agents"]}
    assert after[1]["last_message"] == "alpha remembers"
    assert after[3]["last_message"] == "charlie here"
    assert subagent_events(engine, 1) == [
        ("lifecycle", 1, "status", "running"),
        ("lifecycle", 1, "status", "completed"),
    ]


async def test_a_fork_of_the_root_thread_forks_its_children_instead_of_sharing_them(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra=SUBAGENTS_ON)
    root = "root-marker"
    scripted_model.enqueue(call("subagent_spawn", {"message": "alpha-marker: hi"}, "r1"), when=root)
    scripted_model.enqueue(call("subagent_await", {}, "r2"), when=root)
    scripted_model.enqueue(text_response("spawned", response_id="resp_r3"), when=root)
    scripted_model.enqueue(text_response("alpha here", response_id="a1"), when="alpha-marker")
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn(f"{root}: start")
    original = engine.of_type("subagent_lifecycle")[-1].agent
    original_text = Path(original.rollout_path).read_text()

    scripted_model.enqueue(
        call("subagent_send", {"agent_id": 1, "message": "alpha-forked: only here"}, "r4"),
        when=root,
    )
    scripted_model.enqueue(call("subagent_await", {"agent_id": 1}, "r5"), when=root)
    scripted_model.enqueue(text_response("forked", response_id="resp_r6"), when=root)
    scripted_model.enqueue(
        text_response("alpha in the fork", response_id="a2"), when="alpha-forked"
    )
    async with running_engine(home) as engine:
        forked = await engine.configure(fork_path=configured.msg.rollout_path)
        await engine.run_turn(f"{root}: continue in the fork")

    assert output_json(scripted_model, "r5")["agents"][0]["last_message"] == "alpha in the fork"
    woken = engine.of_type("subagent_lifecycle")[0].agent
    assert woken.agent_id == 1 and woken.session_id != original.session_id
    assert woken.parent_session_id == forked.msg.session_id
    # The fork's child kept the conversation but writes to its own file.
    fork_meta = read_rollout(Path(woken.rollout_path)).meta
    assert fork_meta["forked_from_id"] == original.session_id
    assert "alpha here" in Path(woken.rollout_path).read_text()
    assert Path(original.rollout_path).read_text() == original_text
