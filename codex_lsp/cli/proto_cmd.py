"""`codex-lsp proto`: the raw Submission/Event queues as newline-delimited JSON on stdio.

Each stdin line is a `Submission` (`{"id","op"}`); each stdout line an `Event` (`{"id","msg"}`).
A line that is not JSON gets an `error` event; the queue keeps going. EOF ends the session
once the running task has finished (or aborts it, if it waits for an answer).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from codex_lsp.cli.arguments import add_config_arguments


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "proto",
        help="speak the raw SQ/EQ protocol as JSONL on stdio",
        description=(
            'One Submission ({"id", "op"}) per stdin line, one Event ({"id", "msg"}) per stdout '
            'line. The first op must be configure_session, e.g. {"id": "1", "op": {"type": '
            '"configure_session", "cwd": "/path/to/repo"}}; it is answered by a '
            "session_configured event. EOF ends the session."
        ),
    )
    add_config_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from codex_lsp.engine.bootstrap import load_services
    from codex_lsp.store.config_errors import ConfigError

    try:
        services = load_services(profile=args.profile, overrides=args.overrides)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    anyio.run(_serve_and_close, services)
    return 0


async def _serve_and_close(services: Any) -> None:
    try:
        await _serve(services)
    finally:
        if services.http is not None:
            await services.http.aclose()


async def _serve(services: Any) -> None:
    import anyio

    from codex_lsp.engine.codex import Codex
    from codex_lsp.protocol.core.events import ErrorEvent, Event

    async with Codex(services) as codex, anyio.create_task_group() as tg:
        tg.start_soon(_write_events, codex)
        while True:
            line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
            if not line:
                break
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as err:
                codex.emit(
                    Event(
                        id="",
                        msg=ErrorEvent(message=f"invalid JSON: {err.msg} at column {err.colno}"),
                    )
                )
                continue
            await codex.submit_raw(data)
        await _finish(codex)
        codex.end_events()


async def _finish(codex: Any) -> None:
    """Let running work end; with stdin closed nobody can answer an approval or a question,
    so a task that waits for one is aborted instead of keeping the process alive forever."""
    import anyio

    async with anyio.create_task_group() as tg:

        async def abort_when_stuck() -> None:
            while True:
                session = codex.session
                if session is not None and (session.approvals.keys() or session.answers.keys()):
                    await session.abort_task("interrupted")
                await anyio.sleep(0.05)

        tg.start_soon(abort_when_stuck)
        await codex.wait_idle()
        tg.cancel_scope.cancel()


async def _write_events(codex: Any) -> None:
    async for event in codex:
        sys.stdout.write(json.dumps(event.to_wire(), separators=(",", ":")) + "\n")
        sys.stdout.flush()
