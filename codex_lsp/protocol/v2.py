"""The app-server v2 protocol in one place: method registries and the wire helpers.

Each method family declares its requests on a `MethodTable` in its own folder
(`threads/models.py`, `fs/models.py`, ...); this module merges the tables, so a transport can
dispatch on the name alone and never spell a model out.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel

from codex_lsp.protocol.account import models as account
from codex_lsp.protocol.approvals.models import SERVER_REQUESTS
from codex_lsp.protocol.catalog import models as catalog
from codex_lsp.protocol.commands import models as commands
from codex_lsp.protocol.common import dump, dump_json
from codex_lsp.protocol.config import models as config, write as config_write
from codex_lsp.protocol.feedback import models as feedback
from codex_lsp.protocol.file_search import models as file_search
from codex_lsp.protocol.fs import models as fs
from codex_lsp.protocol.initialize import models as initialize
from codex_lsp.protocol.mcp import models as mcp
from codex_lsp.protocol.methods import Method, MethodTable
from codex_lsp.protocol.providers import models as providers
from codex_lsp.protocol.settings import models as settings
from codex_lsp.protocol.threads import (
    attachments as thread_attachments,
    goals as thread_goals,
    models as threads,
    ops as thread_ops,
    read_state,
    search as thread_search,
    sections as thread_sections,
    session_approvals as thread_session_approvals,
)
from codex_lsp.protocol.threads.notifications import SERVER_NOTIFICATIONS
from codex_lsp.protocol.threads.subagents import EXTENSION_NOTIFICATIONS
from codex_lsp.protocol.turns import models as turns, tasks

FAMILIES: tuple[MethodTable, ...] = (
    initialize.METHODS,
    threads.METHODS,
    thread_ops.METHODS,
    read_state.METHODS,
    thread_goals.METHODS,
    thread_search.METHODS,
    thread_sections.METHODS,
    thread_attachments.METHODS,
    thread_session_approvals.METHODS,
    turns.METHODS,
    tasks.METHODS,
    catalog.METHODS,
    config.METHODS,
    config_write.METHODS,
    account.METHODS,
    fs.METHODS,
    file_search.METHODS,
    commands.METHODS,
    mcp.METHODS,
    providers.METHODS,
    settings.METHODS,
    feedback.METHODS,
)
"""Every family's method table; a new family adds its table here."""

METHODS: dict[str, Method[BaseModel, BaseModel]] = {}
"""Client request method -> its `Method` (params and result models, flags)."""

for _family in FAMILIES:
    for _name, _method in _family.requests.items():
        if _name in METHODS:
            raise ValueError(f"{_name} is declared by two families")
        METHODS[_name] = _method
    SERVER_NOTIFICATIONS.update(_family.notifications)

CLIENT_REQUESTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    name: (method.params, method.result) for name, method in METHODS.items()
}
"""Client request method -> (params model, result model)."""

EXTENSION_REQUESTS = frozenset(name for name, method in METHODS.items() if method.extension)
"""Client requests of ours that the reference protocol lacks (see each params model)."""

NO_PARAMS_METHODS = frozenset(name for name, method in METHODS.items() if method.no_params)
"""Methods whose params the client may leave out or send as `null`."""

EXPERIMENTAL_METHODS = frozenset(name for name, method in METHODS.items() if method.experimental)
"""Client requests the reference serves only to clients that opt into its experimental API."""


class UnknownMethodError(KeyError):
    """The method is not one this server implements; answer JSON-RPC -32601."""


def params_model(method: str) -> type[BaseModel]:
    """The params model of a client request `method`."""
    try:
        return METHODS[method].params
    except KeyError:
        raise UnknownMethodError(method) from None


def result_model(method: str) -> type[BaseModel]:
    """The result model of a client request `method`."""
    try:
        return METHODS[method].result
    except KeyError:
        raise UnknownMethodError(method) from None


def parse_params(method: str, raw: Any) -> BaseModel:
    """Validate the params of a client request; raises `pydantic.ValidationError` (-32602).

    Absent or `null` params read as `{}`, which is what the methods that take none expect and
    what gives a precise "field required" error for the methods that do.
    """
    return params_model(method).model_validate({} if raw is None else raw)


@cache
def _all_methods() -> frozenset[str]:
    return frozenset(METHODS) | frozenset(SERVER_NOTIFICATIONS) | frozenset(SERVER_REQUESTS)


def notification_model(method: str) -> type[BaseModel] | None:
    """The params model of the server notification `method` (ours included), None if unknown."""
    model = SERVER_NOTIFICATIONS.get(method)
    return model if model is not None else EXTENSION_NOTIFICATIONS.get(method)


def is_known_method(method: str) -> bool:
    """Whether `method` is any v2 request, notification or server request we model."""
    return method in _all_methods()


__all__ = [
    "CLIENT_REQUESTS",
    "EXPERIMENTAL_METHODS",
    "EXTENSION_REQUESTS",
    "FAMILIES",
    "METHODS",
    "NO_PARAMS_METHODS",
    "SERVER_NOTIFICATIONS",
    "SERVER_REQUESTS",
    "UnknownMethodError",
    "dump",
    "dump_json",
    "is_known_method",
    "notification_model",
    "params_model",
    "parse_params",
    "result_model",
]
