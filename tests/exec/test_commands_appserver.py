"""The commands family through `codex-lsp app-server`: `command/exec` (buffered, streamed, on a
PTY; written to, resized, terminated), and `thread/shellCommand`."""

from __future__ import annotations

import base64
import os
import time
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.protocol import v2
from tests.support.appserver import AppServerClient, app_server, make_home
from tests.support.schema_check import SchemaChecker, TranscriptChecker
from tests.support.scripted_builders import function_call_response, text_response

NO_TMP = "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
# The user's shell for commands typed into a thread: plain sh keeps the test machine's login
# profile (and whatever it does) out of the outputs.
PLAIN_SHELL = {"SHELL": "/bin/sh"}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def streamed(client: AppServerClient, process_id: str, stream: str = "stdout") -> bytes:
    return b"".join(
        base64.b64decode(n["params"]["deltaBase64"])
        for n in client.notifications("command/exec/outputDelta", processId=process_id)
        if n["params"]["stream"] == stream
    )


@pytest.fixture
def server(tmp_path: Path, scripted_model):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=NO_TMP)
    with app_server(home, ws, env=PLAIN_SHELL) as client:
        yield client
    # Every message both ways fits the reference schema (errors included).
    checker = TranscriptChecker(SchemaChecker(), forbid_jsonrpc_from_server=True)
    assert checker.feed_all(_stable(client.transcript)) == []


