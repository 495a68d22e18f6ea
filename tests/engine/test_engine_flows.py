"""The seeds' example flows, end to end through the engine against the scripted model."""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path

import anyio

from codex_lsp.protocol.core.ops import Interrupt, Shutdown
from codex_lsp.store.history import reconstruct_history
from codex_lsp.store.rollout import read_rollout
from tests.support.engine import (
    enqueue_two_turn_flow,
    make_git_repo,
    running_engine,
    write_config,
)
from tests.support.scripted_builders import (
    chat_text_response,
    chat_tool_call_response,
    function_call_response,
    http_error,
    text_response,
)

PATCH = """*** Begin Patch
*** Add File: notes.txt
+written by the agent
*** Update File: app.py
@@
-print("hi")
+print("hello")
*** End Patch"""

# The one-shot `shell_command` (a timeout, its output format) is what models get with unified
# exec turned off.
SHELL_COMMAND = "[features]\nunified_exec = false\n"


def _live_processes_mentioning(token: str) -> list[int]:
    """Host pids of live (not zombie) processes whose command line contains `token`.

    Found by command line, not by a pid the command reports: the sandbox runs it in a
    PID namespace of its own, whose numbers mean nothing out here.
    """
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if token.encode() in cmdline and stat.rsplit(")", 1)[1].split()[0] != "Z":
            found.append(int(entry.name))
    return found


# An argument no other process on the machine has: `sleep` accepts fractions.
SLEEP_TOKEN = f"60.{os.getpid()}{int(time.time()) % 100000}"


def _outputs(request_body: dict, kind: str) -> list[str]:
    return [item["output"] for item in request_body["input"] if item.get("type") == kind]


async def test_two_turn_task_with_approved_command_and_auto_approved_patch(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})
    write_config(home, scripted_model.base_url)
    enqueue_two_turn_flow(
        scripted_model,
        ws,
        command="printf 'hello from the command\\n' > out.txt; cat out.txt",
        justification="to greet",
        patch=PATCH,
        answer="Done.",
    )

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        assert configured.msg.type == "session_configured"
        events = await engine.run_turn("greet and edit", approvals=["approved"])

    kinds = [e.msg.type for e in events]
    order = [
        "task_started",
        "user_message",
        "exec_approval_request",
        "exec_command_begin",
        "exec_command_end",
        "patch_apply_begin",
        "patch_apply_end",
        "turn_diff",
        "agent_message",
        "task_complete",
    ]
    positions = [kinds.index(kind) for kind in order]
    assert positions == sorted(positions), kinds
    assert {e.id for e in events} == {events[0].id}, "every event carries the task's sub_id"

    request = engine.of_type("exec_approval_request", events)[0]
    assert request.reason == "to greet" and request.cwd == str(ws)
    output = b"".join(
        base64.b64decode(d.chunk) for d in engine.of_type("exec_command_output_delta", events)
    )
    assert b"hello from the command" in output
    assert engine.of_type("exec_command_end", events)[0].exit_code == 0
    begin = engine.of_type("patch_apply_begin", events)[0]
    assert begin.auto_approved is True
    assert engine.of_type("patch_apply_end", events)[0].success
    assert '+print("hello")' in engine.of_type("turn_diff", events)[-1].unified_diff
    done = engine.of_type("task_complete", events)[0]
    assert done.last_agent_message == "Done." and done.response_id == "resp_3"

    assert (ws / "notes.txt").read_text() == "written by the agent\n"
    assert (ws / "app.py").read_text() == 'print("hello")\n'
    bodies = [r.body for r in scripted_model.requests]
    assert len(bodies) == 3
    assert "hello from the command" in _outputs(bodies[1], "function_call_output")[0]
    assert (
        "Success. Updated the following files:\nA notes.txt\nM app.py"
        in _outputs(bodies[2], "custom_tool_call_output")[0]
    )


