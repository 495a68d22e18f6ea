"""Engine requests that need the user: command and patch approvals, MCP tool approvals and
questions, handed to an `ApprovalHooks`.

* A command or patch that needs approval is announced as a pending item when the engine asks,
  then the request goes out (the thread is marked waiting before a command's item starts), as
  the reference server orders them; the engine's begin event later does not announce it twice.
* MCP approvals: the engine asks them as an `exec_approval_request` for the command
  `["mcp", server, tool, arguments]`. Shown as a command they would be a fake `commandExecution`
  item; instead the pending `mcpToolCall` item is announced and the question goes out on that
  item (what the reference server does for MCP tool approvals).
* Subagents' approvals: the engine forwards a child's requests to the root thread under the
  child's task id. They are asked without an item (the root's turn, if one runs, is not where
  the child works) and keyed by that id, so the end of the root's turn does not drop them: a
  child left waiting for an answer nobody was asked for would never finish.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from codex_lsp.api.convert import file_change_diffs
from codex_lsp.api.threads import items
from codex_lsp.api.threads.events.open_items import OpenItems
from codex_lsp.api.threads.events.state import Handler, ThreadState, TurnState
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.turns.items import FileUpdateChange


class ApprovalHooks(Protocol):
    """Where the map sends what needs an answer from the user."""

    # `scope` names the task whose end makes a request moot when that is not the turn shown
    # (a subagent's request is shown under the root's turn but outlives it).
    def ask_exec(
        self, turn_id: str, event: ev.ExecApprovalRequestEvent, *, scope: str | None = None
    ) -> None: ...

    def ask_patch(
        self,
        turn_id: str,
        event: ev.ApplyPatchApprovalRequestEvent,
        diffs: list[FileUpdateChange],
        *,
        scope: str | None = None,
    ) -> None: ...

    def ask_user_input(self, turn_id: str, event: ev.RequestUserInputEvent) -> None: ...

    def ask_mcp_tool(
        self,
        turn_id: str,
        event: ev.ExecApprovalRequestEvent,
        server: str,
        tool: str,
        *,
        scope: str | None = None,
    ) -> None:
        """The engine's approval question for an MCP tool call (an exec approval in form)."""

    def turn_ended(self, turn_id: str) -> None:
        """The turn is over: requests still waiting for the client are moot."""


def mcp_approval_target(
    event: ev.ExecApprovalRequestEvent, servers: frozenset[str]
) -> tuple[str, str, Any] | None:
    """(server, tool, arguments) when `event` asks about an MCP tool call, else None.

    The command form alone could be a real program called `mcp`; naming a configured MCP
    server as well is what tells them apart.
    """
    command = event.command
    if len(command) != 4 or command[0] != "mcp" or command[1] not in servers:
        return None
    try:
        # The engine quotes the arguments as JSON, cut short (with "…") when they are long.
        arguments: Any = json.loads(command[3])
    except ValueError:
        arguments = command[3]
    return command[1], command[2], arguments


class RequestEvents:
    def __init__(
        self,
        state: ThreadState,
        open_items: OpenItems,
        hooks: ApprovalHooks,
        mcp_servers: frozenset[str],
    ) -> None:
        """`mcp_servers` names the thread's configured MCP servers, whose approval requests
        are shown on their `mcpToolCall` item."""
        self._state = state
        self._items = open_items
        self._hooks = hooks
        self._mcp_servers = mcp_servers

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "exec_approval_request": self._exec_approval,
            "apply_patch_approval_request": self._patch_approval,
            "request_user_input": self._request_user_input,
        }

    def _own_turn(self, event: ev.Event) -> TurnState | None:
        """The running turn when `event` is its own, else None (a subagent's request)."""
        turn = self._state.turn
        return turn if turn is not None and event.id == turn.id else None

    def _exec_approval(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecApprovalRequestEvent)
        turn = self._own_turn(event)
        if turn is None:
            self._subagent_request(event)
            return
        target = mcp_approval_target(msg, self._mcp_servers)
        if target is not None:
            server, tool, arguments = target
            invocation = {"server": server, "tool": tool, "arguments": arguments}
            self._items.start_tool(turn, msg.call_id, items.mcp_tool_call(msg.call_id, invocation))
            self._hooks.ask_mcp_tool(turn.id, msg, server, tool)
            return
        self._hooks.ask_exec(turn.id, msg)
        self._items.start_tool(turn, msg.call_id, items.command_pending(msg))

    def _patch_approval(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ApplyPatchApprovalRequestEvent)
        turn = self._own_turn(event)
        if turn is None:
            self._subagent_request(event)
            return
        item = items.file_change(msg.call_id, msg.changes, "inProgress")
        self._items.start_tool(turn, msg.call_id, item)
        self._hooks.ask_patch(turn.id, msg, file_change_diffs(msg.changes))

    def _request_user_input(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.RequestUserInputEvent)
        if self._state.turn is not None:
            self._items.close_streams()
            self._hooks.ask_user_input(self._state.turn.id, msg)

    def _subagent_request(self, event: ev.Event) -> None:
        """A subagent's request, shown under the root thread's running (else latest) turn,
        the one a client knows; the subagent's own task bounds how long it is waited for."""
        msg = event.msg
        shown = self._state.turn_id() or event.id
        if isinstance(msg, ev.ExecApprovalRequestEvent):
            target = mcp_approval_target(msg, self._mcp_servers)
            if target is not None:
                self._hooks.ask_mcp_tool(shown, msg, target[0], target[1], scope=event.id)
            else:
                self._hooks.ask_exec(shown, msg, scope=event.id)
        elif isinstance(msg, ev.ApplyPatchApprovalRequestEvent):
            diffs = file_change_diffs(msg.changes)
            self._hooks.ask_patch(shown, msg, diffs, scope=event.id)
