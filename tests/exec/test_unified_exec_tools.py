"""`exec_command` and `write_stdin` as the model uses them, through the engine.

The model is the scripted server; a responder answers with the session id the engine chose, the
way a real model reads it from the previous output.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.protocol.core.ops import Interrupt, Shutdown
from tests.support.engine import running_engine, write_config
from tests.support.scripted_builders import (
    function_call_item,
    function_call_response,
    multi_item_response,
    text_response,
)

FORMAT = re.compile(
    r"Chunk ID: [0-9a-f]{6}\n"
    r"Wall time: \d+\.\d{4} seconds\n"
    r"(?:Process exited with code (?P<code>-?\d+)"
    r"|Process running with session ID (?P<sid>\d+))\n"
    r"Original token count: (?P<tokens>\d+)\n"
    r"Output:\n(?P<output>.*)\Z",
    re.DOTALL,
)
# Plain `sh -c` keeps the user's login profile (and its noise) out of the outputs.
PLAIN = {"shell": "/bin/sh", "login": False}


def parse(text: str) -> re.Match[str]:
    match = FORMAT.match(text)
    assert match, f"not an exec_command result: {text!r}"
    return match


def outputs(scripted_model: Any) -> list[str]:
    """The tool outputs the model was sent, in order, from every request."""
    seen: list[str] = []
    for request in scripted_model.requests:
        for item in request.body["input"]:
            if item["type"] == "function_call_output" and item["output"] not in seen:
                seen.append(item["output"])
    return seen


def call(name: str, args: dict[str, Any], call_id: str) -> list[dict[str, Any]]:
    return function_call_response(name, args, call_id=call_id, response_id=f"resp_{call_id}")


def session_id_in_last_output(body: Any) -> int:
    last = [i for i in body["input"] if i["type"] == "function_call_output"][-1]["output"]
    sid = parse(last)["sid"]
    assert sid is not None, f"expected a running process: {last!r}"
    return int(sid)


async def _engine(tmp_path: Path, scripted_model: Any, **config: Any) -> tuple[Path, Path]:
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir()
    config.setdefault("model", "gpt-5.5")
    config.setdefault("sandbox_mode", "danger-full-access")
    config.setdefault("approval_policy", "never")
    write_config(home, scripted_model.base_url, **config)
    return home, ws


async def test_a_finished_command_returns_its_exit_code_and_output(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    scripted_model.enqueue(call("exec_command", {"cmd": "echo hi; exit 3", **PLAIN}, "c1"))
    scripted_model.enqueue(text_response("done", response_id="resp_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("go")
    result = parse(outputs(scripted_model)[0])
    assert (result["code"], result["output"], result["tokens"]) == ("3", "hi\n", "1")
    begin = engine.of_type("exec_command_begin", events)[0]
    end = engine.of_type("exec_command_end", events)[0]
    assert begin.source == end.source == "unified_exec_startup"
    assert begin.process_id is not None and begin.process_id == end.process_id
    assert (end.exit_code, end.status, end.aggregated_output) == (3, "failed", "hi\n")


async def test_an_interactive_program_on_a_pty(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    bash = {"cmd": "bash --norc --noprofile", "tty": True, "yield_time_ms": 1000, **PLAIN}
    scripted_model.enqueue(call("exec_command", bash, "c1"))
    scripted_model.enqueue_responder(
        lambda body: call(
            "write_stdin",
            {"session_id": session_id_in_last_output(body), "chars": "echo $((6*7))\n"},
            "c2",
        )
    )
    scripted_model.enqueue_responder(
        lambda body: call(
            "write_stdin",
            {
                "session_id": session_id_in_last_output(body),
                "chars": "exit 4\n",
                "yield_time_ms": 5000,
            },
            "c3",
        )
    )
    # The process is gone: its id no longer answers.
    scripted_model.enqueue_responder(
        lambda body: call(
            "write_stdin",
            {"session_id": int(parse(outputs_of(body)[-3])["sid"]), "chars": ""},
            "c4",
        )
    )
    scripted_model.enqueue(text_response("done", response_id="resp_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws), model="gpt-5.5")
        events = await engine.run_turn("go")
    first, second, third, fourth = outputs(scripted_model)
    sid = parse(first)["sid"]
    assert sid is not None
    assert re.search(r"\r\n42\r\n", parse(second)["output"])
    assert parse(second)["sid"] == sid
    assert parse(third)["code"] == "4"
    assert fourth == f"write_stdin failed: Unknown process id {sid}"
    assert [(e.process_id, e.stdin) for e in engine.of_type("terminal_interaction", events)] == [
        (sid, "echo $((6*7))\n"),
        (sid, "exit 4\n"),
    ]
    ends = engine.of_type("exec_command_end", events)
    assert len(ends) == 1 and ends[0].call_id == "c1" and ends[0].exit_code == 4
    kinds = [e.msg.type for e in events]
    # The input that ended the shell is told before its end.
    assert kinds.index("exec_command_end") > max(
        i for i, k in enumerate(kinds) if k == "terminal_interaction"
    )


def outputs_of(body: Any) -> list[str]:
    return [i["output"] for i in body["input"] if i["type"] == "function_call_output"]


async def test_typing_into_a_pipe_process_is_refused(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    scripted_model.enqueue(
        call("exec_command", {"cmd": "sleep 30", "yield_time_ms": 250, **PLAIN}, "c1")
    )
    scripted_model.enqueue_responder(
        lambda body: call(
            "write_stdin", {"session_id": session_id_in_last_output(body), "chars": "x"}, "c2"
        )
    )
    scripted_model.enqueue(text_response("done", response_id="resp_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("go")
    assert outputs(scripted_model)[1] == (
        "write_stdin failed: stdin is closed for this session; "
        "rerun exec_command with tty=true to keep stdin open"
    )


async def test_long_output_keeps_its_head_and_tail(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    args = {"cmd": "seq 1 100000", "max_output_tokens": 50, **PLAIN}
    scripted_model.enqueue(call("exec_command", args, "c1"))
    scripted_model.enqueue(text_response("done", response_id="resp_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("go")
    result = parse(outputs(scripted_model)[0])
    assert result["tokens"] == "147224"  # 588 895 bytes / 4, rounded up
    head, tail = result["output"].split("…147174 tokens truncated…")
    assert head.startswith(
        "Warning: truncated output (original token count: 147224)\n"
        "Total output lines: 100000\n\n1\n2\n3\n"
    )
    assert tail.endswith("99999\n100000\n")
    assert len(head.split("\n\n", 1)[1]) == len(tail) == 100  # half of 50 tokens each


async def test_a_process_outlives_its_turn_and_reports_its_end_later(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    marker = ws / "go-on"
    script = f"while [ ! -e {marker} ]; do sleep 0.05; done; echo finished"
    scripted_model.enqueue(
        call("exec_command", {"cmd": script, "yield_time_ms": 250, **PLAIN}, "c1")
    )
    scripted_model.enqueue(text_response("started it", response_id="resp_2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        first = await engine.run_turn("go")
        assert engine.of_type("exec_command_begin", first)
        assert not engine.of_type("exec_command_end", first)
        marker.touch()
        end = (await engine.until("exec_command_end")).msg
    assert (end.call_id, end.exit_code, end.aggregated_output) == ("c1", 0, "finished\n")


async def _pid_from(pidfile: Path) -> int:
    with anyio.fail_after(20):
        while not pidfile.exists() or not pidfile.read_text().strip():
            await anyio.sleep(0.02)
    return int(pidfile.read_text())


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def _gone(pid: int) -> bool:
    with anyio.move_on_after(20):
        while _alive(pid):
            await anyio.sleep(0.02)
        return True
    return False


async def test_an_interrupt_ends_the_processes_the_model_left_running(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    pidfile = ws / "sleep.pid"
    cmd = f"sleep 300 & echo $! > {pidfile}; wait"
    scripted_model.enqueue(call("exec_command", {"cmd": cmd, "yield_time_ms": 250, **PLAIN}, "c1"))
    scripted_model.enqueue([{"stall_s": 30}])  # the model thinks until interrupted
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        sub_id = await engine.send("go")
        await engine.until("exec_command_begin")
        sleeper = await _pid_from(pidfile)
        await anyio.to_thread.run_sync(lambda: scripted_model.wait_for_requests(2, timeout=20))
        await engine.codex.submit(Interrupt())
        await engine.until("turn_aborted", sub_id=sub_id)
    ends = engine.of_type("exec_command_end")
    kinds = [e.msg.type for e in engine.events]
    assert len(ends) == 1 and ends[0].exit_code == 137 and ends[0].status == "failed"
    assert kinds.index("exec_command_end") < kinds.index("turn_aborted")
    assert await _gone(sleeper)


async def test_shutting_the_session_down_ends_its_processes(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    pidfile = ws / "sleep.pid"
    cmd = f"sleep 300 & echo $! > {pidfile}; wait"
    scripted_model.enqueue(call("exec_command", {"cmd": cmd, "yield_time_ms": 250, **PLAIN}, "c1"))
    scripted_model.enqueue(text_response("left it running", response_id="resp_2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("go")
        sleeper = await _pid_from(pidfile)
        assert _alive(sleeper)
        await engine.codex.submit(Shutdown())
        await engine.until("shutdown_complete")
    assert await _gone(sleeper)


async def test_the_sandbox_confines_what_exec_command_runs(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model, sandbox_mode="workspace-write")
    outside = tmp_path / "outside.txt"
    extra = "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
    write_config(
        home,
        scripted_model.base_url,
        model="gpt-5.5",
        sandbox_mode="workspace-write",
        approval_policy="never",
        extra=extra,
    )
    cmd = f"touch inside.txt && touch {outside}"
    scripted_model.enqueue(call("exec_command", {"cmd": cmd, **PLAIN}, "c1"))
    scripted_model.enqueue(text_response("done", response_id="resp_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("go")
    result = parse(outputs(scripted_model)[0])
    assert result["code"] != "0"
    assert (ws / "inside.txt").exists()
    assert not outside.exists()


async def test_sixty_open_processes_bring_a_warning_to_the_model(scripted_model, tmp_path):
    home, ws = await _engine(tmp_path, scripted_model)
    calls = [
        function_call_item(
            "exec_command",
            {"cmd": "sleep 300", "yield_time_ms": 250, **PLAIN},
            call_id=f"c{i}",
            index=i,
        )
        for i in range(60)
    ]
    scripted_model.enqueue(multi_item_response(calls))
    scripted_model.enqueue(text_response("done", response_id="resp_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("go")
        session = engine.codex.session
        assert session is not None and len(session.processes) == 60
    follow_up = scripted_model.requests[1].body["input"]
    warnings = [
        part["text"]
        for item in follow_up
        if item.get("role") == "user"
        for part in item["content"]
        if "maximum number of unified exec processes" in part.get("text", "")
    ]
    assert warnings == [
        "Warning: The maximum number of unified exec processes you can keep open is 60 and "
        "you currently have 60 processes open. Reuse older processes or close them to prevent "
        "automatic pruning of old processes"
    ]
