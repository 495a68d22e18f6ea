"""Threads that last: kill -9 mid-turn then resume, fork into two branches, compaction."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import anyio

from codex_lsp.store.rollout import read_rollout
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import http_error, text_response, usage


def _input_text(request) -> str:
    return json.dumps(request.body["input"])


async def test_kill_9_mid_turn_then_resume_and_finish(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("the first answer", response_id="resp_a"))
    # The second turn's model call stalls mid-stream: the process dies while it waits.
    scripted_model.enqueue(
        [{"sse": {"type": "response.created", "response": {"id": "resp_b"}}}, {"stall_s": 30}]
    )
    env = {**os.environ, "CODEX_HOME": str(home)}
    proc = await anyio.open_process([sys.executable, "-m", "codex_lsp", "proto"], env=env)
    buffer = b""

    async def until(kind: str) -> dict:
        nonlocal buffer
        while True:
            while b"\n" not in buffer:
                buffer += await proc.stdout.receive()
            line, buffer = buffer.split(b"\n", 1)
            event = json.loads(line)
            if event["msg"]["type"] == kind:
                return event

    async def send(obj: dict) -> None:
        await proc.stdin.send((json.dumps(obj) + "\n").encode())

    with anyio.fail_after(30):
        await send({"id": "c", "op": {"type": "configure_session", "cwd": str(ws)}})
        rollout = Path((await until("session_configured"))["msg"]["rollout_path"])
        await send(
            {
                "id": "t1",
                "op": {
                    "type": "user_input",
                    "items": [{"type": "text", "text": "remember the word teal"}],
                },
            }
        )
        await until("task_complete")
        await send(
            {
                "id": "t2",
                "op": {"type": "user_input", "items": [{"type": "text", "text": "now a long one"}]},
            }
        )
        await until("user_message")
        await anyio.to_thread.run_sync(scripted_model.wait_for_requests, 2)
        proc.send_signal(signal.SIGKILL)
        await proc.wait()

    contents = read_rollout(rollout)
    kinds = [line.payload.get("type") for line in contents.lines if line.type == "event_msg"]
    assert "task_complete" in kinds and kinds.count("user_message") == 2

    scripted_model.enqueue(text_response("teal, as you asked", response_id="resp_c"))
    async with running_engine(home) as engine:
        configured = await engine.configure(resume_path=str(rollout))
        assert configured.msg.type == "session_configured"
        replayed = [m["type"] for m in configured.msg.initial_messages]
        assert replayed.count("user_message") == 2
        events = await engine.run_turn("what was the word?")
        assert engine.of_type("task_complete", events)[0].last_agent_message == "teal, as you asked"
    sent = _input_text(scripted_model.requests[-1])
    assert (
        "remember the word teal" in sent and "the first answer" in sent and "now a long one" in sent
    )
    # The resumed thread kept writing to the same file.
    assert sum(1 for line in read_rollout(rollout).lines if line.type == "session_meta") == 1
    assert "teal, as you asked" in rollout.read_text()


async def test_fork_then_both_branches_go_on_independently(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("base answer one", response_id="r1"))
    scripted_model.enqueue(text_response("base answer two", response_id="r2"))
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        source = configured.msg.rollout_path
        await engine.run_turn("first question")
        await engine.run_turn("second question")

    scripted_model.enqueue(text_response("fork branch", response_id="f1"), when="fork follow-up")
    scripted_model.enqueue(text_response("main branch", response_id="m1"), when="main follow-up")
    async with running_engine(home) as fork_engine, running_engine(home) as main_engine:
        forked = await fork_engine.configure(fork_path=source, fork_up_to_turn="1")
        resumed = await main_engine.configure(resume_path=source)
        assert forked.msg.forked_from_id == resumed.msg.session_id
        assert forked.msg.session_id != resumed.msg.session_id
        await fork_engine.run_turn("fork follow-up")
        await main_engine.run_turn("main follow-up")

    by_text = {
        r.body["input"][-1]["content"][0]["text"]: _input_text(r)
        for r in scripted_model.requests[2:]
    }
    fork_sent, main_sent = by_text["fork follow-up"], by_text["main follow-up"]
    assert "first question" in fork_sent and "second question" not in fork_sent
    assert "second question" in main_sent and "fork branch" not in main_sent
    assert "main branch" not in Path(forked.msg.rollout_path).read_text()
    assert "fork branch" not in Path(source).read_text()


async def test_compaction_when_history_nears_a_small_window_and_resume_from_summary(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra="model_context_window = 1000")
    scripted_model.enqueue(
        text_response(
            "a long first answer", response_id="r1", usage=usage(input_tokens=900, output_tokens=50)
        )
    )
    scripted_model.enqueue(text_response("SUMMARY: user likes teal", response_id="rs"))
    scripted_model.enqueue(text_response("answer after compaction", response_id="r2"))
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        rollout = configured.msg.rollout_path
        await engine.run_turn("my favourite colour is teal")
        events = await engine.run_turn("what next?")
        kinds = [e.msg.type for e in events]
        assert "context_compacted" in kinds
        assert any("less accurate" in w.message for w in engine.of_type("warning", events))

    summarise, after = scripted_model.requests[1].body, scripted_model.requests[2].body
    assert summarise["tools"] == [] and "context checkpoint" in json.dumps(summarise["input"])
    after_text = json.dumps(after["input"])
    assert "SUMMARY: user likes teal" in after_text and "a long first answer" not in after_text
    assert "my favourite colour is teal" in after_text  # recent user messages survive
    compacted = [line for line in read_rollout(Path(rollout)).lines if line.type == "compacted"]
    assert compacted and compacted[0].payload["message"] == "SUMMARY: user likes teal"

    scripted_model.enqueue(text_response("resumed", response_id="r3"))
    async with running_engine(home) as engine:
        await engine.configure(resume_path=rollout)
        await engine.run_turn("and now?")
    resumed_text = json.dumps(scripted_model.requests[-1].body["input"])
    assert "SUMMARY: user likes teal" in resumed_text and "a long first answer" not in resumed_text
    assert "answer after compaction" in resumed_text


async def test_a_failed_or_empty_compaction_ends_the_turn_clearly_and_keeps_the_history(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra="model_context_window = 1000")
    scripted_model.enqueue(
        text_response("first answer", response_id="r1", usage=usage(input_tokens=950))
    )
    scripted_model.enqueue(http_error(400, {"error": {"message": "bad summary request"}}))
    scripted_model.enqueue(text_response("", response_id="rs"))
    scripted_model.enqueue(text_response("still here", response_id="r2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("remember teal")
        failed = await engine.run_turn("what next?")
        errors = engine.of_type("error", failed)
        assert errors and "internal error" not in errors[0].message
        assert engine.of_type("task_complete", failed)
        events = await engine.run_turn("again")
        assert any("no summary" in w.message for w in engine.of_type("warning", events))
        assert not engine.of_type("context_compacted", events)
    assert "first answer" in _input_text(scripted_model.requests[-1])


async def test_fork_from_a_response_id_keeps_history_up_to_that_response(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("answer one", response_id="r1"))
    scripted_model.enqueue(text_response("answer two", response_id="r2"))
    scripted_model.enqueue(text_response("forked answer", response_id="r3"))
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn("question one")
        await engine.run_turn("question two")
    async with running_engine(home) as engine:
        forked = await engine.configure(
            fork_path=configured.msg.rollout_path, fork_up_to_response_id="r1"
        )
        assert forked.msg.forked_from_id == configured.msg.session_id
        await engine.run_turn("after the fork")
    sent = _input_text(scripted_model.requests[-1])
    assert "question one" in sent and "answer one" in sent
    assert "question two" not in sent and "answer two" not in sent


async def test_a_resumed_thread_keeps_its_response_bookmarks(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("answer one", response_id="r1"))
    scripted_model.enqueue(text_response("answer two", response_id="r2"))
    scripted_model.enqueue(text_response("from the bookmark", response_id="r3"))
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn("question one")
        await engine.run_turn("question two")
    async with running_engine(home) as engine:
        await engine.configure(resume_path=configured.msg.rollout_path)
        events = await engine.run_turn("again from one", previous_response_id="r1")
        assert not engine.of_type("warning", events)
    sent = _input_text(scripted_model.requests[-1])
    assert "question one" in sent and "answer one" in sent
    assert "question two" not in sent and "answer two" not in sent


async def test_after_an_in_thread_fork_a_resumed_thread_forks_again_from_an_older_bookmark(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    for n in (1, 2, 3):
        scripted_model.enqueue(text_response(f"answer {n}", response_id=f"r{n}"))
    scripted_model.enqueue(text_response("branch from two", response_id="r4"))
    scripted_model.enqueue(text_response("branch from one", response_id="r5"))
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        for n in (1, 2, 3):
            await engine.run_turn(f"question {n}")
        await engine.run_turn("again from two", previous_response_id="r2")
    async with running_engine(home) as engine:
        await engine.configure(resume_path=configured.msg.rollout_path)
        events = await engine.run_turn("again from one", previous_response_id="r1")
        assert not engine.of_type("warning", events)
    sent = _input_text(scripted_model.requests[-1])
    assert "question 1" in sent and "answer 1" in sent
    for gone in ("question 2", "answer 2", "question 3", "again from two", "branch from two"):
        assert gone not in sent
