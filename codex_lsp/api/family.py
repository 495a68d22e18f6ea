"""How a family of v2 methods plugs into the `ApiServer`.

A family module exposes `handlers(ctx) -> Routes`: each handler bound to the `Method` its
protocol family declared (`codex_lsp.protocol.methods`), so mypy checks the handler's params
and result against the method's models. The server merges every family's routes into its own.
`ApiContext` is what a family may use of the server: the loaded threads,
the client, the engine services, ordering help for notifications that must follow a response,
the task group background work runs in, and a place to register cleanup for shutdown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from anyio.abc import TaskGroup
from pydantic import BaseModel

from codex_lsp.api.port import ClientPort
from codex_lsp.engine.services import EngineServices
from codex_lsp.protocol.account.models import RateLimitSnapshot
from codex_lsp.protocol.methods import Method

if TYPE_CHECKING:
    from codex_lsp.api.threads.manager import ThreadManager

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)

Handler = Callable[[P, dict[str, Any]], Awaitable[R | None]]
"""A method's handler: its parsed params and the params as sent (for a field the model leaves
out); returns the result model, or None for a result without fields."""


class Routes:
    """A family's handlers, each bound to its method."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler[Any, Any]] = {}

    def on(self, method: Method[P, R], handler: Handler[P, R]) -> Routes:
        """Serve `method` with `handler`; one handler per method."""
        if method.name in self.handlers:
            raise ValueError(f"{method.name} has two handlers")
        self.handlers[method.name] = handler
        return self


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
    limit_listeners: list[Callable[[RateLimitSnapshot], None]] = field(default_factory=list)
    """Told each rate-limit snapshot a thread's model reports."""
