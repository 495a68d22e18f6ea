"""The app-server v2 protocol in one place: method registries and the wire helpers.

The types live in the `v2_*` modules next to this one (`v2_threads.Thread`, `v2_items.ThreadItem`,
...); this module maps each method name to its params and result models, so a transport can
dispatch on the name alone and never spell a model out.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel

from codex_lsp.protocol.v2_account import (
    CancelLoginAccountParams,
    CancelLoginAccountResponse,
    GetAccountParams,
    GetAccountRateLimitsParams,
    GetAccountRateLimitsResponse,
    GetAccountResponse,
    LoginAccountParams,
    LoginAccountResponse,
    LogoutAccountParams,
    LogoutAccountResponse,
)
from codex_lsp.protocol.v2_catalog import (
    ModelListParams,
    ModelListResponse,
    SkillsListParams,
    SkillsListResponse,
)
from codex_lsp.protocol.v2_common import dump, dump_json
from codex_lsp.protocol.v2_config import ConfigReadParams, ConfigReadResponse
from codex_lsp.protocol.v2_families import FAMILIES
from codex_lsp.protocol.v2_initialize import InitializeParams, InitializeResponse
from codex_lsp.protocol.v2_notifications import SERVER_NOTIFICATIONS
from codex_lsp.protocol.v2_requests import SERVER_REQUESTS
from codex_lsp.protocol.v2_subagents import EXTENSION_NOTIFICATIONS
from codex_lsp.protocol.v2_tasks import TurnStartTaskParams
from codex_lsp.protocol.v2_threads import (
    ThreadArchiveParams,
    ThreadArchiveResponse,
    ThreadForkParams,
    ThreadForkResponse,
    ThreadListParams,
    ThreadListResponse,
    ThreadReadParams,
    ThreadReadResponse,
    ThreadResumeParams,
    ThreadResumeResponse,
    ThreadSetNameParams,
    ThreadSetNameResponse,
    ThreadStartParams,
    ThreadStartResponse,
    ThreadUnarchiveParams,
    ThreadUnarchiveResponse,
)
from codex_lsp.protocol.v2_turns import (
    ReviewStartParams,
    ReviewStartResponse,
    TurnInterruptParams,
    TurnInterruptResponse,
    TurnStartParams,
    TurnStartResponse,
)

CLIENT_REQUESTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "initialize": (InitializeParams, InitializeResponse),
    "thread/start": (ThreadStartParams, ThreadStartResponse),
    "thread/resume": (ThreadResumeParams, ThreadResumeResponse),
    "thread/fork": (ThreadForkParams, ThreadForkResponse),
    "thread/list": (ThreadListParams, ThreadListResponse),
    "thread/read": (ThreadReadParams, ThreadReadResponse),
    "thread/archive": (ThreadArchiveParams, ThreadArchiveResponse),
    "thread/unarchive": (ThreadUnarchiveParams, ThreadUnarchiveResponse),
    "thread/name/set": (ThreadSetNameParams, ThreadSetNameResponse),
    "turn/start": (TurnStartParams, TurnStartResponse),
    "turn/startTask": (TurnStartTaskParams, TurnStartResponse),
    "turn/interrupt": (TurnInterruptParams, TurnInterruptResponse),
    "review/start": (ReviewStartParams, ReviewStartResponse),
    "model/list": (ModelListParams, ModelListResponse),
    "config/read": (ConfigReadParams, ConfigReadResponse),
    "skills/list": (SkillsListParams, SkillsListResponse),
    "account/read": (GetAccountParams, GetAccountResponse),
    "account/login/start": (LoginAccountParams, LoginAccountResponse),
    "account/login/cancel": (CancelLoginAccountParams, CancelLoginAccountResponse),
    "account/logout": (LogoutAccountParams, LogoutAccountResponse),
    "account/rateLimits/read": (GetAccountRateLimitsParams, GetAccountRateLimitsResponse),
}
"""Client request method -> (params model, result model)."""

EXTENSION_REQUESTS = frozenset({"turn/startTask"})
"""Client requests of ours that the reference protocol lacks (see each params model)."""

NO_PARAMS_METHODS = frozenset({"account/logout", "account/rateLimits/read"})
"""Methods whose params the client may leave out or send as `null`."""

EXPERIMENTAL_METHODS: frozenset[str] = frozenset()
"""Client requests the reference serves only to clients that opt into its experimental API."""

for _family in FAMILIES:
    CLIENT_REQUESTS.update(_family.REQUESTS)
    EXPERIMENTAL_METHODS |= getattr(_family, "EXPERIMENTAL", frozenset())
    SERVER_NOTIFICATIONS.update(getattr(_family, "NOTIFICATIONS", {}))
    NO_PARAMS_METHODS |= getattr(_family, "NO_PARAMS", frozenset())


class UnknownMethodError(KeyError):
    """The method is not one this server implements; answer JSON-RPC -32601."""


def params_model(method: str) -> type[BaseModel]:
    """The params model of a client request `method`."""
    try:
        return CLIENT_REQUESTS[method][0]
    except KeyError:
        raise UnknownMethodError(method) from None


def result_model(method: str) -> type[BaseModel]:
    """The result model of a client request `method`."""
    try:
        return CLIENT_REQUESTS[method][1]
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
    return frozenset(CLIENT_REQUESTS) | frozenset(SERVER_NOTIFICATIONS) | frozenset(SERVER_REQUESTS)


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
