"""The steps scenarios are made of: what a client sends, waits for and answers, and how the
model and the workspace are set up for it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.conformance.servers import Run, thread_start_params
from tests.support.scripted_builders import function_call_response


def text_input(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "text_elements": []}


def start_thread(run: Run, **params: Any) -> str:
    result = run.client.call("thread/start", thread_start_params(run, **params))
    return str(result["thread"]["id"])


def start_turn(run: Run, thread_id: str, text: str, **params: Any) -> str:
    turn = run.client.call(
        "turn/start", {"threadId": thread_id, "input": [text_input(text)], **params}
    )["turn"]
    return str(turn["id"])


def run_turn(run: Run, thread_id: str, text: str, **params: Any) -> dict[str, Any]:
    """Start a turn and wait for `turn/completed`; its params."""
    start_turn(run, thread_id, text, **params)
    done: dict[str, Any] = run.client.wait_method("turn/completed", threadId=thread_id)["params"]
    return done


def answer_request(run: Run, method: str, result: dict[str, Any]) -> dict[str, Any]:
    """Wait for the server's request `method` and answer it; the request."""
    request = run.client.wait(lambda m: m.get("method") == method and "id" in m)
    run.client.answer(request, result)
    return request


def git(repo: Path, *args: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def committed_repo(ws: Path, files: dict[str, str]) -> None:
    git(ws, "init", "-q", "-b", "main")
    for name, text in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "initial")


def shell_call(run: Run, command: str, *, call_id: str = "call_cmd") -> None:
    """The model runs `command` in the workspace with whichever shell tool it is offered."""
    run.model.enqueue_by_tool(
        {
            "exec_command": function_call_response(
                "exec_command", {"cmd": command, "workdir": str(run.ws)}, call_id=call_id
            ),
            "shell_command": function_call_response(
                "shell_command", {"command": command, "workdir": str(run.ws)}, call_id=call_id
            ),
        }
    )
