"""What a thread's event map remembers between events: the running turn with its open items,
and what outlives a turn (the client's inputs waiting for their turn, item ids already given
out, commands still running after their turn ended)."""

from __future__ import annotations

import codecs
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from codex_lsp.api.threads.events.streams import MessageStream, ReasoningStream
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.turns.items import (
    AgentMessageThreadItem,
    CollabAgentToolCallThreadItem,
    CommandExecutionThreadItem,
    ContextCompactionThreadItem,
    FileChangeThreadItem,
    McpToolCallThreadItem,
    UserInput,
    WebSearchThreadItem,
)
from codex_lsp.protocol.turns.models import TurnError

Handler = Callable[[ev.Event], None]
"""One entry of the map's dispatch table: what one kind of engine event does."""

# The kinds of item that stay open between a begin and an end event.
ToolItem = (
    CommandExecutionThreadItem
    | FileChangeThreadItem
    | McpToolCallThreadItem
    | WebSearchThreadItem
    | ContextCompactionThreadItem
    | CollabAgentToolCallThreadItem
)


def _utf8_decoder() -> codecs.IncrementalDecoder:
    return codecs.getincrementaldecoder("utf-8")("replace")


@dataclass
class Running:
    """A tool item between `item/started` and `item/completed`; a command's output is decoded
    incrementally so a character split across chunks survives."""

    item: ToolItem
    decoder: codecs.IncrementalDecoder = field(default_factory=_utf8_decoder)


@dataclass
class TurnState:
    """The running turn: its streams, its open tool items (by call id) and its outcome so far."""

    id: str
    started_at: int
    started_mono: float
    root_id: str | None = None
    error: TurnError | None = None
    message: MessageStream | None = None
    reasoning: ReasoningStream | None = None
    running: dict[str, Running] = field(default_factory=dict)
    last_message: AgentMessageThreadItem | None = None
    # The turn's aggregated diff as last reported; empty until a patch changed something.
    diff: str = ""


class ThreadState:
    """One thread's memory of its turns."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self.turn: TurnState | None = None
        self.last_turn_id: str | None = None
        # The client's input per turn about to start, and inputs steered into running turns.
        self.inputs: dict[str, list[UserInput]] = {}
        self.steered: dict[str, list[list[UserInput]]] = {}
        # Commands whose process outlived their turn: call id -> (that turn's id, the item).
        self.background: dict[str, tuple[str, Running]] = {}
        # The model failed the latest turn for good.
        self.failed = False
        self._used_ids: set[str] = set()

    @property
    def active_turn_id(self) -> str | None:
        return self.turn.id if self.turn is not None else None

    def turn_id(self) -> str:
        """The running turn's id, else the latest turn's (notices between turns name it)."""
        return self.active_turn_id or self.last_turn_id or ""

    def new_id(self, prefix: str, preferred: str | None = None) -> str:
        """A thread-unique item id: the engine's own when it has not been used yet (scripted and
        local models reuse ids like `msg_1` from one response to the next)."""
        if preferred and preferred not in self._used_ids:
            item_id = preferred
        else:
            item_id = f"{preferred or prefix}_{uuid.uuid4().hex[:12]}"
        self._used_ids.add(item_id)
        return item_id

    def find_running(self, call_id: str) -> tuple[str, Running] | None:
        """The open item of `call_id` and the turn it belongs to (this one or an earlier)."""
        turn = self.turn
        if turn is not None and call_id in turn.running:
            return turn.id, turn.running[call_id]
        return self.background.get(call_id)
