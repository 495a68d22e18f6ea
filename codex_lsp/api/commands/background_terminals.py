"""`thread/backgroundTerminals/list`, `/terminate` and `/clean`: the processes the model
started with `exec_command` and left running, as a thread's "background terminals".

Ending one (or all) stops its whole process tree; the command's item completes as its watcher
sees it end, as when the model stops it. A client closing a session (the ACP adapter does) lists
them and ends each.
"""

from __future__ import annotations

from typing import Any

from codex_lsp.api.convert import command_string, invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.engine.session import Session
from codex_lsp.engine.unified_exec.store import ProcessEntry
from codex_lsp.protocol.commands.models import (
    THREAD_BACKGROUND_TERMINALS_CLEAN,
    THREAD_BACKGROUND_TERMINALS_LIST,
    THREAD_BACKGROUND_TERMINALS_TERMINATE,
    ThreadBackgroundTerminal,
    ThreadBackgroundTerminalsCleanParams,
    ThreadBackgroundTerminalsCleanResponse,
    ThreadBackgroundTerminalsListParams,
    ThreadBackgroundTerminalsListResponse,
    ThreadBackgroundTerminalsTerminateParams,
    ThreadBackgroundTerminalsTerminateResponse,
)


def _rss_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _terminal(entry: ProcessEntry) -> ThreadBackgroundTerminal:
    running = not entry.process.has_exited
    pid = entry.process.pid if running else None
    return ThreadBackgroundTerminal(
        item_id=entry.call_id,
        process_id=str(entry.process_id),
        command=command_string(entry.command),
        cwd=entry.cwd,
        os_pid=pid,
        rss_kb=_rss_kb(pid) if pid is not None else None,
    )


class BackgroundTerminals:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    def _session(self, thread_id: str) -> Session | None:
        return self._ctx.threads.get(thread_id).codex.session

    async def list(
        self, params: ThreadBackgroundTerminalsListParams, _raw: dict[str, Any]
    ) -> ThreadBackgroundTerminalsListResponse:
        session = self._session(params.thread_id)
        entries = sorted(session.processes, key=lambda e: e.process_id) if session else []
        start = 0
        if params.cursor is not None:
            if not params.cursor.isdigit():
                raise invalid("cursor", f"not a cursor this server gave: {params.cursor!r}")
            start = int(params.cursor)
        end = len(entries) if params.limit is None else start + max(params.limit, 1)
        return ThreadBackgroundTerminalsListResponse(
            data=[_terminal(entry) for entry in entries[start:end]],
            next_cursor=str(end) if end < len(entries) else None,
        )

    async def terminate(
        self, params: ThreadBackgroundTerminalsTerminateParams, _raw: dict[str, Any]
    ) -> ThreadBackgroundTerminalsTerminateResponse:
        session = self._session(params.thread_id)
        if session is None or not params.process_id.isdigit():
            return ThreadBackgroundTerminalsTerminateResponse(terminated=False)
        ended = session.processes.terminate(int(params.process_id))
        return ThreadBackgroundTerminalsTerminateResponse(terminated=ended)

    async def clean(
        self, params: ThreadBackgroundTerminalsCleanParams, _raw: dict[str, Any]
    ) -> ThreadBackgroundTerminalsCleanResponse:
        session = self._session(params.thread_id)
        if session is not None:
            session.processes.terminate_all()
        return ThreadBackgroundTerminalsCleanResponse()


def handlers(ctx: ApiContext) -> Routes:
    terminals = BackgroundTerminals(ctx)
    return (
        Routes()
        .on(THREAD_BACKGROUND_TERMINALS_LIST, terminals.list)
        .on(THREAD_BACKGROUND_TERMINALS_TERMINATE, terminals.terminate)
        .on(THREAD_BACKGROUND_TERMINALS_CLEAN, terminals.clean)
    )
