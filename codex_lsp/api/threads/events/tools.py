"""Tool items: commands, patches, web searches and MCP tool calls, from their begin event to
their end. Command output arrives base64-encoded from the engine and leaves as text."""

from __future__ import annotations

import base64
from collections.abc import Mapping

from codex_lsp.api.threads import items
from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.open_items import OpenItems
from codex_lsp.api.threads.events.state import Handler, ThreadState
from codex_lsp.protocol.commands.models import TerminalInteractionNotification
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.notifications import (
    CommandExecutionOutputDeltaNotification,
    FileChangeOutputDeltaNotification,
)
from codex_lsp.protocol.turns.items import FileChangeThreadItem, ImageViewThreadItem


class ToolEvents:
    def __init__(self, state: ThreadState, notifier: Notifier, open_items: OpenItems) -> None:
        self._state = state
        self._notifier = notifier
        self._items = open_items

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "exec_command_begin": self._exec_begin,
            "exec_command_output_delta": self._exec_output,
            "exec_command_end": self._exec_end,
            "terminal_interaction": self._terminal_interaction,
            "patch_apply_begin": self._patch_begin,
            "patch_apply_end": self._patch_end,
            "web_search_begin": self._web_search_begin,
            "web_search_end": self._web_search_end,
            "mcp_tool_call_begin": self._mcp_begin,
            "mcp_tool_call_end": self._mcp_end,
            "view_image_tool_call": self._view_image,
            "collab_agent_tool_call_begin": self._collab_begin,
            "collab_agent_tool_call_end": self._collab_end,
            "sub_agent_activity": self._sub_agent_activity,
        }

    # -- commands ---------------------------------------------------------------------------

    def _exec_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecCommandBeginEvent)
        if self._state.turn is not None:
            self._items.start_tool(self._state.turn, msg.call_id, items.command_pending(msg))

    def _exec_output(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecCommandOutputDeltaEvent)
        found = self._state.find_running(msg.call_id)
        if found is None:
            return
        turn_id, running = found
        text = running.decoder.decode(base64.b64decode(msg.chunk))
        if text:
            self._notifier.send(
                "item/commandExecution/outputDelta",
                CommandExecutionOutputDeltaNotification(
                    thread_id=self._state.thread_id,
                    turn_id=turn_id,
                    item_id=msg.call_id,
                    delta=text,
                ),
            )

    def _exec_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecCommandEndEvent)
        background = self._state.background.pop(msg.call_id, None)
        if background is not None:
            turn_id, running = background
            item = items.command_finished(msg)
            item.started_at_ms = running.item.started_at_ms
            self._notifier.item_completed(item, turn_id)
        elif self._state.turn is not None:
            self._items.end_tool(self._state.turn, msg.call_id, items.command_finished(msg))

    def _terminal_interaction(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.TerminalInteractionEvent)
        self._notifier.send(
            "item/commandExecution/terminalInteraction",
            TerminalInteractionNotification(
                thread_id=self._state.thread_id,
                # The turn the model typed in; the item may have started in an earlier one.
                turn_id=self._state.turn_id(),
                item_id=msg.call_id,
                process_id=msg.process_id,
                stdin=msg.stdin,
            ),
        )

    # -- patches ----------------------------------------------------------------------------

    def _patch_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.PatchApplyBeginEvent)
        if self._state.turn is not None:
            item = items.file_change(msg.call_id, msg.changes, "inProgress")
            self._items.start_tool(self._state.turn, msg.call_id, item)

    def _patch_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.PatchApplyEndEvent)
        turn = self._state.turn
        if turn is None:
            return
        running = turn.running.get(msg.call_id)
        # A declined patch reports no changes of its own; keep the ones the user was shown.
        changes = msg.changes or {}
        item = items.file_change(msg.call_id, changes, msg.status)
        if not changes and running is not None and isinstance(running.item, FileChangeThreadItem):
            item.changes = running.item.changes
        # What the patch printed, or why it did not land (a refusal, a failed write).
        said = msg.stdout or msg.stderr
        if said:
            self._notifier.send(
                "item/fileChange/outputDelta",
                FileChangeOutputDeltaNotification(
                    thread_id=self._state.thread_id,
                    turn_id=turn.id,
                    item_id=msg.call_id,
                    delta=said,
                ),
            )
        self._items.end_tool(turn, msg.call_id, item)

    # -- searches and MCP tool calls --------------------------------------------------------

    def _web_search_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.WebSearchBeginEvent)
        if self._state.turn is not None:
            item = items.web_search(msg.call_id, "")
            self._items.start_tool(self._state.turn, msg.call_id, item)

    def _web_search_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.WebSearchEndEvent)
        if self._state.turn is not None:
            item = items.web_search(msg.call_id, msg.query)
            self._items.end_tool(self._state.turn, msg.call_id, item)

    def _view_image(self, event: ev.Event) -> None:
        """One event for a look at an image: its item starts and completes at once."""
        msg = event.msg_as(ev.ViewImageToolCallEvent)
        if self._state.turn is not None:
            self._items.close_streams()
            item = ImageViewThreadItem(id=msg.call_id, path=msg.path)
            self._notifier.item_started(item)
            self._notifier.item_completed(item.model_copy())

    def _mcp_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.McpToolCallBeginEvent)
        if self._state.turn is not None:
            item = items.mcp_tool_call(msg.call_id, msg.invocation)
            self._items.start_tool(self._state.turn, msg.call_id, item)

    def _mcp_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.McpToolCallEndEvent)
        if self._state.turn is not None:
            item = items.mcp_tool_call(
                msg.call_id,
                msg.invocation,
                result=msg.result,
                error=msg.error,
                duration=msg.duration,
            )
            self._items.end_tool(self._state.turn, msg.call_id, item)

    def _collab_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.CollabAgentToolCallBeginEvent)
        if self._state.turn is not None:
            item = items.collab_agent_tool_call(msg.model_dump())
            self._items.start_tool(self._state.turn, msg.call_id, item)

    def _collab_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.CollabAgentToolCallEndEvent)
        if self._state.turn is not None:
            item = items.collab_agent_tool_call(msg.model_dump())
            self._items.end_tool(self._state.turn, msg.call_id, item)

    def _sub_agent_activity(self, event: ev.Event) -> None:
        """One event for a child's activity: its item starts and completes at once."""
        msg = event.msg_as(ev.SubAgentActivityEvent)
        if self._state.turn is not None:
            self._items.close_streams()
            item = items.sub_agent_activity(msg.model_dump())
            self._notifier.item_started(item)
            self._notifier.item_completed(item.model_copy())