def _stable(transcript: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The transcript without experimental requests (absent from the stable schema) and their
    responses."""
    experimental = {
        m["id"]
        for who, m in transcript
        if who == "client" and m.get("method") in v2.EXPERIMENTAL_METHODS
    }
    return [
        (who, m)
        for who, m in transcript
        if m.get("id") not in experimental or (who == "server" and "method" in m)
    ]


def test_a_buffered_command_returns_both_streams_and_its_exit_code(server: AppServerClient):
    result = server.result(
        "command/exec", {"command": ["sh", "-c", "echo out; echo err >&2; exit 3"]}
    )
    assert result == {"exitCode": 3, "stdout": "out\n", "stderr": "err\n"}


def test_the_working_directory_and_environment_are_the_clients(
    server: AppServerClient, tmp_path: Path
):
    result = server.result(
        "command/exec",
        {
            "command": ["sh", "-c", 'pwd; echo "$FOO-${HOME:-unset}"'],
            "cwd": str(server.cwd),
            "env": {"FOO": "bar", "HOME": None},
        },
    )
    assert result["stdout"] == f"{server.cwd}\nbar-unset\n"


def test_commands_run_in_the_configured_sandbox(server: AppServerClient, tmp_path: Path):
    outside = tmp_path / "outside.txt"
    result = server.result(
        "command/exec",
        {"command": ["sh", "-c", f"touch inside.txt; touch {outside}"], "cwd": str(server.cwd)},
    )
    assert result["exitCode"] != 0
    assert (server.cwd / "inside.txt").exists()
    assert not outside.exists()
    read_only = server.result(
        "command/exec",
        {
            "command": ["touch", "again.txt"],
            "cwd": str(server.cwd),
            "sandboxPolicy": {"type": "readOnly"},
        },
    )
    assert read_only["exitCode"] != 0 and not (server.cwd / "again.txt").exists()


def test_streamed_output_arrives_before_the_response(server: AppServerClient):
    request = server.request(
        "command/exec",
        {
            "command": ["sh", "-c", "echo out; echo err >&2"],
            "processId": "p1",
            "streamStdoutStderr": True,
        },
    )
    response = server.response(request)
    assert response["result"] == {"exitCode": 0, "stdout": "", "stderr": ""}
    assert streamed(server, "p1") == b"out\n" and streamed(server, "p1", "stderr") == b"err\n"
    answered = server.received.index(response)
    deltas = [
        i for i, m in enumerate(server.received) if m.get("method") == "command/exec/outputDelta"
    ]
    assert deltas and answered > max(deltas)


def test_the_output_cap_keeps_the_first_bytes_and_says_so(server: AppServerClient):
    buffered = server.result(
        "command/exec", {"command": ["printf", "abcdefghij"], "outputBytesCap": 4}
    )
    assert buffered["stdout"] == "abcd"
    server.result(
        "command/exec",
        {
            "command": ["printf", "abcdefghij"],
            "processId": "capped",
            "streamStdoutStderr": True,
            "outputBytesCap": 4,
        },
    )
    deltas = [n["params"] for n in server.notifications("command/exec/outputDelta")]
    assert streamed(server, "capped") == b"abcd"
    assert deltas[-1]["capReached"] is True


def test_stdin_can_be_written_and_closed(server: AppServerClient):
    request = server.request(
        "command/exec",
        {"command": ["cat"], "processId": "cat", "streamStdin": True, "streamStdoutStderr": True},
    )
    write = {"processId": "cat", "deltaBase64": b64(b"hi\n")}
    assert server.result("command/exec/write", write) == {}
    server.wait(lambda m: m.get("method") == "command/exec/outputDelta")
    assert server.result("command/exec/write", {"processId": "cat", "closeStdin": True}) == {}
    assert server.response(request)["result"]["exitCode"] == 0
    assert streamed(server, "cat") == b"hi\n"


def test_a_pty_command_is_typed_into_and_resized(server: AppServerClient):
    request = server.request(
        "command/exec",
        {
            "command": ["bash", "--norc", "--noprofile", "-i"],
            "processId": "term",
            "tty": True,
            "size": {"rows": 10, "cols": 33},
            "env": {"PS1": "$ "},
        },
    )
    server.result("command/exec/write", {"processId": "term", "deltaBase64": b64(b"stty size\n")})
    server.wait(lambda m: b"10 33" in streamed(server, "term"))
    server.result("command/exec/resize", {"processId": "term", "size": {"rows": 50, "cols": 120}})
    server.result(
        "command/exec/write", {"processId": "term", "deltaBase64": b64(b"stty size; exit 7\n")}
    )
    assert server.response(request)["result"] == {"exitCode": 7, "stdout": "", "stderr": ""}
    assert b"50 120" in streamed(server, "term")


def test_terminate_ends_a_running_command(server: AppServerClient):
    request = server.request(
        "command/exec", {"command": ["sleep", "300"], "processId": "s", "streamStdoutStderr": True}
    )
    server.wait(lambda m: m.get("id") == request or _running(server, "s"))
    assert server.result("command/exec/terminate", {"processId": "s"}) == {}
    assert server.response(request)["result"]["exitCode"] == 137


def _running(server: AppServerClient, process_id: str) -> bool:
    answer = server.call(
        "command/exec/resize", {"processId": process_id, "size": {"rows": 1, "cols": 1}}
    )
    return "no active command/exec" not in answer.get("error", {}).get("message", "")


def test_a_timeout_ends_the_command_with_124(server: AppServerClient):
    result = server.result("command/exec", {"command": ["sleep", "300"], "timeoutMs": 200})
    assert result["exitCode"] == 124


@pytest.mark.parametrize(
    ("params", "code", "message"),
    [
        ({"command": []}, -32600, "command must not be empty"),
        (
            {"command": ["cat"], "tty": True},
            -32600,
            "command/exec tty or streaming requires a client-supplied processId",
        ),
        (
            {"command": ["true"], "timeoutMs": 10, "disableTimeout": True},
            -32602,
            "command/exec cannot set both timeoutMs and disableTimeout",
        ),
        (
            {"command": ["true"], "outputBytesCap": 4, "disableOutputCap": True},
            -32602,
            "command/exec cannot set both outputBytesCap and disableOutputCap",
        ),
        (
            {"command": ["true"], "size": {"rows": 3, "cols": 3}},
            -32602,
            "command/exec size requires tty: true",
        ),
        (
            {"command": ["/nonexistent/bin"]},
            -32603,
            "failed to spawn command: No such file or directory (os error 2)",
        ),
    ],
)
def test_bad_requests_are_refused_clearly(
    server: AppServerClient, params: dict[str, Any], code: int, message: str
):
    answer = server.call("command/exec", params)
    assert answer["error"]["code"] == code
    assert answer["error"]["message"] == message
    # The server is still up.
    assert server.result("command/exec", {"command": ["true"]})["exitCode"] == 0


def test_follow_ups_name_the_process_they_cannot_find(server: AppServerClient):
    for method, extra in [
        ("command/exec/write", {"deltaBase64": "eA=="}),
        ("command/exec/resize", {"size": {"rows": 1, "cols": 1}}),
        ("command/exec/terminate", {}),
    ]:
        answer = server.call(method, {"processId": "nope", **extra})
        assert answer["error"] == {
            "code": -32600,
            "message": 'no active command/exec for process id "nope"',
        }


def test_follow_ups_that_do_not_fit_the_command_are_refused(server: AppServerClient):
    request = server.request(
        "command/exec", {"command": ["sleep", "300"], "processId": "p", "streamStdoutStderr": True}
    )
    server.wait(lambda m: m.get("id") == request or _running(server, "p"))
    duplicate = server.call(
        "command/exec", {"command": ["true"], "processId": "p", "streamStdoutStderr": True}
    )
    assert duplicate["error"]["message"] == 'duplicate active command/exec process id: "p"'
    write = server.call("command/exec/write", {"processId": "p", "deltaBase64": "eA=="})
    assert write["error"]["message"] == "stdin streaming is not enabled for this command/exec"
    resize = server.call("command/exec/resize", {"processId": "p", "size": {"rows": 1, "cols": 1}})
    assert resize["error"]["message"] == "failed to resize PTY: process is not attached to a PTY"
    server.result("command/exec/terminate", {"processId": "p"})
    server.response(request)


def test_closing_the_connection_ends_its_commands(tmp_path: Path, scripted_model):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=NO_TMP)
    pidfile = ws / "sleep.pid"
    # Found by its command line afterwards: the sandbox gives the command a PID namespace
    # of its own, so a pid it reports means nothing out here.
    token = f"300.{os.getpid()}{int(time.time() * 1000) % 100000}"
    with app_server(home, ws) as client:
        client.request(
            "command/exec",
            {
                "command": ["sh", "-c", f"echo $$ > {pidfile}; exec sleep {token}"],
                "processId": "bg",
                "streamStdoutStderr": True,
                "disableTimeout": True,
                "cwd": str(ws),
            },
        )
        deadline = time.monotonic() + 30
        while not pidfile.exists() or not pidfile.read_text().strip():
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        assert _alive_with(token)
    assert not _alive_with(token)


def _alive_with(token: str) -> bool:
    """Whether a live (not zombie) process has `token` in its command line."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "cmdline").read_bytes() and not _zombie(
                int(entry.name)
            ):
                return True
        except OSError:
            continue
    return False


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


