"""What the client hears about a unified exec process: begin, output, interactions, end.

`report_process` announces a process as its call's `exec_command_begin` (with its session id),
streams its output as `exec_command_output_delta`s and, from a watcher in the session's task
group, sends `exec_command_end` once it exits (in whatever turn that happens), then forgets it.
"""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING

from codex_lsp.engine.exec import MAX_OUTPUT_DELTAS
from codex_lsp.engine.tools.shell import command_env
from codex_lsp.engine.unified_exec import ProcessEntry, Stream
from codex_lsp.protocol.core.events import (
    Duration,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
    ExecCommandOutputDeltaEvent,
    TerminalInteractionEvent,
)
from codex_lsp.store.config import Config

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session

__all__ = ["UNIFIED_EXEC_ENV", "exec_env", "report_interaction", "report_process"]

# Live output is dropped while the client is this many events behind (the end event has it all).
MAX_EVENT_BACKLOG = 256
# Programs the model drives should print plain text and never wait in a pager.
UNIFIED_EXEC_ENV = {
    "NO_COLOR": "1",
    "TERM": "dumb",
    "LANG": "C.UTF-8",
    "LC_CTYPE": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "COLORTERM": "",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GH_PAGER": "cat",
    "CODEX_CI": "1",
}


def exec_env(config: Config | None = None) -> dict[str, str]:
    """The environment of a process the model starts: ours as the shell environment policy
    shapes it, plus the settings that keep programs non-interactive."""
    env = command_env(config)
    env.update(UNIFIED_EXEC_ENV)
    return env


def report_process(
    session: Session, entry: ProcessEntry, parsed_cmd: list[dict[str, object]]
) -> None:
    """Announce `entry`'s process, stream its output, and report its end when it comes."""
    begin = ExecCommandBeginEvent(
        call_id=entry.call_id,
        turn_id=entry.sub_id,
        command=entry.command,
        cwd=entry.cwd,
        parsed_cmd=parsed_cmd,
        source="unified_exec_startup",
        process_id=str(entry.process_id),
    )
    session.emit(entry.sub_id, begin)
    sent = 0
    skipped = 0

    def on_output(stream: Stream, chunk: bytes) -> None:
        nonlocal sent, skipped
        if sent >= MAX_OUTPUT_DELTAS or session.event_backlog() > MAX_EVENT_BACKLOG:
            skipped += len(chunk)
            return
        if skipped:
            chunk = f"\n[… {skipped} bytes of output not shown …]\n".encode() + chunk
            skipped = 0
        sent += 1
        session.emit(
            entry.sub_id,
            ExecCommandOutputDeltaEvent(
                call_id=entry.call_id,
                stream=stream,
                chunk=base64.b64encode(chunk).decode("ascii"),
            ),
        )

    entry.process.add_listener(on_output)
    session.task_group.start_soon(_watch, session, entry, begin)


async def _watch(session: Session, entry: ProcessEntry, begin: ExecCommandBeginEvent) -> None:
    process = entry.process
    try:
        exit_code = await process.wait()
        # The input that made it exit is reported before its end.
        await entry.quiet.wait()
    finally:
        if session.processes.get(entry.process_id) is entry:
            session.processes.release(entry.process_id)
    ended = process.ended_at or time.monotonic()
    elapsed = max(ended - process.started_at, 0.0)
    secs = int(elapsed)
    transcript = process.transcript()
    aggregated = transcript.text()
    session.emit(
        entry.sub_id,
        ExecCommandEndEvent(
            **begin.model_dump(exclude={"type"}),
            stdout=process.stdout().text(),
            stderr=process.stderr().text(),
            aggregated_output=aggregated,
            exit_code=exit_code,
            duration=Duration(secs=secs, nanos=int((elapsed - secs) * 1e9)),
            formatted_output=aggregated,
            status="completed" if exit_code == 0 else "failed",
        ),
    )
    entry.done.set()


def report_interaction(session: Session, sub_id: str, entry: ProcessEntry, stdin: str) -> None:
    """The model typed `stdin` into `entry`'s process during turn `sub_id`."""
    session.emit(
        sub_id,
        TerminalInteractionEvent(
            call_id=entry.call_id, process_id=str(entry.process_id), stdin=stdin
        ),
    )
