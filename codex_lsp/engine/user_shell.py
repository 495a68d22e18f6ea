"""A command line the user typed into the thread (`run_user_shell_command`).

It runs in the user's shell in the thread's working directory, inside the thread's sandbox like
a command of the model's: a line typed into the chat may well be one the model suggested, and
the sandbox is the promise that nothing run in a thread reaches past its writable roots (the
reference server runs it unsandboxed). The client sees it as a command
item with source `user_shell`, in a turn of its own when none is running, or inside the running
turn otherwise (which it does not disturb). The model reads it on its next turn as a
`<user_shell_command>` message with the command and its result.
"""

from __future__ import annotations

import base64
import time
import uuid

from codex_lsp.engine.command_parse import parse_command
from codex_lsp.engine.exec import ExecOutput, ExecParams, run_exec, truncate_middle
from codex_lsp.engine.history import user_message
from codex_lsp.engine.sandboxing import prepare_command
from codex_lsp.engine.session import RunningTask, Session
from codex_lsp.engine.shell import shell_command_argv
from codex_lsp.protocol.core.events import (
    Duration,
    ErrorEvent,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
    ExecCommandOutputDeltaEvent,
    TaskCompleteEvent,
    TaskStartedEvent,
)
from codex_lsp.sandbox import SandboxUnavailable

__all__ = ["DEFAULT_USER_SHELL_TIMEOUT_MS", "run_user_shell_command", "start_user_shell_command"]

DEFAULT_USER_SHELL_TIMEOUT_MS = 60 * 60 * 1000


def user_shell_record(command: str, output: ExecOutput) -> str:
    """What the model reads of the command on its next turn."""
    text = truncate_middle(output.aggregated_output)
    return (
        "<user_shell_command>\n"
        f"<command>\n{command}\n</command>\n"
        "<result>\n"
        f"Exit code: {output.exit_code}\n"
        f"Duration: {output.duration_s:.4f} seconds\n"
        f"Output:\n{text}\n"
        "</result>\n"
        "</user_shell_command>"
    )


async def run_user_shell_command(
    session: Session, sub_id: str, command: str, timeout_ms: int | None
) -> None:
    """Run `command`, reporting it under `sub_id`, and record it for the model."""
    call_id = str(uuid.uuid4())
    cwd = session.ctx.cwd
    argv = shell_command_argv(command)
    begin = ExecCommandBeginEvent(
        call_id=call_id,
        turn_id=sub_id,
        command=argv,
        cwd=str(cwd),
        parsed_cmd=parse_command(argv),
        source="user_shell",
    )
    session.emit(sub_id, begin)

    def on_output(stream: str, chunk: bytes) -> None:
        session.emit(
            sub_id,
            ExecCommandOutputDeltaEvent(
                call_id=call_id,
                stream="stderr" if stream == "stderr" else "stdout",
                chunk=base64.b64encode(chunk).decode("ascii"),
            ),
        )

    started = time.monotonic()
    try:
        prepared = prepare_command(
            argv,
            policy=session.ctx.sandbox_policy,
            policy_cwd=cwd,
            config=session.services.config,
            codex_home=session.services.codex_home,
            sandboxed=True,
            roots=session.ctx.roots,
        )
        params = ExecParams(
            argv=prepared.argv,
            cwd=cwd,
            env=prepared.env,
            timeout_ms=DEFAULT_USER_SHELL_TIMEOUT_MS if timeout_ms is None else timeout_ms,
            pass_fds=prepared.pass_fds,
        )
        try:
            output = await run_exec(params, on_output=on_output)
        finally:
            prepared.close()
    except (OSError, SandboxUnavailable) as err:
        session.emit(sub_id, ErrorEvent(message=f"failed to run the command: {err}"))
        secs = time.monotonic() - started
        session.emit(
            sub_id,
            ExecCommandEndEvent(
                **begin.model_dump(exclude={"type"}),
                aggregated_output=str(err),
                exit_code=-1,
                duration=Duration(secs=int(secs), nanos=int((secs % 1) * 1e9)),
                status="failed",
            ),
        )
        return
    secs = int(output.duration_s)
    session.emit(
        sub_id,
        ExecCommandEndEvent(
            **begin.model_dump(exclude={"type"}),
            stdout=output.stdout.text(),
            stderr=output.stderr.text(),
            aggregated_output=output.aggregated_output,
            exit_code=output.exit_code,
            duration=Duration(secs=secs, nanos=int((output.duration_s - secs) * 1e9)),
            formatted_output=output.aggregated_output,
            status="completed" if output.exit_code == 0 else "failed",
        ),
    )
    session.record_items([user_message(user_shell_record(command, output))])


async def start_user_shell_command(
    session: Session, sub_id: str, command: str, timeout_ms: int | None
) -> None:
    """Run `command` beside the running turn, or as a turn of its own when none runs."""
    running = session.running_task
    if running is not None:
        session.task_group.start_soon(
            run_user_shell_command, session, running.sub_id, command, timeout_ms
        )
        return

    async def body(sess: Session, task: RunningTask) -> None:
        sess.emit(task.sub_id, TaskStartedEvent(turn_id=task.sub_id, started_at=sess.now()))
        started = time.monotonic()
        await run_user_shell_command(sess, task.sub_id, command, timeout_ms)
        sess.emit(
            task.sub_id,
            TaskCompleteEvent(
                turn_id=task.sub_id,
                completed_at=sess.now(),
                duration_ms=int((time.monotonic() - started) * 1000),
            ),
        )

    await session.start_task(sub_id, "user_shell", body)
