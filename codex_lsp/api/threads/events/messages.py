"""Messages and reasoning: the user's input as a `userMessage` item, the model's answer as an
`agentMessage` streamed by deltas, its reasoning as a `reasoning` item.

The user's own input is shown as the client sent it (`expect_turn`, `expect_steer` on the
map), else rebuilt from the engine's event.
"""

from __future__ import annotations

from collections.abc import Mapping

from codex_lsp.api.convert import user_input_from_event
from codex_lsp.api.threads import items
from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.open_items import OpenItems
from codex_lsp.api.threads.events.state import Handler, ThreadState, TurnState
from codex_lsp.api.threads.events.streams import MessageStream, ReasoningStream
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.notifications import AgentMessageDeltaNotification
from codex_lsp.store.home import new_thread_id


class MessageEvents:
    def __init__(self, state: ThreadState, notifier: Notifier, open_items: OpenItems) -> None:
        self._state = state
        self._notifier = notifier
        self._items = open_items

    def handlers(self) -> Mapping[str, Handler]:
        # `agent_message_delta` is not here: the map calls `message_delta` directly, as the
        # hot path (most events are text deltas).
        return {
            "user_message": self._user_message,
            "agent_message": self._agent_message,
            "agent_reasoning_delta": self._reasoning_event,
            "agent_reasoning_section_break": self._reasoning_event,
            "agent_reasoning_raw_content_delta": self._reasoning_event,
            "agent_reasoning": self._reasoning_event,
            "agent_reasoning_raw_content": self._reasoning_event,
        }

    def message_delta(self, msg: ev.AgentMessageDeltaEvent) -> None:
        turn = self._state.turn
        if turn is None:
            return
        stream = turn.message
        if stream is None or turn.reasoning is not None or not stream.owns(msg.item_id):
            stream = self._open_message(turn, msg.item_id)
        stream.parts.append(msg.delta)
        self._notifier.send(
            "item/agentMessage/delta",
            AgentMessageDeltaNotification(
                thread_id=self._state.thread_id, turn_id=turn.id, item_id=stream.id, delta=msg.delta
            ),
        )

    def _user_message(self, event: ev.Event) -> None:
        content = self._state.inputs.pop(event.id, None)
        steered = self._state.steered.get(event.id)
        if content is None and steered:
            content = steered.pop(0)
        if content is None:
            content = user_input_from_event(event.msg.model_dump())
        # UUIDv7 like the reference server's: unique, ordered by when the input arrived.
        self._items.instant(items.user_message(new_thread_id(), content))

    def _open_message(self, turn: TurnState, engine_id: str | None) -> MessageStream:
        """The message stream `engine_id` belongs to, opening (and announcing) it if needed."""
        stream = turn.message
        if stream is not None and stream.owns(engine_id):
            self._items.close_reasoning()
            return stream
        self._items.close_streams()
        stream = turn.message = MessageStream(self._state.new_id("msg", engine_id), engine_id)
        self._notifier.item_started(stream.item(), stream.started_ms)
        return stream

    def _agent_message(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.AgentMessageEvent)
        turn = self._state.turn
        if turn is None:
            return
        stream = self._open_message(turn, msg.item_id)
        # The finished message is authoritative over the concatenated deltas.
        stream.final, stream.phase = msg.message, msg.phase
        turn.message = None
        item = stream.item()
        turn.last_message = item
        self._notifier.item_completed(item)

    def _reasoning_event(self, event: ev.Event) -> None:
        turn = self._state.turn
        if turn is None:
            return
        if turn.reasoning is None:
            self._items.close_streams()
            turn.reasoning = ReasoningStream(self._state.new_id("rs"))
            self._notifier.item_started(turn.reasoning.item(), turn.reasoning.started_ms)
        for method, params in turn.reasoning.apply(event.msg, self._state.thread_id, turn.id):
            self._notifier.send(method, params)
