"""The terminal front doors, run as real processes: `codex-lsp exec` and `codex-lsp proto`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio

from tests.support.engine import enqueue_two_turn_flow, make_git_repo, write_config
from tests.support.scripted_builders import (
    function_call_response,
    http_error,
    text_response,
)

PATCH = '*** Begin Patch\n*** Update File: app.py\n@@\n-print("hi")\n+print("hello")\n*** End Patch'


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "CODEX_HOME": str(home)}


def _exec(home: Path, ws: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codex_lsp", "exec", "-C", str(ws), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=60,
    )


def _seed_flow_one(scripted_model, ws: Path) -> None:
    enqueue_two_turn_flow(
        scripted_model,
        ws,
        command="printf 'built ok\\n' > build.log; cat build.log",
        justification="write the build log",
        patch=PATCH,
        answer="All done: app.py now says hello.",
    )


def test_exec_runs_the_two_turn_flow_with_a_terminal_approval(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})
    write_config(home, scripted_model.base_url)
    _seed_flow_one(scripted_model, ws)

    result = _exec(home, ws, "fix the greeting", stdin="y\n")

    assert result.returncode == 0, result.stderr
    assert "All done: app.py now says hello." in result.stdout
    assert "write the build log" in result.stderr  # the reason was shown when asking
    # The model asked to leave the sandbox, and the prompt says so.
    assert "Run this command OUTSIDE the sandbox?" in result.stderr
    assert (ws / "build.log").read_text() == "built ok\n"
    assert (ws / "app.py").read_text() == 'print("hello")\n'


def test_exec_json_prints_every_event_and_a_denial_reaches_the_model(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})
    write_config(home, scripted_model.base_url)
    _seed_flow_one(scripted_model, ws)

    result = _exec(home, ws, "--json", "fix the greeting", stdin="n\n")

    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [event["msg"]["type"] for event in events]
    assert kinds[0] == "session_configured"
    assert "exec_approval_request" in kinds and kinds[-1] == "task_complete"
    end = next(e["msg"] for e in events if e["msg"]["type"] == "exec_command_end")
    assert end["status"] == "declined"
    assert not (ws / "build.log").exists()
    second = scripted_model.requests[1].body
    outputs = [i["output"] for i in second["input"] if i["type"] == "function_call_output"]
    assert outputs == ["exec command rejected by user"]


def test_exec_fails_with_a_clear_error_when_the_model_keeps_failing(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    for _ in range(12):
        scripted_model.enqueue(http_error(500, {"error": {"message": "upstream exploded"}}))

    result = _exec(home, ws, "hello")

    assert result.returncode == 1
    assert "error:" in result.stderr and "500" in result.stderr


def test_exec_reports_a_bad_config_file_by_file_line_and_key(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('model = "x"\napproval_policy = "sometimes"\n')

    result = _exec(home, tmp_path, "hello")

    assert result.returncode == 2
    assert f"{home / 'config.toml'}:2" in result.stderr and "approval_policy" in result.stderr
    assert "Traceback" not in result.stderr


async def test_proto_interrupt_then_continue_from_the_response_bookmark(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("first answer", response_id="resp_0"))
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": "sleep 60", "workdir": str(ws), "timeout_ms": 120_000},
            call_id="call_sleep",
            response_id="resp_1",
        )
    )
    scripted_model.enqueue(text_response("picked up from the bookmark", response_id="resp_2"))

    proc = await anyio.open_process([sys.executable, "-m", "codex_lsp", "proto"], env=_env(home))
    lines = _LineReader(proc.stdout)

    async def send(obj: dict) -> None:
        await proc.stdin.send((json.dumps(obj) + "\n").encode())

    async def until(kind: str, sub_id: str | None = None) -> dict:
        while True:
            event = json.loads(await lines.next())
            if event["msg"]["type"] == kind and (sub_id is None or event["id"] == sub_id):
                return event

    with anyio.fail_after(60):
        await send({"id": "c", "op": {"type": "configure_session", "cwd": str(ws)}})
        await until("session_configured")
        await proc.stdin.send(b"this is not json\n")
        assert "invalid JSON" in (await until("error"))["msg"]["message"]
        await send(
            {"id": "t0", "op": {"type": "user_input", "items": [{"type": "text", "text": "zero"}]}}
        )
        assert (await until("task_complete", "t0"))["msg"]["response_id"] == "resp_0"
        await send(
            {
                "id": "t1",
                "op": {"type": "user_input", "items": [{"type": "text", "text": "long one"}]},
            }
        )
        await until("exec_command_begin", "t1")
        await send({"id": "i", "op": {"type": "interrupt"}})
        assert (await until("turn_aborted", "t1"))["msg"]["reason"] == "interrupted"
        await send(
            {
                "id": "t2",
                "op": {
                    "type": "user_input",
                    "previous_response_id": "resp_0",
                    "items": [{"type": "text", "text": "go on"}],
                },
            }
        )
        done = await until("task_complete", "t2")
        assert done["msg"]["last_agent_message"] == "picked up from the bookmark"
        await proc.stdin.aclose()
        assert await proc.wait() == 0

    sent = json.dumps(scripted_model.requests[2].body["input"])
    assert "first answer" in sent and "long one" not in sent


class _LineReader:
    def __init__(self, stream) -> None:
        self._stream = stream
        self._buffer = b""

    async def next(self) -> str:
        while b"\n" not in self._buffer:
            self._buffer += await self._stream.receive()
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()


def test_proto_at_eof_aborts_a_task_waiting_for_an_approval(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {
                "cmd": "touch never.txt",
                "workdir": str(ws),
                "sandbox_permissions": "require_escalated",
                "justification": "needs approval",
            },
            call_id="call_ask",
        )
    )
    submissions = [
        {"id": "c", "op": {"type": "configure_session", "cwd": str(ws)}},
        {"id": "t", "op": {"type": "user_input", "items": [{"type": "text", "text": "go"}]}},
    ]
    done = subprocess.run(
        [sys.executable, "-m", "codex_lsp", "proto"],
        input="".join(json.dumps(s) + "\n" for s in submissions),
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=60,
    )
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [event["msg"]["type"] for event in events if event["id"] == "t"]
    assert "exec_approval_request" in kinds and kinds[-1] == "turn_aborted"
    assert done.returncode == 0 and not (ws / "never.txt").exists()


def _doctor(home: Path, *args: str, **env: str) -> tuple[int, dict]:
    result = subprocess.run(
        [sys.executable, "-m", "codex_lsp", "doctor", "--json", *args],
        capture_output=True,
        text=True,
        env={**_env(home), **env},
        timeout=60,
    )
    return result.returncode, json.loads(result.stdout)


def test_doctor_reports_what_a_session_would_use_and_what_is_missing(scripted_model, tmp_path):
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    (home / "local.config.toml").write_text('model_provider = "ollama"\n')
    with (home / "config.toml").open("a") as f:
        f.write('env_key = "SCRIPTED_KEY"\n')

    code, report = _doctor(home)
    assert code == 1 and report["modelProvider"] == "scripted" and report["model"] == "gpt-5.4"
    assert report["envKey"] == "SCRIPTED_KEY" and report["keySource"] is None

    code, report = _doctor(home, SCRIPTED_KEY="sk-secret-value")
    assert code == 0 and report["keySource"] == "env"
    assert "sk-secret-value" not in json.dumps(report)

    code, report = _doctor(home, "--profile", "local")
    assert code == 0 and report["modelProvider"] == "ollama" and not report["keyRequired"]

    (home / "config.toml").write_text('approval_policy = "sometimes"\n')
    code, report = _doctor(home)
    assert code == 1 and "config.toml:1" in report["configError"]


def test_exec_goes_on_past_warnings_that_come_before_the_session(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(
        home, scripted_model.base_url, extra='[mcp_servers.ghost]\ncommand = "/nonexistent/mcp"\n'
    )
    scripted_model.enqueue(text_response("still here"))

    result = _exec(home, ws, "hello")

    assert result.returncode == 0, result.stderr
    assert "ghost" in result.stderr and "still here" in result.stdout