async def test_interrupt_then_new_task_from_response_bookmark(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("first answer", response_id="resp_0"))
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {
                "cmd": f"sleep {SLEEP_TOKEN} & echo started > child.txt; wait",
                "workdir": str(ws),
                "yield_time_ms": 30_000,
            },
            call_id="call_sleep",
            response_id="resp_1",
        )
    )
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": "echo resumed", "workdir": str(ws)},
            call_id="call_echo",
            response_id="resp_2",
        )
    )
    scripted_model.enqueue(text_response("continued", response_id="resp_3"))

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        first = await engine.run_turn("question zero")
        assert engine.of_type("task_complete", first)[0].response_id == "resp_0"

        long_turn = await engine.send("run something long")
        await engine.until("exec_command_begin", sub_id=long_turn)
        while not (ws / "child.txt").exists() or not (ws / "child.txt").read_text().strip():
            await anyio.sleep(0.05)
        assert _live_processes_mentioning(SLEEP_TOKEN)  # the shell and its sleep
        await engine.codex.submit(Interrupt())
        aborted = await engine.until("turn_aborted", sub_id=long_turn)
        assert aborted.msg.reason == "interrupted"
        survivors = _live_processes_mentioning(SLEEP_TOKEN)
        assert survivors == [], f"processes {survivors} survived the interrupt"

        events = await engine.run_turn(
            "continue from the first answer", previous_response_id="resp_0"
        )
        assert engine.of_type("task_complete", events)[0].last_agent_message == "continued"

    bookmark_request = scripted_model.requests[2].body
    texts = json.dumps(bookmark_request["input"])
    assert "question zero" in texts and "first answer" in texts
    assert "run something long" not in texts and "call_sleep" not in texts
    assert "resumed" in _outputs(scripted_model.requests[3].body, "function_call_output")[0]
    # A resumed thread continues from the bookmark too, not from the abandoned branch.
    rollout = read_rollout(Path(configured.msg.rollout_path))
    resumed = json.dumps(reconstruct_history(rollout.lines).history)
    assert "question zero" in resumed and "continued" in resumed
    assert "run something long" not in resumed and "call_sleep" not in resumed


async def test_ops_before_configure_and_unknown_ops_get_errors(scripted_model, tmp_path):
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    async with running_engine(home) as engine:
        await engine.send("too early")
        early = await engine.next()
        assert early.msg.type == "error" and "configure_session" in early.msg.message
        await engine.codex.submit_raw({"id": "x1", "op": {"type": "launch_rockets"}})
        unknown = await engine.next()
        assert (
            unknown.id == "x1"
            and unknown.msg.type == "error"
            and "launch_rockets" in unknown.msg.message
        )
        configured = await engine.configure(cwd=str(tmp_path))
        assert configured.msg.type == "session_configured"


async def test_after_shutdown_the_engine_has_no_session(scripted_model, tmp_path):
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(tmp_path))
        await engine.codex.submit(Shutdown())
        await engine.until("shutdown_complete")
        await engine.send("anyone there?")
        late = await engine.next()
        assert late.msg.type == "error" and "configure_session" in late.msg.message
    assert scripted_model.requests == []


