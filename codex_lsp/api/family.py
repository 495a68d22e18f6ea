"""How a family of v2 methods plugs into the `ApiServer`.

A family module exposes `handlers(ctx) -> {method: handler}`; the server merges each family's
table into its own. `ApiContext` is what a family may use of the server: the loaded threads,
the client, the engine services, ordering help for notifications that must follow a response,
the task group background work runs in, and a place to register cleanup for shutdown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from anyio.abc import TaskGroup
from pydantic import BaseModel

from codex_lsp.api.port import ClientPort
from codex_lsp.engine.services import EngineServices

if TYPE_CHECKING:
    from codex_lsp.api.threads import ThreadManager

Handler = Callable[[Any, dict[str, Any]], Awaitable[BaseModel | None]]
"""A method's handler: its parsed params model and the raw params; returns the result model."""


@dataclass
class ApiContext:
    threads: ThreadManager
    client: ClientPort
    services: Callable[[], EngineServices]
    """The server's engine services (config, home), loaded on first use."""
    after_response: Callable[[str, BaseModel], None]
    """Send a notification once the current request's response is out."""
    after_response_call: Callable[[Callable[[], None]], None]
    host: Callable[[], Awaitable[TaskGroup]]
    """The task group that background work (watchers, searches) runs in."""
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    """Run when the server shuts down, newest first."""
