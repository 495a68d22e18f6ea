"""The tool half of a thread's event map: commands, patches, searches, MCP calls, plans, usage,
errors and the requests that need the user (review, subagents and MCP approvals are in
`events_extensions`).

A command or patch that needs approval is announced as a pending item when the engine asks,
then the request goes out; the engine's begin event later does not announce it twice. Command
output arrives base64-encoded from the engine and leaves as text, decoded incrementally so a
character split across chunks survives.
"""

from __future__ import annotations

import base64
import codecs
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from codex_lsp.api import items
from codex_lsp.api.convert import (
    DEFAULT_LIMIT_ID,
    file_change_diffs,
    now_ms,
    rate_limits,
    token_usage,
    turn_error,
)
from codex_lsp.api.streams import MessageStream, ReasoningStream
from codex_lsp.protocol import events as ev
from codex_lsp.protocol.v2_account import RateLimitSnapshot
from codex_lsp.protocol.v2_common import dump
from codex_lsp.protocol.v2_items import FileUpdateChange
from codex_lsp.protocol.v2_turns import TurnError
from codex_lsp.store.home import new_thread_id

log = logging.getLogger(__name__)

# The running-items key of the turn's compaction (a turn compacts once at a time).
COMPACTION_KEY = "<compaction>"

_PLAN_STATUS = {"pending": "pending", "in_progress": "inProgress", "completed": "completed"}


class ApprovalHooks(Protocol):
    """Where the map sends what needs an answer from the user."""

    def ask_exec(self, turn_id: str, event: ev.ExecApprovalRequestEvent) -> None: ...

    def ask_patch(
        self, turn_id: str, event: ev.ApplyPatchApprovalRequestEvent, diffs: list[FileUpdateChange]
    ) -> None: ...

    def ask_user_input(self, turn_id: str, event: ev.RequestUserInputEvent) -> None: ...

    def ask_mcp_tool(
        self, turn_id: str, event: ev.ExecApprovalRequestEvent, server: str, tool: str
    ) -> None:
        """The engine's approval question for an MCP tool call (an exec approval in form)."""

    def turn_ended(self, turn_id: str) -> None:
        """The turn is over: requests still waiting for the client are moot."""


def _utf8_decoder() -> Any:
    return codecs.getincrementaldecoder("utf-8")("replace")


@dataclass
class _Running:
    """A command or patch item between `item/started` and `item/completed`."""

    item: Any
    decoder: Any = field(default_factory=_utf8_decoder)


@dataclass
class TurnState:
    id: str
    started_at: int
    started_mono: float
    error: TurnError | None = None
    message: MessageStream | None = None
    reasoning: ReasoningStream | None = None
    running: dict[str, _Running] = field(default_factory=dict)
    last_message: Any = None
    # The turn's aggregated diff as last reported; empty until a patch changed something.
    diff: str = ""


