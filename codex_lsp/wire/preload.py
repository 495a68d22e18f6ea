"""What a cold door loads once its `initialize` is answered, off the client's critical path.

The first answer needs none of the API or the engine (both doors answer it with the standard
library alone: `appserver/early_initialize.py`, `lsp/early_initialize.py`), and importing them
takes most of a cold start. So once `initialize` is answered, `start` has one background thread
import them, the modules a first request needs before those a first turn needs, while the
client reads the answer and decides what to do. A request that arrives meanwhile waits on
Python's per-module import locks for just the modules it uses, not for the whole list: while
requests are being handled (`handling`), the thread finishes the module it is in and waits.

While the modules load, the cyclic garbage collector runs less often: loading creates hundreds
of thousands of objects that live as long as the process, and every young-generation
collection walks them again (at the usual threshold, a tenth of the loading time; pausing the
collector altogether would save a little more but hold ~10 MB of garbage at the peak). Once
the list is loaded, what was loaded is frozen out of the collector's sight (as in the warm
server), so later collections walk only what sessions create and pause no stream.

The modules are named, not imported, here: this module sits under both doors and imports only
the standard library.
"""

from __future__ import annotations

import gc
import importlib
import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

API_MODULE = "codex_lsp.api.server"
# What every session's first requests use, in the order it needs them: the API and
# `thread/start`, then a turn (the model client and its HTTP stack, the tools). Features only
# some sessions use (review, MCP servers, sign-in) load when first used, not here: loading them
# would cost every session memory and compete with its first turn's stream.
MODULES = (
    API_MODULE,
    "codex_lsp.engine.bootstrap",
    "codex_lsp.engine.codex",
    "codex_lsp.engine.handlers",
    "codex_lsp.engine.context_factory",
    "codex_lsp.model.client",
    "codex_lsp.engine.sampling",
    "codex_lsp.engine.tools.router",
    "anyio.to_thread",
)
# Named in the debug log line written when `initialize` is answered: loading any of these
# before the answer is a regression of the cold start.
HEAVY = (
    "pydantic",
    "httpx",
    "lsprotocol.types",
    "pygls",
    API_MODULE,
    "codex_lsp.engine.codex",
    "codex_lsp.engine.review",
)

# The young generation's threshold while loading (the usual one is 700 allocations).
_LOADING_THRESHOLD = 10_000

_started = threading.Event()
_idle = threading.Condition()
_handling = 0


def loaded_heavy_modules() -> list[str]:
    """Which of `HEAVY` are imported by now."""
    return [name for name in HEAVY if name in sys.modules]


@contextmanager
def handling() -> Iterator[None]:
    """Around a request: background loading waits until no request is being handled."""
    global _handling
    with _idle:
        _handling += 1
    try:
        yield
    finally:
        with _idle:
            _handling -= 1
            _idle.notify_all()


def _load(threshold: tuple[int, int, int]) -> None:
    try:
        for name in MODULES:
            with _idle:
                _idle.wait_for(lambda: _handling == 0)
            try:
                importlib.import_module(name)
            except Exception:  # the request that needs it imports it again and reports the error
                log.exception("loading %s in the background failed", name)
    finally:
        gc.freeze()
        gc.set_threshold(*threshold)
    log.debug("loaded in the background: %d modules", len(sys.modules))


def start() -> None:
    """Start loading `MODULES` in a background thread, collecting less meanwhile (once)."""
    if _started.is_set():
        return
    _started.set()
    threshold = gc.get_threshold()
    gc.set_threshold(_LOADING_THRESHOLD, *threshold[1:])
    threading.Thread(target=_load, args=(threshold,), name="preload", daemon=True).start()
