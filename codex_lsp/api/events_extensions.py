"""The extension half of a thread's event map: review mode, subagents, MCP approvals and
MCP servers' startup.

* Review: `entered_review_mode` / `exited_review_mode` become the `enteredReviewMode` (the hint)
  and `exitedReviewMode` (the rendered review) items. A review whose answer could not be parsed
  still ends the engine's task normally; here it also fails the turn, with the engine's
  explanation as the error, so a client need not read the text to know the review failed.
* Subagents: `subagent_lifecycle` and `agent_inbox` go out as our `subagent/lifecycle` and
  `agent/inbox` notifications, camelCased (`protocol.v2_subagents`).
* Subagents' approvals: the engine forwards a child's requests to the root thread under the
  child's task id. They are asked without an item (the root's turn, if one runs, is not where
  the child works) and keyed by that id, so the end of the root's turn does not drop them: a
  child left waiting for an answer nobody was asked for would never finish.
* MCP approvals: the engine asks them as an `exec_approval_request` for the command
  `["mcp", server, tool, arguments]`. Shown as a command they would be a fake `commandExecution`
  item; instead the pending `mcpToolCall` item is announced and the question goes out as
  `item/tool/requestUserInput` on that item (what the reference server does for MCP tool
  approvals), with the choices `MCP_APPROVAL_OPTIONS`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from codex_lsp.api import items
from codex_lsp.api.convert import file_change_diffs, turn_error
from codex_lsp.api.events_tools import ApprovalHooks, TurnState
from codex_lsp.engine.review.output import CORRECT, INCORRECT
from codex_lsp.protocol import events as ev
from codex_lsp.protocol.events_mcp import McpStartupUpdateEvent
from codex_lsp.protocol.inputs import ReviewOutputEvent
from codex_lsp.protocol.v2_common import dump
from codex_lsp.protocol.v2_mcp import McpServerStatusUpdatedNotification
from codex_lsp.protocol.v2_subagents import AgentInboxNotification, SubagentLifecycleNotification
from codex_lsp.store.home import new_thread_id

# How the engine's review explanation starts when the reviewer's answer was not a review.
FAILED_REVIEW_PREFIX = "The review failed:"


def failed_review_message(output: ReviewOutputEvent | dict[str, Any] | None) -> str | None:
    """The explanation of a review that failed, else None.

    A failed review is the engine's stand-in for an answer it could not parse: no verdict, no
    findings, and an explanation saying so (see `codex_lsp.engine.review`).
    """
    if isinstance(output, dict):  # replayed from a rollout
        try:
            output = ReviewOutputEvent.model_validate(output)
        except ValidationError:
            return None
    if (
        output is None
        or output.overall_correctness in (CORRECT, INCORRECT)
        or output.findings
        or not output.overall_explanation.startswith(FAILED_REVIEW_PREFIX)
    ):
        return None
    return output.overall_explanation


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


class ExtensionEventsMixin:
    """Handlers `ThreadEventMap` mixes in; they rely on its plumbing methods."""

    thread_id: str
    _turn: TurnState | None
    _notify: Callable[[str, dict[str, Any]], None]
    _hooks: ApprovalHooks
    _mcp_servers: frozenset[str]
    _instant: Callable[[Any], None]
    _started: Callable[..., None]
    _completed: Callable[..., None]
    _new_id: Callable[..., str]
    _start_running: Callable[[str, Any], None]
    _report_error: Callable[..., None]

    def extension_handlers(self) -> dict[str, Callable[[ev.Event], None]]:
        return {
            "entered_review_mode": self._entered_review,
            "exited_review_mode": self._exited_review,
            "subagent_lifecycle": self._subagent_lifecycle,
            "agent_inbox": self._agent_inbox,
            "mcp_startup_update": self._mcp_startup,
        }

    # -- review -----------------------------------------------------------------------------

    def _entered_review(self, event: ev.Event) -> None:
        # Review mode is entered before the review's turn starts: the item names that turn.
        msg = event.msg_as(ev.EnteredReviewModeEvent)
        item = items.entered_review(new_thread_id(), msg.user_facing_hint or "")
        self._started(item, turn_id=event.id)
        self._completed(item, turn_id=event.id)

    def _exited_review(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExitedReviewModeEvent)
        turn = self._turn
        if turn is None:
            return
        exited = items.exited_review(new_thread_id(), msg.review_output)
        self._instant(exited)
        # The review text is also the turn's answer, as an agent message.
        answer = items.agent_message(f"msg_{uuid.uuid4().hex}", exited.review)
        self._instant(answer)
        turn.last_message = answer
        failure = failed_review_message(msg.review_output)
        if failure is not None and turn.error is None:
            turn.error = turn_error(failure)
            self._report_error(turn.error, turn.id, will_retry=False)

    # -- MCP servers ------------------------------------------------------------------------

    def _mcp_startup(self, event: ev.Event) -> None:
        msg = event.msg_as(McpStartupUpdateEvent)
        params = McpServerStatusUpdatedNotification(
            thread_id=self.thread_id, name=msg.server, status=msg.state, error=msg.error
        )
        self._notify("mcpServer/startupStatus/updated", dump(params))

    # -- subagents --------------------------------------------------------------------------

    def _subagent_lifecycle(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.SubagentLifecycleEvent)
        params = SubagentLifecycleNotification.model_validate(
            {"thread_id": self.thread_id, **msg.model_dump(exclude={"type"})}
        )
        self._notify("subagent/lifecycle", dump(params))

    def _agent_inbox(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.AgentInboxEvent)
        params = AgentInboxNotification.model_validate(
            {"thread_id": self.thread_id, **msg.model_dump(exclude={"type"})}
        )
        self._notify("agent/inbox", dump(params))

    def _subagent_request(self, event: ev.Event) -> None:
        msg = event.msg
        if isinstance(msg, ev.ExecApprovalRequestEvent):
            target = mcp_approval_target(msg, self._mcp_servers)
            if target is not None:
                self._hooks.ask_mcp_tool(event.id, msg, target[0], target[1])
            else:
                self._hooks.ask_exec(event.id, msg)
        elif isinstance(msg, ev.ApplyPatchApprovalRequestEvent):
            self._hooks.ask_patch(event.id, msg, file_change_diffs(msg.changes))

    # -- MCP approvals ----------------------------------------------------------------------

    def _mcp_approval(self, msg: ev.ExecApprovalRequestEvent) -> bool:
        """Announce the pending `mcpToolCall` and ask about it; False if `msg` is no MCP call."""
        target = mcp_approval_target(msg, self._mcp_servers)
        if target is None or self._turn is None:
            return False
        server, tool, arguments = target
        invocation = {"server": server, "tool": tool, "arguments": arguments}
        self._start_running(msg.call_id, items.mcp_tool_call(msg.call_id, invocation))
        self._hooks.ask_mcp_tool(self._turn.id, msg, server, tool)
        return True