async def test_a_command_printing_100_mb_reaches_the_model_truncated(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(
        home, scripted_model.base_url, sandbox_mode="danger-full-access", extra=SHELL_COMMAND
    )
    command = "head -c 100000000 /dev/zero | tr '\\0' a; echo; echo THE-END"
    scripted_model.enqueue(function_call_response("shell_command", {"command": command}))
    scripted_model.enqueue(text_response("that was a lot"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("print a lot")
    end = engine.of_type("exec_command_end", events)[0]
    assert end.exit_code == 0
    sent = _outputs(scripted_model.requests[1].body, "function_call_output")[0]
    assert sent.startswith("Exit code: 0\n") and "truncated" in sent and "THE-END" in sent
    assert len(sent.encode()) < 64_000


async def test_a_command_hanging_past_its_timeout_is_killed(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(
        home, scripted_model.base_url, sandbox_mode="danger-full-access", extra=SHELL_COMMAND
    )
    scripted_model.enqueue(
        function_call_response("shell_command", {"command": "sleep 30", "timeout_ms": 300})
    )
    scripted_model.enqueue(text_response("it hung"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("hang")
    assert engine.of_type("exec_command_end", events)[0].exit_code == 124
    sent = _outputs(scripted_model.requests[1].body, "function_call_output")[0]
    assert "Exit code: 124" in sent and "command timed out after 300 milliseconds" in sent


async def test_a_stream_dropped_mid_answer_is_retried_and_the_user_is_told(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    broken = [*text_response("partial answ", response_id="r_broken")[:3], {"disconnect": True}]
    scripted_model.enqueue(broken)
    scripted_model.enqueue(text_response("the whole answer", response_id="r_ok"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("hello")
    assert [m.message for m in engine.of_type("stream_error", events)] == ["Reconnecting... 1/2"]
    done = engine.of_type("task_complete", events)[0]
    assert done.last_agent_message == "the whole answer" and done.response_id == "r_ok"
    assert not engine.of_type("error", events)


async def test_spent_retries_end_the_task_with_one_clear_error(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    for _ in range(3):
        scripted_model.enqueue([*text_response("never finished")[:2], {"disconnect": True}])
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("hello")
    errors = engine.of_type("error", events)
    assert len(errors) == 1 and "stream" in errors[0].message
    assert len(engine.of_type("stream_error", events)) == 2
    assert events[-1].msg.type == "task_complete"


async def test_a_persistent_500_error_says_how_many_requests_were_made(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)  # request_max_retries = 2, stream = 2
    for _ in range(20):
        scripted_model.enqueue(http_error(500, {"error": {"message": "overloaded"}}))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("hello")
    errors = engine.of_type("error", events)
    assert len(errors) == 1 and "9 requests over 3 tries" in errors[0].message
    assert len(scripted_model.requests) == 9


async def test_the_chat_wire_runs_tools_and_answers(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, wire_api="chat", model="qwen2.5-coder")
    scripted_model.enqueue(
        chat_tool_call_response("exec_command", {"cmd": "echo from-chat"}, call_id="t1")
    )
    scripted_model.enqueue(chat_text_response("chat says done"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("use the chat server")
    assert engine.of_type("task_complete", events)[0].last_agent_message == "chat says done"
    first, second = (r.body for r in scripted_model.requests)
    assert scripted_model.requests[0].path.endswith("/chat/completions")
    assert {t["function"]["name"] for t in first["tools"]} >= {"exec_command", "write_stdin"}
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert "from-chat" in tool_messages[0]["content"]


async def test_an_interrupted_turn_names_the_response_to_continue_from(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("first answer", response_id="resp_0"))
    scripted_model.enqueue(
        [{"sse": {"type": "response.created", "response": {"id": "resp_x"}}}, {"stall_s": 30}]
    )
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": "sleep 30", "workdir": str(ws), "yield_time_ms": 30_000},
            call_id="call_sleep",
            response_id="resp_1",
        )
    )
    scripted_model.enqueue(text_response("continued", response_id="resp_2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("question zero")
        # Cut before the turn's first response completed: the previous turn's response.
        stalled = await engine.send("think for long")
        await engine.until("task_started", sub_id=stalled)
        while len(scripted_model.requests) < 2:
            await anyio.sleep(0.05)
        await engine.codex.submit(Interrupt())
        aborted = await engine.until("turn_aborted", sub_id=stalled)
        assert aborted.msg.response_id == "resp_0"
        # Cut while a tool runs: the response that asked for it.
        long_turn = await engine.send("run something long")
        await engine.until("exec_command_begin", sub_id=long_turn)
        await engine.codex.submit(Interrupt())
        aborted = await engine.until("turn_aborted", sub_id=long_turn)
        assert aborted.msg.response_id == "resp_1"
        events = await engine.run_turn("go on", previous_response_id="resp_1")
        assert not engine.of_type("warning", events)
    sent = json.dumps(scripted_model.requests[-1].body["input"])
    assert "run something long" in sent and "call_sleep" in sent and "go on" in sent
