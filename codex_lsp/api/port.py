"""The seam between the v2 API and its transports.

`ApiServer` (in `codex_lsp.api.server`) is driven by a front door: the door hands it each client
request as `(method, params)` and gets back the result dict or an `ApiError`. The API talks back
through a `ClientPort` the door provides: notifications, and requests to the client (approvals,
questions) whose answers it awaits. Both go through the port as the v2 params models; the door
alone turns them into JSON, and reads the client's answers into their result models
(`read_answer`). The door also chooses the `Workspace` each thread's engine reads and writes
files through (disk for the app-server, editor buffers for the language server).
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from codex_lsp.engine.editor_context import EditorContext
from codex_lsp.engine.workspace import Workspace
from codex_lsp.protocol.approvals.models import ServerRequestParams

# JSON-RPC error codes the API raises; doors put them on the wire as they are.
from codex_lsp.protocol.jsonrpc import (
    INTERNAL_ERROR as INTERNAL_ERROR,
    INVALID_PARAMS as INVALID_PARAMS,
    INVALID_REQUEST as INVALID_REQUEST,
    METHOD_NOT_FOUND as METHOD_NOT_FOUND,
    PARSE_ERROR as PARSE_ERROR,
)

SERVING_REQUEST: ContextVar[int | str | None] = ContextVar("serving_request", default=None)
"""The JSON-RPC id of the client request being served, for the methods that name another
request of the same client (a search's cancellation); the door sets it through `ApiServer`."""


class ApiError(Exception):
    """A request that failed; `code` and `message` go back to the client verbatim."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


Answer = TypeVar("Answer", bound=BaseModel)


class ClientPort(Protocol):
    """What the API needs from the door it is served through."""

    def notify(self, method: str, params: BaseModel) -> None:
        """Send a v2 notification (`turn/started`, `item/agentMessage/delta`, ...); `params`
        is the model `protocol.v2.notification_model(method)` names."""

    async def request(
        self, method: str, params: ServerRequestParams, answer: type[Answer]
    ) -> Answer:
        """Send a v2 server request (`item/commandExecution/requestApproval`, ...) and
        return the client's result read as `answer`. Raise `ApiError` if the client answered
        with an error, or with a result `answer` cannot read (see `read_answer`)."""

    def workspace_for(self, cwd: Path) -> Workspace:
        """The Workspace a thread rooted at `cwd` reads and writes through."""

    def backlog(self) -> int:
        """Messages written but not yet taken by the client: how far behind it reads (0 for a
        door that writes at once). While it is high, live command output is summarised."""

    async def drained(self) -> None:
        """Return once the client has caught up enough to send more: the model's stream
        waits on it, so a slow client paces the engine instead of growing a queue."""


@runtime_checkable
class EditorContextSource(Protocol):
    """A door whose client is an editor that answers questions about itself (open buffers,
    selection, diagnostics) also provides this; its threads get the `editor_*` tools."""

    def editor_context(self) -> EditorContext | None:
        """The editor to ask, or None when the client did not offer to answer."""


def read_answer(method: str, result: object, answer: type[Answer]) -> Answer:
    """The client's result of the server request `method`, read as `answer`.

    A result that does not fit is the client's error, not ours: `ApiError` says where it is
    wrong, without echoing what the client sent.
    """
    try:
        return answer.model_validate(result)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc']) or 'result'}: {problem['msg']}"
            for problem in err.errors(include_url=False, include_input=False)
        )
        raise ApiError(
            INVALID_PARAMS, f"the client's answer to {method} is malformed: {problems}"
        ) from None
