"""One thread's engine events as v2 notifications.

`ThreadEventMap` follows a thread's Event Queue and tells the client what happened in the v2
vocabulary: `turn/started`, items starting and completing, the deltas in between, usage, diffs,
plans and errors. It keeps just enough per-turn state to give each item one stable id from
`item/started` to `item/completed`, and to close whatever a turn left open when it ends.

Tool items (commands, patches, searches, MCP calls) are mapped by `ToolEventsMixin`, review
mode, subagents and MCP approvals by `ExtensionEventsMixin`; approvals go to an `ApprovalHooks`
right after their pending item is announced, so the client sees `item/started` before the
request, as the reference server sends them.

An interrupted turn ends as the reference server ends one: what was still streaming or running
is left as it was (no `item/completed`), and `turn/completed` lists no items. While the client
waits on `turn/interrupt`, the map holds that ending back (`hold_finish`), so the answer goes
out between the turn's last usage report and its end.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from codex_lsp.api import items
from codex_lsp.api.convert import now_ms, user_input_from_event
from codex_lsp.api.events_extensions import ExtensionEventsMixin
from codex_lsp.api.events_history import HistoryEventsMixin
from codex_lsp.api.events_tools import ApprovalHooks, ToolEventsMixin, TurnState, _Running
from codex_lsp.api.streams import MessageStream, ReasoningStream
from codex_lsp.protocol import events as ev
from codex_lsp.protocol.v2_common import dump
from codex_lsp.protocol.v2_items import UserInput
from codex_lsp.protocol.v2_threads import (
    ActiveThreadStatus,
    IdleThreadStatus,
    SystemErrorThreadStatus,
    ThreadActiveFlag,
)
from codex_lsp.protocol.v2_turns import Turn, TurnStatus
from codex_lsp.store.home import new_thread_id

Notify = Callable[[str, dict[str, Any]], None]

__all__ = ["ApprovalHooks", "Notify", "ThreadEventMap"]


class ThreadEventMap(ToolEventsMixin, ExtensionEventsMixin, HistoryEventsMixin):
    def __init__(
        self,
        thread_id: str,
        notify: Notify,
        hooks: ApprovalHooks,
        on_rate_limits: Callable[[Any], None] | None = None,
        *,
        mcp_servers: frozenset[str] = frozenset(),
    ) -> None:
        """`mcp_servers` names the thread's configured MCP servers, whose approval requests
        are shown on their `mcpToolCall` item."""
        self.thread_id = thread_id
        self._mcp_servers = mcp_servers
        self._notify = notify
        self._hooks = hooks
        self._on_rate_limits = on_rate_limits
        self._turn: TurnState | None = None
        self._last_turn_id: str | None = None
        self._inputs: dict[str, list[UserInput]] = {}
        self._steered: dict[str, list[list[UserInput]]] = {}
        self._used_ids: set[str] = set()
        self._waiting: dict[ThreadActiveFlag, int] = {}
        # Commands whose process outlived their turn: call id -> (that turn's id, the item).
        self._background: dict[str, tuple[str, _Running]] = {}
        self._status: tuple[str, tuple[ThreadActiveFlag, ...]] = ("idle", ())
        # turn/interrupt waiting for the turn to stop: its id, and the event that wakes it.
        self._hold: tuple[str, Any] | None = None
        self.failed = False
        self._held_finish: Callable[[], None] | None = None
        self._handlers: dict[str, Callable[[ev.Event], None]] = {
            "task_started": self._task_started,
            "task_complete": lambda e: self._finish("completed", e.msg),
            "turn_aborted": self._turn_aborted,
            "user_message": self._user_message,
            "agent_message": self._agent_message,
            "agent_reasoning_delta": self._reasoning_event,
            "agent_reasoning_section_break": self._reasoning_event,
            "agent_reasoning_raw_content_delta": self._reasoning_event,
            "agent_reasoning": self._reasoning_event,
            "agent_reasoning_raw_content": self._reasoning_event,
            **self.tool_handlers(),
            **self.extension_handlers(),
            **self.history_handlers(),
        }

    # -- what the API asks of the map -------------------------------------------------------

    @property
    def active_turn_id(self) -> str | None:
        return self._turn.id if self._turn is not None else None

    def expect_turn(self, turn_id: str, content: list[UserInput]) -> None:
        """The client's own input for a turn about to start, shown as its `userMessage`."""
        self._inputs[turn_id] = content

    def expect_steer(self, turn_id: str, content: list[UserInput]) -> None:
        """The client's input steered into running turn `turn_id`, shown when it is sent."""
        self._steered.setdefault(turn_id, []).append(content)

    def forget_steer(self, turn_id: str) -> None:
        """The turn refused the input last announced with `expect_steer`."""
        queued = self._steered.get(turn_id)
        if queued:
            queued.pop()

    def is_expected(self, turn_id: str) -> bool:
        """Whether `turn_id` was submitted and has not begun yet."""
        return turn_id in self._inputs and turn_id != self.active_turn_id

    def status(self) -> ActiveThreadStatus | IdleThreadStatus | SystemErrorThreadStatus:
        kind, flags = self._status
        if kind == "systemError":
            return SystemErrorThreadStatus()
        return (
            IdleThreadStatus() if kind == "idle" else ActiveThreadStatus(active_flags=list(flags))
        )

    def waiting(self, flag: ThreadActiveFlag, delta: int) -> None:
        """An approval or question started (+1) or stopped (-1) waiting on the client."""
        self._waiting[flag] = max(self._waiting.get(flag, 0) + delta, 0)
        self._update_status()

    def hold_finish(self, turn_id: str, stopped: Any) -> None:
        """Keep the end of `turn_id` back when it is interrupted: set `stopped` (an
        `anyio.Event`) instead, until `release_finish` runs (the interrupt's answer is out)."""
        self._hold = (turn_id, stopped)

    def release_finish(self) -> None:
        """Send the held end of an interrupted turn, if there is one."""
        self._hold = None
        finish, self._held_finish = self._held_finish, None
        if finish is not None:
            finish()

    def handle(self, event: ev.Event) -> None:
        msg = event.msg
        if msg.type == "agent_message_delta":  # the hot path: most events are text deltas
            self._message_delta(msg)
            return
        if self._held_finish is not None:  # whatever comes next, the interrupted turn ended
            self.release_finish()
        handler = self._handlers.get(msg.type)
        if handler is not None:
            handler(event)

    # -- plumbing used by both halves ------------------------------------------------------

    def _new_id(self, prefix: str, preferred: str | None = None) -> str:
        """A thread-unique item id: the engine's own when it has not been used yet (scripted and
        local models reuse ids like `msg_1` from one response to the next)."""
        if preferred and preferred not in self._used_ids:
            item_id = preferred
        else:
            item_id = f"{preferred or prefix}_{uuid.uuid4().hex[:12]}"
        self._used_ids.add(item_id)
        return item_id

    def _turn_id(self) -> str:
        return self.active_turn_id or self._last_turn_id or ""

    def _report_error(self, error: Any, turn_id: str, *, will_retry: bool) -> None:
        """The v2 `error` notification for a `TurnError`; final for the turn unless the
        engine will retry."""
        self._notify(
            "error",
            {
                "error": dump(error),
                "willRetry": will_retry,
                "threadId": self.thread_id,
                "turnId": turn_id,
            },
        )

    def _started(self, item: Any, at_ms: int | None = None, *, turn_id: str | None = None) -> None:
        at = at_ms if at_ms is not None else now_ms()
        item.started_at_ms = at
        self._notify(
            "item/started",
            {
                "item": dump(item),
                "threadId": self.thread_id,
                "turnId": turn_id or self._turn_id(),
                "startedAtMs": at,
            },
        )

    def _completed(self, item: Any, turn_id: str | None = None) -> None:
        at = now_ms()
        item.completed_at_ms = at
        self._notify(
            "item/completed",
            {
                "item": dump(item),
                "threadId": self.thread_id,
                "turnId": turn_id or self._turn_id(),
                "contentTokenCount": None,
                "completedAtMs": at,
            },
        )

    def _instant(self, item: Any) -> None:
        """An item that starts and completes at once (user messages, compaction markers)."""
        self._close_streams()
        self._started(item)
        self._completed(item)

    def _update_status(self) -> None:
        if self.failed:
            # The model failed the turn for good: the thread shows it until the next turn.
            status: tuple[str, tuple[ThreadActiveFlag, ...]] = ("systemError", ())
        elif self._turn is None:
            status = ("idle", ())
        else:
            status = ("active", tuple(sorted(flag for flag, n in self._waiting.items() if n > 0)))
        if status != self._status:
            self._status = status
            self._notify(
                "thread/status/changed", {"threadId": self.thread_id, "status": dump(self.status())}
            )

    def _close_reasoning(self) -> None:
        turn = self._turn
        if turn is not None and turn.reasoning is not None:
            item, turn.reasoning = turn.reasoning.item(), None
            self._completed(item)

    def _close_streams(self) -> None:
        """Complete the streaming items: another kind of item is starting."""
        self._close_reasoning()
        turn = self._turn
        if turn is not None and turn.message is not None:
            item, turn.message = turn.message.item(), None
            turn.last_message = item
            self._completed(item)

    # -- turns ------------------------------------------------------------------------------

    def _task_started(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.TaskStartedEvent)
        if self._turn is not None:  # a turn that never reported its end
            self._finish("interrupted", None)
        started_at = msg.started_at or int(time.time())
        self.failed = False
        self._turn = TurnState(id=msg.turn_id, started_at=started_at, started_mono=time.monotonic())
        self._last_turn_id = msg.turn_id
        self._update_status()
        turn = Turn(
            id=msg.turn_id,
            root_turn_id=msg.turn_id,
            status="inProgress",
            started_at=started_at,
            items_view="notLoaded",
        )
        self._notify("turn/started", {"threadId": self.thread_id, "turn": dump(turn)})

    def _turn_aborted(self, event: ev.Event) -> None:
        turn = self._turn
        hold = self._hold
        if turn is not None and hold is not None and hold[0] == turn.id:
            msg = event.msg
            self._held_finish = lambda: self._finish("interrupted", msg)
            hold[1].set()
            return
        self._finish("interrupted", event.msg)

    def _finish(self, status: TurnStatus, msg: Any) -> None:
        turn = self._turn
        if turn is None:
            return
        interrupted = status == "interrupted"
        if not interrupted:
            self._close_streams()
        # An interrupted turn leaves its unfinished items as they were.
        self._close_tools(complete=not interrupted)
        self._steered.pop(turn.id, None)
        if status == "completed" and turn.error is not None:
            status = "failed"
        duration = getattr(msg, "duration_ms", None)
        if duration is None:
            duration = int((time.monotonic() - turn.started_mono) * 1000)
        result = Turn(
            id=turn.id,
            root_turn_id=turn.id,
            # The reference server's "summary" view: the turn's final answer. An interrupted
            # turn has none, and its items are not loaded.
            items=[turn.last_message] if turn.last_message is not None and not interrupted else [],
            items_view="notLoaded" if interrupted else "summary",
            status=status,
            error=turn.error if status == "failed" else None,
            started_at=turn.started_at,
            completed_at=getattr(msg, "completed_at", None) or int(time.time()),
            duration_ms=duration,
        )
        self._inputs.pop(turn.id, None)
        self._turn = None
        self._waiting.clear()
        self._update_status()
        self._notify("turn/completed", {"threadId": self.thread_id, "turn": dump(result)})
        # Requests still out are moot now; the client hears so after the turn's end.
        self._hooks.turn_ended(turn.id)
        hold = self._hold
        if hold is not None and hold[0] == turn.id:  # it ended on its own before stopping
            hold[1].set()

    # -- messages and reasoning -------------------------------------------------------------

    def _user_message(self, event: ev.Event) -> None:
        content = self._inputs.pop(event.id, None)
        steered = self._steered.get(event.id)
        if content is None and steered:
            content = steered.pop(0)
        if content is None:
            content = user_input_from_event(event.msg.model_dump())
        # UUIDv7 like the reference server's: unique, ordered by when the input arrived.
        self._instant(items.user_message(new_thread_id(), content))

    def _open_message(self, engine_id: str | None) -> MessageStream:
        """The message stream `engine_id` belongs to, opening (and announcing) it if needed."""
        assert self._turn is not None
        stream = self._turn.message
        if stream is not None and stream.owns(engine_id):
            self._close_reasoning()
            return stream
        self._close_streams()
        stream = self._turn.message = MessageStream(self._new_id("msg", engine_id), engine_id)
        self._started(stream.item(), stream.started_ms)
        return stream

    def _message_delta(self, msg: ev.AgentMessageDeltaEvent) -> None:
        turn = self._turn
        if turn is None:
            return
        stream = turn.message
        if stream is None or turn.reasoning is not None or not stream.owns(msg.item_id):
            stream = self._open_message(msg.item_id)
        stream.parts.append(msg.delta)
        self._notify(
            "item/agentMessage/delta",
            {
                "threadId": self.thread_id,
                "turnId": turn.id,
                "itemId": stream.id,
                "delta": msg.delta,
            },
        )

    def _agent_message(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.AgentMessageEvent)
        if self._turn is None:
            return
        stream = self._open_message(msg.item_id)
        # The finished message is authoritative over the concatenated deltas.
        stream.final, stream.phase = msg.message, msg.phase
        self._turn.message = None
        item = stream.item()
        self._turn.last_message = item
        self._completed(item)

    def _reasoning_event(self, event: ev.Event) -> None:
        turn = self._turn
        if turn is None:
            return
        if turn.reasoning is None:
            self._close_streams()
            turn.reasoning = ReasoningStream(self._new_id("rs"))
            self._started(turn.reasoning.item(), turn.reasoning.started_ms)
        for method, params in turn.reasoning.apply(event.msg):
            self._notify(method, {"threadId": self.thread_id, "turnId": turn.id, **params})
