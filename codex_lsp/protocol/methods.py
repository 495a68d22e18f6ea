"""The v2 method table: each client request bound to its params and result models.

A family module declares its methods on its own `MethodTable`:

    METHODS = MethodTable()
    FS_READ_FILE = METHODS.request("fs/readFile", FsReadFileParams, FsReadFileResponse)

and the API binds a handler to the `Method` it got back, so the handler's params and result are
checked against the models (`codex_lsp.api.family.Routes`). `v2` merges the family tables into
the registries the doors, the schema and TypeScript generators, and the scope list read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import BaseModel

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class Method(Generic[P, R]):
    """One client request: its name on the wire, its params and result models."""

    name: str
    params: type[P]
    result: type[R]
    experimental: bool = False
    """Served only to clients that opt into the experimental API, as the reference does."""
    no_params: bool = False
    """The client may leave the params out or send `null`."""
    extension: bool = False
    """Ours: the reference protocol lacks it (see its params model)."""


@dataclass
class MethodTable:
    """One family's client requests and server notifications."""

    requests: dict[str, Method[BaseModel, BaseModel]] = field(default_factory=dict)
    notifications: dict[str, type[BaseModel]] = field(default_factory=dict)

    def request(
        self,
        name: str,
        params: type[P],
        result: type[R],
        *,
        experimental: bool = False,
        no_params: bool = False,
        extension: bool = False,
    ) -> Method[P, R]:
        """Declare the client request `name`; the `Method` a handler is bound to."""
        if name in self.requests:
            raise ValueError(f"{name} is declared twice")
        method = Method(name, params, result, experimental, no_params, extension)
        self.requests[name] = method  # type: ignore[assignment]
        return method

    def notification(self, name: str, params: type[BaseModel]) -> None:
        """Declare the server notification `name` and its params model."""
        self.notifications[name] = params
