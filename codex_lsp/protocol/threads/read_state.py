"""Whether the user has read a thread, on the v2 wire: `thread/readState/update` (experimental)
and `thread/readState/changed`, which follows every turn that leaves something to read.

A thread's `ThreadReadState` is its first unread position (null when read) and an opaque
revision; marking a thread names the revision the client saw, and a stale one is refused with
the current state in the error's data.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import V2Model
from codex_lsp.protocol.methods import MethodTable


class ThreadStartUnreadPosition(V2Model):
    type: Literal["threadStart"] = "threadStart"


class TurnUnreadPosition(V2Model):
    type: Literal["turn"] = "turn"
    turn_id: str


ThreadUnreadPosition = TypeAliasType(
    "ThreadUnreadPosition",
    Annotated[ThreadStartUnreadPosition | TurnUnreadPosition, Field(discriminator="type")],
)


class ThreadReadState(V2Model):
    first_unread: ThreadUnreadPosition | None
    revision: str


class ThreadReadStateChangedNotification(V2Model):
    thread_id: str
    read_state: ThreadReadState


class ReadThreadReadStateOperation(V2Model):
    type: Literal["read"] = "read"


class UnreadThreadReadStateOperation(V2Model):
    type: Literal["unread"] = "unread"


ThreadReadStateOperation = TypeAliasType(
    "ThreadReadStateOperation",
    Annotated[
        ReadThreadReadStateOperation | UnreadThreadReadStateOperation,
        Field(discriminator="type"),
    ],
)


class ThreadReadStateUpdateParams(V2Model):
    thread_id: str
    operation: ThreadReadStateOperation
    expected_revision: str


class ThreadReadStateUpdateResponse(V2Model):
    read_state: ThreadReadState


METHODS = MethodTable()
THREAD_READ_STATE_UPDATE = METHODS.request(
    "thread/readState/update",
    ThreadReadStateUpdateParams,
    ThreadReadStateUpdateResponse,
    experimental=True,
)
METHODS.notification("thread/readState/changed", ThreadReadStateChangedNotification)
