"""Samples of the commands family's v2 messages, for the schema tests (no tests here)."""

from __future__ import annotations

from pydantic import BaseModel

from codex_lsp.protocol import common as com
from codex_lsp.protocol.commands import models as cmd

COMMAND_CLIENT_SAMPLES: dict[str, list[tuple[BaseModel, BaseModel]]] = {
    "command/exec": [
        (
            cmd.CommandExecParams(command=["ls", "-la"]),
            cmd.CommandExecResponse(exit_code=0, stdout="a\n", stderr=""),
        ),
        (
            cmd.CommandExecParams(
                command=["bash", "-i"],
                process_id="term-1",
                tty=True,
                size=cmd.CommandExecTerminalSize(rows=24, cols=80),
                cwd="/repo",
                env={"TERM": "xterm", "HOME": None},
                disable_timeout=True,
                output_bytes_cap=1024,
                sandbox_policy=com.WorkspaceWriteSandboxPolicy(writable_roots=["/repo"]),
            ),
            cmd.CommandExecResponse(exit_code=137, stdout="", stderr=""),
        ),
    ],
    "command/exec/write": [
        (
            cmd.CommandExecWriteParams(process_id="term-1", delta_base64="aGkK", close_stdin=True),
            cmd.CommandExecWriteResponse(),
        )
    ],
    "command/exec/resize": [
        (
            cmd.CommandExecResizeParams(
                process_id="term-1", size=cmd.CommandExecTerminalSize(rows=50, cols=120)
            ),
            cmd.CommandExecResizeResponse(),
        )
    ],
    "command/exec/terminate": [
        (cmd.CommandExecTerminateParams(process_id="term-1"), cmd.CommandExecTerminateResponse())
    ],
    "thread/shellCommand": [
        (
            cmd.ThreadShellCommandParams(thread_id="t1", command="git status", timeout_ms=5000),
            cmd.ThreadShellCommandResponse(),
        )
    ],
}

COMMAND_NOTIFICATION_SAMPLES: dict[str, list[BaseModel]] = {
    "command/exec/outputDelta": [
        cmd.CommandExecOutputDeltaNotification(
            process_id="term-1", stream="stdout", delta_base64="aGkK", cap_reached=False
        )
    ],
    "item/commandExecution/terminalInteraction": [
        cmd.TerminalInteractionNotification(
            thread_id="t1", turn_id="turn1", item_id="call_1", process_id="41235", stdin="ls\n"
        )
    ],
}