# -- thread/shellCommand ---------------------------------------------------------------------


def test_a_user_shell_command_is_an_item_of_a_turn_of_its_own(server: AppServerClient):
    thread = server.start_thread(sandbox="workspace-write")
    answer = server.result(
        "thread/shellCommand",
        {"threadId": thread["id"], "command": "echo hi && touch made.txt && echo err >&2; exit 2"},
    )
    assert answer == {}
    started = server.wait_method("turn/started", threadId=thread["id"])
    item = server.wait_method("item/completed", threadId=thread["id"])["params"]["item"]
    done = server.wait_method("turn/completed", threadId=thread["id"])
    assert done["params"]["turn"]["id"] == started["params"]["turn"]["id"]
    assert item["type"] == "commandExecution" and item["source"] == "userShell"
    assert item["command"] == "/bin/sh -lc 'echo hi && touch made.txt && echo err >&2; exit 2'"
    assert (item["status"], item["exitCode"]) == ("failed", 2)
    # (It runs in the user's login shell, whose profile may print first.)
    assert item["aggregatedOutput"].endswith("hi\nerr\n")
    assert item["cwd"] == str(server.cwd)
    assert (server.cwd / "made.txt").exists()
    deltas = server.notifications("item/commandExecution/outputDelta", itemId=item["id"])
    assert "".join(d["params"]["delta"] for d in deltas) == item["aggregatedOutput"]


