"""The escapes as the model would try them: commands sent by a scripted model to a real
`codex-lsp app-server`, under `workspace-write` with approvals `never`, through both shell
tools (`exec_command`, the default, and `shell_command`).

Each test checks what the user would see: the server still answering, nothing of
`$CODEX_HOME` in what reached the model or the rollout, nothing left running.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.sandbox.lifetime import escaping_script, kill_survivors, lock_is_released
from tests.support.appserver import AppServerClient, app_server, make_home
from tests.support.engine import make_git_repo
from tests.support.scripted_builders import function_call_response, text_response

FAKE_KEY = "sk-test-never-leaves-home-42"


# `shell_command` is the tool only when unified exec is off.
SHELL_COMMAND_ONLY = "[features]\nunified_exec = false\n"
TOOLS = pytest.mark.parametrize("tool", ["exec_command", "shell_command"])


def _command(tool: str, script: str, call_id: str, **extra: object) -> object:
    if tool == "exec_command":
        return function_call_response("exec_command", {"cmd": script, **extra}, call_id=call_id)
    return function_call_response("shell_command", {"command": script, **extra}, call_id=call_id)


def _home(scripted_model: object, tmp_path: Path, tool: str, extra: str = "") -> Path:
    if tool == "shell_command":
        extra += SHELL_COMMAND_ONLY
    home, _ = make_home(
        tmp_path,
        scripted_model.base_url,  # type: ignore[attr-defined]
        approval_policy="never",
        extra=extra,
    )
    return home


def _sandboxed_thread(client: AppServerClient) -> str:
    return str(client.start_thread(sandbox="workspace-write")["id"])


def _outputs(client: AppServerClient) -> list[str]:
    return [
        str(m["params"]["item"].get("aggregatedOutput") or "")
        for m in client.received
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "commandExecution"
    ]


@TOOLS
def test_the_server_survives_a_command_that_kills_it(
    scripted_model, tmp_path: Path, tool: str
) -> None:
    home = _home(scripted_model, tmp_path, tool)
    ws = make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    with app_server(home, ws) as client:
        server_pid = client.process.pid
        script = f"kill -9 {server_pid}; echo server=$?; kill -9 $PPID; echo tried"
        scripted_model.enqueue(_command(tool, script, "kill"))
        scripted_model.enqueue(text_response("tried"))
        thread = _sandboxed_thread(client)
        client.run_turn(thread, "kill the server")
        assert "server=1" in _outputs(client)[0]
        assert "tried" in _outputs(client)[0]
        listed = client.result("thread/list", {})
        assert any(entry["id"] == thread for entry in listed["data"])
        assert client.process.poll() is None


@TOOLS
def test_codex_home_never_reaches_the_model_with_the_network_on(
    scripted_model, tmp_path: Path, tool: str
) -> None:
    home = _home(
        scripted_model, tmp_path, tool, "[sandbox_workspace_write]\nnetwork_access = true\n"
    )
    (home / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": FAKE_KEY}))
    (home / "auth.json").chmod(0o600)
    ws = make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    with app_server(home, ws) as client:
        script = 'cat "$CODEX_HOME/auth.json"; ls -a "$CODEX_HOME"; cat ~/.codex-lsp/auth.json'
        scripted_model.enqueue(_command(tool, script, "read"))
        scripted_model.enqueue(text_response("done"))
        thread = _sandboxed_thread(client)
        client.run_turn(thread, "print the credentials")
    sent = json.dumps([request.body for request in scripted_model.requests])
    # The command ran, and what it said about the file went back to the model.
    assert "auth.json: No such file or directory" in sent, sent[-2000:]
    assert FAKE_KEY not in sent
    for rollout in (home / "sessions").rglob("*.jsonl"):
        assert FAKE_KEY not in rollout.read_text()


def test_a_fork_bomb_leaves_the_server_answering(scripted_model, tmp_path: Path) -> None:
    # `shell_command`, whose timeout ends the command (exec_command would keep it running).
    home = _home(scripted_model, tmp_path, "shell_command")
    ws = make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    token = f"bomb-{os.getpid()}-{id(tmp_path)}"
    bomb = f"echo started; b(){{ b | b & }}; b; sleep 600 # {token}"
    try:
        with app_server(home, ws) as client:
            scripted_model.enqueue(_command("shell_command", bomb, "bomb", timeout_ms=8000))
            scripted_model.enqueue(text_response("done"))
            thread = _sandboxed_thread(client)
            client.request(
                "turn/start",
                {
                    "threadId": thread,
                    "input": [{"type": "text", "text": "go", "text_elements": []}],
                },
            )
            client.wait_method("item/commandExecution/outputDelta")
            # While the bomb runs into its limit, the server still answers.
            listed = client.result("thread/list", {})
            assert any(entry["id"] == thread for entry in listed["data"])
            client.wait_method("turn/completed", threadId=thread)
            assert client.process.poll() is None
            # The shell's own word for a refused fork (bash: EAGAIN's text; sh: "Cannot fork").
            output = _outputs(client)[0]
            assert "Resource temporarily unavailable" in output or "Cannot fork" in output
    finally:
        survivors = _mentioning(token)
        kill_survivors(token)
    assert survivors == []


@TOOLS
def test_a_setsid_process_does_not_outlive_its_turn(
    scripted_model, tmp_path: Path, tool: str
) -> None:
    home = _home(scripted_model, tmp_path, tool)
    ws = make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    lock, ready = ws / "holder.lock", ws / "holder.ready"
    lock.touch()
    script = escaping_script("python3", lock, ready, then="exit 0")
    try:
        with app_server(home, ws) as client:
            scripted_model.enqueue(_command(tool, script, "escape"))
            scripted_model.enqueue(text_response("done"))
            thread = _sandboxed_thread(client)
            client.run_turn(thread, "start something in the background")
            assert "ready" in _outputs(client)[0]
            assert lock_is_released(lock), "the setsid'd process outlived the turn"
    finally:
        kill_survivors(str(lock))


def _mentioning(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found
