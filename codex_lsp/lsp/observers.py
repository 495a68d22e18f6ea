"""Typed v2 notifications for the language server's features.

Every v2 notification goes to the editor as `codex/<method>` JSON; the features that also act
on some of them (turn progress, review diagnostics, warnings shown as messages, approval
prompts that show a pending diff) subscribe here by notification model and receive that model,
never the wire dict: the very model the API built and the client port sent, so a
notification is never read back from JSON.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from codex_lsp.protocol.v2 import SERVER_NOTIFICATIONS

logger = logging.getLogger(__name__)

N = TypeVar("N", bound=BaseModel)

# Methods by params model; a model may serve more than one method.
_METHODS: dict[type[BaseModel], list[str]] = {}
for _method, _model in SERVER_NOTIFICATIONS.items():
    _METHODS.setdefault(_model, []).append(_method)


class NotificationObservers:
    """The features told of v2 notifications, each by the notification models it handles."""

    def __init__(self) -> None:
        # Each handler takes the model registered for its method; `on` checks that pairing,
        # which the dict's value type cannot express.
        self._handlers: dict[str, list[Callable[[Any], None]]] = {}

    def on(self, kind: type[N], handler: Callable[[N], None]) -> None:
        """Call `handler` with every notification whose params model is `kind`."""
        methods = _METHODS.get(kind)
        if not methods:
            raise ValueError(f"{kind.__name__} is not the params of a v2 notification")
        for method in methods:
            self._handlers.setdefault(method, []).append(handler)

    def deliver(self, method: str, notification: BaseModel) -> None:
        """Hand a notification that went out to the client to the features watching it."""
        handlers = self._handlers.get(method)
        if not handlers:
            return
        if type(notification) is not SERVER_NOTIFICATIONS[method]:
            # Each handler reads the model registered for the method; another one would be
            # read wrongly. The client already has it: only the features miss it.
            logger.warning(
                "%s came as %s, not its %s",
                method,
                type(notification).__name__,
                SERVER_NOTIFICATIONS[method].__name__,
            )
            return
        for handler in handlers:
            try:
                handler(notification)
            except Exception:
                # One feature's failure must not keep the notification from the others.
                logger.warning("observing %s failed", method, exc_info=True)
