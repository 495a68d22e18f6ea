"""The sandbox as the model meets it: denied escapes come back as tool output, and a kernel
without the sandbox is never a silent downgrade."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading

from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

NO_TMP = "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
# Allowed work: build and run a program in the workspace, read a system file, write a file.
BUILD_AND_RUN = (
    "cc -x c - -o hello <<'EOF'\n#include <stdio.h>\nint main(){puts(\"built\");}\nEOF\n"
    "./hello && head -1 /etc/passwd && echo ok > allowed.txt"
)
DENIED = ("permission denied", "read-only file system", "operation not permitted")


def _tool_outputs(scripted_model) -> list[str]:
    """Every tool output the model has been sent, in order (the last request holds them all)."""
    last = scripted_model.requests[-1].body
    return [i["output"] for i in last["input"] if i["type"] == "function_call_output"]


def _listener() -> tuple[socket.socket, int, list[bytes]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[bytes] = []

    def accept() -> None:
        try:
            conn, _ = server.accept()
            received.append(conn.recv(100))
            conn.close()
        except OSError:
            pass

    threading.Thread(target=accept, daemon=True).start()
    return server, server.getsockname()[1], received


async def test_escapes_are_denied_and_the_model_reads_why(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    server, port, received = _listener()
    attempts = [
        f"echo x > {outside}/abs.txt",
        "echo x > ../outside/rel.txt",
        "echo x > link/through-symlink.txt",
        "echo x > .git/hooks/pre-commit",
        f"bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}'",
        f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}))\"",
        f"sh -c 'echo x | tee {outside}/pipeline.txt'",
    ]
    for index, command in enumerate(attempts):
        scripted_model.enqueue(
            function_call_response("exec_command", {"cmd": command}, call_id=f"c{index}")
        )
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": BUILD_AND_RUN},
            call_id="allowed",
        )
    )
    scripted_model.enqueue(text_response("tried everything"))
    write_config(home, scripted_model.base_url, approval_policy="never", extra=NO_TMP)
    try:
        async with running_engine(home) as engine:
            await engine.configure(cwd=str(ws))
            await engine.run_turn("try to escape")
    finally:
        server.close()

    outputs = _tool_outputs(scripted_model)
    assert len(outputs) == len(attempts) + 1
    for command, output in zip(attempts, outputs, strict=False):
        assert "Process exited with code 0" not in output, (command, output)
        lowered = output.lower()
        assert any(word in lowered for word in DENIED), (command, output)
    assert list(outside.iterdir()) == []
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert received == []
    allowed = outputs[-1]
    assert "Process exited with code 0" in allowed
    assert "built" in allowed and "root:" in allowed
    assert (ws / "allowed.txt").read_text() == "ok\n"


def test_a_kernel_without_landlock_is_a_warning_and_a_refusal(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(function_call_response("exec_command", {"cmd": "touch made.txt"}))
    scripted_model.enqueue(text_response("could not run it"))
    env = {**os.environ, "CODEX_HOME": str(home), "CODEX_LSP_SANDBOX_DISABLE": "landlock"}
    result = subprocess.run(
        [sys.executable, "-m", "codex_lsp", "exec", "--raw-events", "-C", str(ws), "touch a file"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    events = [json.loads(line)["msg"] for line in result.stdout.splitlines()]
    warnings = [e["message"] for e in events if e["type"] == "warning"]
    assert any("landlock" in w.lower() for w in warnings), warnings
    # Said once, as the session starts: before the model has run anything.
    kinds = [e["type"] for e in events]
    assert kinds.index("warning") < kinds.index("task_started"), kinds
    assert len(warnings) == 1, warnings
    assert not (ws / "made.txt").exists()
    assert "refused" in _tool_outputs(scripted_model)[0]

    # Choosing danger-full-access is the user's explicit way to run without a sandbox.
    scripted_model.enqueue(function_call_response("exec_command", {"cmd": "touch made.txt"}))
    scripted_model.enqueue(text_response("done"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "codex_lsp",
            "exec",
            "--json",
            "-s",
            "danger-full-access",
            "-C",
            str(ws),
            "touch a file",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert (ws / "made.txt").exists()
