"""`fs/watch` and `fs/unwatch`: `fs/changed` notifications for a file or a directory tree.

Each watch is a `watchfiles` watcher running in the API's task group. A file is watched through
its directory, so a save that replaces the file (write to a temporary name, then rename) is
still seen, and a file that does not exist yet can be watched until it appears.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import anyio
from watchfiles import awatch

from codex_lsp.api.family import ApiContext
from codex_lsp.api.port import INTERNAL_ERROR, INVALID_REQUEST, ApiError
from codex_lsp.protocol.fs.models import FsChangedNotification, FsWatchResponse

log = logging.getLogger(__name__)

# Changes closer together than this arrive in one notification.
DEBOUNCE_MS = 100


class FsWatches:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx
        self._stops: dict[str, anyio.Event] = {}

    async def watch(self, watch_id: str, path: Path) -> FsWatchResponse:
        if watch_id in self._stops:
            raise ApiError(INVALID_REQUEST, f"watchId already exists: {watch_id}")
        target = Path(os.path.realpath(path))
        directory = target if target.is_dir() else target.parent
        if not directory.is_dir():
            raise ApiError(INTERNAL_ERROR, f"{path}: No such file or directory (os error 2)")
        only = None if target.is_dir() else target
        stop = anyio.Event()
        self._stops[watch_id] = stop
        ready = anyio.Event()
        host = await self._ctx.host()
        host.start_soon(self._run, watch_id, directory, only, stop, ready)
        await ready.wait()
        return FsWatchResponse(path=str(target))

    async def unwatch(self, watch_id: str) -> None:
        stop = self._stops.pop(watch_id, None)
        if stop is not None:
            stop.set()

    async def close(self) -> None:
        for stop in self._stops.values():
            stop.set()
        self._stops.clear()

    async def _run(
        self,
        watch_id: str,
        directory: Path,
        only: Path | None,
        stop: anyio.Event,
        ready: anyio.Event,
    ) -> None:
        try:
            watcher = awatch(
                directory,
                watch_filter=None,  # everything, `.git/HEAD` included
                stop_event=stop,
                debounce=DEBOUNCE_MS,
                step=20,
                recursive=only is None,
                yield_on_timeout=True,
                rust_timeout=200,
            )
            async for changes in watcher:
                ready.set()  # the first (empty) batch says the watcher is running
                paths = sorted({path for _change, path in changes})
                if only is not None:
                    paths = [p for p in paths if Path(p) == only]
                if paths and not stop.is_set():
                    notice = FsChangedNotification(watch_id=watch_id, changed_paths=paths)
                    self._ctx.client.notify("fs/changed", notice)
        except Exception:
            log.exception("watching %s failed", directory)
        finally:
            ready.set()
            if self._stops.get(watch_id) is stop:
                del self._stops[watch_id]