class ToolEventsMixin:
    """Handlers `ThreadEventMap` mixes in; they rely on its plumbing methods."""

    thread_id: str
    _turn: TurnState | None
    _background: dict[str, tuple[str, _Running]]
    _notify: Callable[[str, dict[str, Any]], None]
    _hooks: ApprovalHooks
    _on_rate_limits: Callable[[Any], None] | None
    _started: Callable[..., None]
    _completed: Callable[..., None]
    _instant: Callable[[Any], None]
    _close_streams: Callable[[], None]
    _new_id: Callable[..., str]
    _turn_id: Callable[[], str]
    _report_error: Callable[..., None]
    _update_status: Callable[[], None]
    failed: bool
    _mcp_approval: Callable[[ev.ExecApprovalRequestEvent], bool]
    _subagent_request: Callable[[ev.Event], None]

    def tool_handlers(self) -> dict[str, Callable[[ev.Event], None]]:
        return {
            "exec_approval_request": self._exec_approval,
            "exec_command_begin": self._exec_begin,
            "exec_command_output_delta": self._exec_output,
            "exec_command_end": self._exec_end,
            "terminal_interaction": self._terminal_interaction,
            "apply_patch_approval_request": self._patch_approval,
            "patch_apply_begin": self._patch_begin,
            "patch_apply_end": self._patch_end,
            "web_search_begin": self._web_search_begin,
            "web_search_end": self._web_search_end,
            "mcp_tool_call_begin": self._mcp_begin,
            "mcp_tool_call_end": self._mcp_end,
            "context_compaction_started": self._compaction_started,
            "context_compacted": self._compacted,
            "turn_diff": self._turn_diff,
            "plan_update": self._plan_update,
            "token_count": self._token_count,
            "error": self._error,
            "stream_error": self._stream_error,
            "warning": self._warning,
            "request_user_input": self._request_user_input,
            "thread_name_updated": self._name_updated,
        }

    def _start_running(self, call_id: str, item: Any) -> None:
        """Announce a tool item unless it is already running (announced with its approval)."""
        assert self._turn is not None
        if call_id in self._turn.running:
            return
        self._close_streams()
        self._turn.running[call_id] = _Running(item)
        self._started(item)

    def _end_running(self, call_id: str, item: Any) -> None:
        assert self._turn is not None
        running = self._turn.running.pop(call_id, None)
        if running is None:
            self._close_streams()
        item.started_at_ms = running.item.started_at_ms if running is not None else now_ms()
        self._completed(item)

    def _close_tools(self, *, complete: bool = True) -> None:
        """Whatever is still running when the turn ends did not finish (completed as failed,
        unless `complete` is False: an interrupted turn leaves its items as they were), except
        a process the model left running for later: its item stays open until it exits."""
        assert self._turn is not None
        for call_id in list(self._turn.running):
            running = self._turn.running.pop(call_id)
            if getattr(running.item, "source", None) == "unifiedExecStartup":
                self._background[call_id] = (self._turn.id, running)
                continue
            if not complete:
                continue
            if "status" in type(running.item).model_fields:
                running.item.status = "failed"
            self._completed(running.item)

    def _find_running(self, call_id: str) -> tuple[str, _Running] | None:
        """The open item of `call_id` and the turn it belongs to (this one or an earlier)."""
        turn = self._turn
        if turn is not None and call_id in turn.running:
            return turn.id, turn.running[call_id]
        return self._background.get(call_id)

    # -- commands ---------------------------------------------------------------------------

    def _exec_approval(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecApprovalRequestEvent)
        if self._turn is None or event.id != self._turn.id:
            self._subagent_request(event)
            return
        if self._mcp_approval(msg):
            return
        # The thread is marked waiting before the command's item starts (the request itself
        # follows the item), as the reference server orders them.
        self._hooks.ask_exec(self._turn.id, msg)
        self._start_running(msg.call_id, items.command_pending(msg))

    def _exec_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecCommandBeginEvent)
        if self._turn is not None:
            self._start_running(msg.call_id, items.command_pending(msg))

    def _exec_output(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecCommandOutputDeltaEvent)
        found = self._find_running(msg.call_id)
        if found is None:
            return
        turn_id, running = found
        text = running.decoder.decode(base64.b64decode(msg.chunk))
        if text:
            self._notify(
                "item/commandExecution/outputDelta",
                {
                    "threadId": self.thread_id,
                    "turnId": turn_id,
                    "itemId": msg.call_id,
                    "delta": text,
                },
            )

    def _exec_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExecCommandEndEvent)
        background = self._background.pop(msg.call_id, None)
        if background is not None:
            turn_id, running = background
            item = items.command_finished(msg)
            item.started_at_ms = running.item.started_at_ms
            self._completed(item, turn_id)
        elif self._turn is not None:
            self._end_running(msg.call_id, items.command_finished(msg))

    def _terminal_interaction(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.TerminalInteractionEvent)
        self._notify(
            "item/commandExecution/terminalInteraction",
            {
                "threadId": self.thread_id,
                # The turn the model typed in; the item may have started in an earlier one.
                "turnId": self._turn_id(),
                "itemId": msg.call_id,
                "processId": msg.process_id,
                "stdin": msg.stdin,
            },
        )

    # -- patches ----------------------------------------------------------------------------

    def _patch_approval(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ApplyPatchApprovalRequestEvent)
        if self._turn is None or event.id != self._turn.id:
            self._subagent_request(event)
            return
        self._start_running(msg.call_id, items.file_change(msg.call_id, msg.changes, "inProgress"))
        self._hooks.ask_patch(self._turn.id, msg, file_change_diffs(msg.changes))

    def _patch_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.PatchApplyBeginEvent)
        if self._turn is not None:
            self._start_running(
                msg.call_id, items.file_change(msg.call_id, msg.changes, "inProgress")
            )

    def _patch_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.PatchApplyEndEvent)
        if self._turn is None:
            return
        running = self._turn.running.get(msg.call_id)
        # A declined patch reports no changes of its own; keep the ones the user was shown.
        changes = msg.changes or {}
        item = items.file_change(msg.call_id, changes, msg.status)
        if not changes and running is not None:
            item.changes = running.item.changes
        if msg.stdout:
            self._notify(
                "item/fileChange/outputDelta",
                {
                    "threadId": self.thread_id,
                    "turnId": self._turn.id,
                    "itemId": msg.call_id,
                    "delta": msg.stdout,
                },
            )
        self._end_running(msg.call_id, item)

    # -- other items ------------------------------------------------------------------------

    def _web_search_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.WebSearchBeginEvent)
        if self._turn is not None:
            self._start_running(msg.call_id, items.web_search(msg.call_id, ""))

    def _web_search_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.WebSearchEndEvent)
        if self._turn is not None:
            self._end_running(msg.call_id, items.web_search(msg.call_id, msg.query))

    def _mcp_begin(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.McpToolCallBeginEvent)
        if self._turn is not None:
            self._start_running(msg.call_id, items.mcp_tool_call(msg.call_id, msg.invocation))

    def _mcp_end(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.McpToolCallEndEvent)
        if self._turn is not None:
            item = items.mcp_tool_call(
                msg.call_id,
                msg.invocation,
                result=msg.result,
                error=msg.error,
                duration=msg.duration,
            )
            self._end_running(msg.call_id, item)

    def _compaction_started(self, event: ev.Event) -> None:
        if self._turn is not None:
            self._start_running(COMPACTION_KEY, items.context_compaction(new_thread_id()))

    def _compacted(self, event: ev.Event) -> None:
        if self._turn is None:
            return
        running = self._turn.running.get(COMPACTION_KEY)
        if running is None:  # a compaction that did not announce itself
            self._instant(items.context_compaction(new_thread_id()))
            return
        self._end_running(COMPACTION_KEY, items.context_compaction(running.item.id))

    # -- turn-level notifications -----------------------------------------------------------

    def _turn_diff(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.TurnDiffEvent)
        if self._turn is not None:
            self._turn.diff = msg.unified_diff
        self._send_diff(msg.unified_diff)

    def _send_diff(self, diff: str) -> None:
        params = {"threadId": self.thread_id, "turnId": self._turn_id(), "diff": diff}
        self._notify("turn/diff/updated", params)

    def _plan_update(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.PlanUpdateEvent)
        params: dict[str, Any] = {
            "threadId": self.thread_id,
            "turnId": self._turn_id(),
            "plan": [{"step": p.step, "status": _PLAN_STATUS[p.status]} for p in msg.plan],
        }
        if msg.explanation is not None:
            params["explanation"] = msg.explanation
        self._notify("turn/plan/updated", params)

    def _token_count(self, event: ev.Event) -> None:
        """Usage, then the rate limits as the provider last reported them (an empty snapshot
        when it never did), then the turn's diff again while it has one: the reference
        server's rhythm after every model response."""
        msg = event.msg_as(ev.TokenCountEvent)
        turn_id = self._turn_id()
        if msg.info is not None and turn_id:
            self._notify(
                "thread/tokenUsage/updated",
                {
                    "threadId": self.thread_id,
                    "turnId": turn_id,
                    "tokenUsage": dump(token_usage(msg.info)),
                },
            )
        if msg.rate_limits is not None:
            snapshot = rate_limits(msg.rate_limits)
            if self._on_rate_limits is not None:
                self._on_rate_limits(snapshot)
        else:
            snapshot = RateLimitSnapshot(limit_id=DEFAULT_LIMIT_ID)
        self._notify("account/rateLimits/updated", {"rateLimits": dump(snapshot)})
        if self._turn is not None and self._turn.diff:
            self._send_diff(self._turn.diff)

    def _error(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ErrorEvent)
        turn = self._turn
        if turn is None or event.id != turn.id:
            # An op that failed outside a turn (a stale approval, an empty name): not fatal.
            log.info("thread %s: %s", self.thread_id, msg.message)
            self._notify("warning", {"message": msg.message, "threadId": self.thread_id})
            return
        turn.error = turn_error(msg.message, msg.codex_error_info)
        self.failed = True
        self._update_status()
        self._report_error(turn.error, turn.id, will_retry=False)

    def _stream_error(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.StreamErrorEvent)
        error = turn_error(msg.message, msg.codex_error_info, msg.additional_details)
        self._report_error(error, self._turn_id(), will_retry=True)

    def _warning(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.WarningEvent)
        self._notify("warning", {"message": msg.message, "threadId": self.thread_id})

    def _request_user_input(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.RequestUserInputEvent)
        if self._turn is not None:
            self._close_streams()
            self._hooks.ask_user_input(self._turn.id, msg)

    def _name_updated(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ThreadNameUpdatedEvent)
        params: dict[str, Any] = {"threadId": self.thread_id}
        if msg.thread_name is not None:
            params["threadName"] = msg.thread_name
        self._notify("thread/name/updated", params)
