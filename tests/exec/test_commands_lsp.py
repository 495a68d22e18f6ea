"""The commands family through `codex-lsp serve`, as `codex/command/exec` and friends."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.support.engine import write_config
from tests.support.lsp_client import EditorClient, EditorSession
from tests.support.scripted_builders import function_call_response, text_response

NO_TMP = "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"


@pytest.fixture
def home(tmp_path: Path, scripted_model, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The server inherits it: plain sh as the user's shell keeps the test machine's login
    # profile out of the outputs of commands typed into a thread.
    monkeypatch.setenv("SHELL", "/bin/sh")
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url, extra=NO_TMP)
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def _streamed(client: EditorClient, process_id: str) -> bytes:
    return b"".join(
        base64.b64decode(p["deltaBase64"])
        for p in client.notifications("command/exec/outputDelta")
        if p["processId"] == process_id
    )


async def test_a_buffered_command_in_the_sandbox(home, ws, tmp_path):
    outside = tmp_path / "outside.txt"
    async with EditorSession(home, ws) as client:
        result = await client.codex(
            "command/exec",
            {"command": ["sh", "-c", f"echo hi; touch {outside}"], "cwd": str(ws)},
        )
    assert result["stdout"] == "hi\n"
    assert result["exitCode"] != 0 and "outside.txt" in result["stderr"]
    assert not outside.exists()


async def test_a_terminal_typed_into_resized_and_terminated(home, ws):
    async with EditorSession(home, ws) as client:
        running = asyncio.ensure_future(
            client.codex(
                "command/exec",
                {
                    "command": ["bash", "--norc", "--noprofile", "-i"],
                    "processId": "term",
                    "tty": True,
                    "size": {"rows": 12, "cols": 34},
                    "env": {"PS1": "$ "},
                    "cwd": str(ws),
                },
            )
        )
        # Like a terminal panel, type once the shell has shown its prompt.
        await client.wait_until(lambda: b"$ " in _streamed(client, "term"))
        line = base64.b64encode(b"stty size\n").decode()
        await client.codex("command/exec/write", {"processId": "term", "deltaBase64": line})
        await client.wait_until(lambda: b"12 34" in _streamed(client, "term"))
        await client.codex(
            "command/exec/resize", {"processId": "term", "size": {"rows": 40, "cols": 100}}
        )
        await client.codex("command/exec/write", {"processId": "term", "deltaBase64": line})
        await client.wait_until(lambda: b"40 100" in _streamed(client, "term"))
        assert await client.codex("command/exec/terminate", {"processId": "term"}) == {}
        result = await running
    assert result == {"exitCode": 137, "stdout": "", "stderr": ""}


async def test_errors_name_the_problem(home, ws):
    async with EditorSession(home, ws) as client:
        with pytest.raises(JsonRpcException, match="command must not be empty"):
            await client.codex("command/exec", {"command": []})
        with pytest.raises(JsonRpcException, match='no active command/exec for process id "x"'):
            await client.codex("command/exec/terminate", {"processId": "x"})
        assert (await client.codex("command/exec", {"command": ["true"]}))["exitCode"] == 0


async def test_a_user_shell_command_in_a_thread(home, ws):
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        assert (
            await client.codex(
                "thread/shellCommand", {"threadId": thread_id, "command": "echo from-user"}
            )
            == {}
        )
        item = await client.wait_for(
            "item/completed", lambda p: p["item"]["type"] == "commandExecution"
        )
        await client.turn_completed(thread_id)
    assert item["item"]["source"] == "userShell"
    # (It runs in the user's login shell, whose profile may print first.)
    assert item["item"]["aggregatedOutput"].endswith("from-user\n")
    assert item["item"]["status"] == "completed"


async def test_cleaning_background_terminals_ends_the_models_processes(home, ws, scripted_model):
    run = {"cmd": "exec sleep 300", "yield_time_ms": 250, "login": False}
    scripted_model.enqueue(function_call_response("exec_command", run, call_id="bg"))
    scripted_model.enqueue(text_response("left it running", response_id="resp_2"))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "start something")
        started = await client.wait_for("item/started", lambda p: p["item"]["id"] == "bg")
        assert started["item"]["processId"] is not None
        # The turn is over, the process is not: its item is still open.
        assert all(p["item"]["id"] != "bg" for p in client.notifications("item/completed"))
        assert await client.codex("thread/backgroundTerminals/clean", {"threadId": thread_id}) == {}
        done = await client.wait_for("item/completed", lambda p: p["item"]["id"] == "bg")
    assert (done["item"]["status"], done["item"]["exitCode"]) == ("failed", 137)