@pytest.mark.parametrize("sandbox", ["read-only", "workspace-write"])
def test_a_user_shell_command_runs_in_the_threads_sandbox(server: AppServerClient, sandbox: str):
    outside = server.cwd.parent / "outside"
    outside.mkdir()
    thread = server.start_thread(sandbox=sandbox)
    server.result(
        "thread/shellCommand",
        {"threadId": thread["id"], "command": f"touch {outside}/escaped.txt; echo exit=$?"},
    )
    item = server.wait_method("item/completed", threadId=thread["id"])["params"]["item"]
    assert item["source"] == "userShell" and item["aggregatedOutput"].endswith("exit=1\n")
    assert not (outside / "escaped.txt").exists()
    assert list(outside.iterdir()) == []


def test_the_model_reads_the_user_shell_command_next_turn(server: AppServerClient, scripted_model):
    thread = server.start_thread()
    server.result("thread/shellCommand", {"threadId": thread["id"], "command": "echo from-user"})
    server.wait_method("turn/completed", threadId=thread["id"])
    scripted_model.enqueue(text_response("seen"))
    server.run_turn(thread["id"], "what did I run?")
    texts = [
        part["text"]
        for item in scripted_model.requests[-1].body["input"]
        if item.get("role") == "user"
        for part in item["content"]
    ]
    record = next(t for t in texts if t.startswith("<user_shell_command>"))
    assert record.startswith(
        "<user_shell_command>\n<command>\necho from-user\n</command>\n<result>\nExit code: 0\n"
    )
    assert "Output:\n" in record and "from-user\n\n</result>" in record
    assert record.endswith("</result>\n</user_shell_command>")


def test_a_user_shell_command_times_out(server: AppServerClient):
    thread = server.start_thread()
    server.result(
        "thread/shellCommand", {"threadId": thread["id"], "command": "sleep 300", "timeoutMs": 200}
    )
    item = server.wait_method("item/completed", threadId=thread["id"])["params"]["item"]
    assert (item["status"], item["exitCode"]) == ("failed", 124)


def test_a_user_shell_command_needs_a_command_and_a_loaded_thread(server: AppServerClient):
    thread = server.start_thread()
    empty = server.call("thread/shellCommand", {"threadId": thread["id"], "command": " "})
    assert empty["error"] == {"code": -32600, "message": "command must not be empty"}
    unknown = server.call("thread/shellCommand", {"threadId": "nope", "command": "true"})
    assert unknown["error"]["code"] == -32600


def test_cleaning_background_terminals_ends_the_models_processes(
    server: AppServerClient, scripted_model
):
    pidfile = server.cwd / "sleep.pid"
    run = {"cmd": f"echo $$ > {pidfile}; exec sleep 300", "yield_time_ms": 250, "login": False}
    scripted_model.enqueue(function_call_response("exec_command", run, call_id="bg"))
    scripted_model.enqueue(text_response("left it running", response_id="resp_2"))
    thread = server.start_thread()
    server.run_turn(thread["id"], "start something")
    pid = int(pidfile.read_text())
    assert not _zombie(pid)
    answer = server.result("thread/backgroundTerminals/clean", {"threadId": thread["id"]})
    assert answer == {}
    done = server.wait_method("item/completed", threadId=thread["id"])["params"]["item"]
    assert (done["id"], done["status"], done["exitCode"]) == ("bg", "failed", 137)
    assert _zombie(pid)
