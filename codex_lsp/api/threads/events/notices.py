"""Notifications that are not items: the turn's diff, plan and usage, errors and warnings, the
thread's name, MCP servers' startup, and subagents' lifecycle and inbox (our `subagent/lifecycle`
and `agent/inbox`, camelCased by `protocol.threads.subagents`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from codex_lsp.api.convert import DEFAULT_LIMIT_ID, rate_limits, token_usage, turn_error
from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.state import Handler, ThreadState
from codex_lsp.api.threads.events.status import StatusTracker
from codex_lsp.protocol.account.models import (
    AccountRateLimitsUpdatedNotification,
    RateLimitSnapshot,
)
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.core.events_mcp import McpStartupUpdateEvent
from codex_lsp.protocol.core.goals import ThreadGoalClearedEvent, ThreadGoalUpdatedEvent
from codex_lsp.protocol.mcp.models import McpServerStatusUpdatedNotification
from codex_lsp.protocol.threads.goals import (
    ThreadGoal,
    ThreadGoalClearedNotification,
    ThreadGoalUpdatedNotification,
)
from codex_lsp.protocol.threads.notifications import (
    ThreadNameUpdatedNotification,
    ThreadTokenUsageUpdatedNotification,
    TurnDiffUpdatedNotification,
    TurnPlanStep,
    TurnPlanStepStatus,
    TurnPlanUpdatedNotification,
)
from codex_lsp.protocol.threads.subagents import (
    AgentInboxNotification,
    SubagentLifecycleNotification,
)
from codex_lsp.protocol.turns.items import PlanThreadItem

log = logging.getLogger(__name__)

_PLAN_STATUS: dict[str, TurnPlanStepStatus] = {
    "pending": "pending",
    "in_progress": "inProgress",
    "completed": "completed",
}


class TurnNotices:
    def __init__(
        self,
        state: ThreadState,
        notifier: Notifier,
        status: StatusTracker,
        on_rate_limits: Callable[[RateLimitSnapshot], None] | None,
    ) -> None:
        self._state = state
        self._notifier = notifier
        self._status = status
        self._on_rate_limits = on_rate_limits

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "turn_diff": self._turn_diff,
            "plan_update": self._plan_update,
            "proposed_plan": self._proposed_plan,
            "token_count": self._token_count,
            "error": self._error,
            "stream_error": self._stream_error,
            "warning": self._warning,
            "thread_name_updated": self._name_updated,
            "thread_goal_updated": self._goal_updated,
            "thread_goal_cleared": self._goal_cleared,
            "mcp_startup_update": self._mcp_startup,
            "subagent_lifecycle": self._subagent_lifecycle,
            "agent_inbox": self._agent_inbox,
        }

    # -- the turn ---------------------------------------------------------------------------

    def _turn_diff(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.TurnDiffEvent)
        if self._state.turn is not None:
            self._state.turn.diff = msg.unified_diff
        self._send_diff(msg.unified_diff)

    def _send_diff(self, diff: str) -> None:
        params = TurnDiffUpdatedNotification(
            thread_id=self._state.thread_id, turn_id=self._state.turn_id(), diff=diff
        )
        self._notifier.send("turn/diff/updated", params)

    def _plan_update(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.PlanUpdateEvent)
        params = TurnPlanUpdatedNotification(
            thread_id=self._state.thread_id,
            turn_id=self._state.turn_id(),
            explanation=msg.explanation,
            plan=[TurnPlanStep(step=p.step, status=_PLAN_STATUS[p.status]) for p in msg.plan],
        )
        self._notifier.send("turn/plan/updated", params)

    def _proposed_plan(self, event: ev.Event) -> None:
        """Plan mode's plan, as one `plan` item (its text arrives whole)."""
        msg = event.msg_as(ev.ProposedPlanEvent)
        self._notifier.item_started(PlanThreadItem(id=msg.item_id, text=""))
        self._notifier.item_completed(PlanThreadItem(id=msg.item_id, text=msg.text))

    def _token_count(self, event: ev.Event) -> None:
        """Usage, then the rate limits as the provider last reported them (an empty snapshot
        when it never did), then the turn's diff again while it has one: the reference
        server's rhythm after every model response."""
        msg = event.msg_as(ev.TokenCountEvent)
        turn_id = self._state.turn_id()
        if msg.info is not None and turn_id:
            usage = ThreadTokenUsageUpdatedNotification(
                thread_id=self._state.thread_id, turn_id=turn_id, token_usage=token_usage(msg.info)
            )
            self._notifier.send("thread/tokenUsage/updated", usage)
        if msg.rate_limits is not None:
            snapshot = rate_limits(msg.rate_limits)
            if self._on_rate_limits is not None:
                self._on_rate_limits(snapshot)
        else:
            snapshot = RateLimitSnapshot(limit_id=DEFAULT_LIMIT_ID)
        self._notifier.send(
            "account/rateLimits/updated", AccountRateLimitsUpdatedNotification(rate_limits=snapshot)
        )
        if self._state.turn is not None and self._state.turn.diff:
            self._send_diff(self._state.turn.diff)

    # -- errors and warnings ----------------------------------------------------------------

    def _error(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ErrorEvent)
        turn = self._state.turn
        if turn is None or event.id != turn.id:
            # An op that failed outside a turn (a stale approval, an empty name): not fatal.
            log.info("thread %s: %s", self._state.thread_id, msg.message)
            self._notifier.warning(msg.message)
            return
        turn.error = turn_error(msg.message, msg.codex_error_info)
        self._state.failed = True
        self._status.update()
        self._notifier.error(turn.error, turn.id, will_retry=False)

    def _stream_error(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.StreamErrorEvent)
        error = turn_error(msg.message, msg.codex_error_info, msg.additional_details)
        self._notifier.error(error, self._state.turn_id(), will_retry=True)

    def _warning(self, event: ev.Event) -> None:
        self._notifier.warning(event.msg_as(ev.WarningEvent).message)

    # -- the thread -------------------------------------------------------------------------

    def _goal_updated(self, event: ev.Event) -> None:
        msg = event.msg_as(ThreadGoalUpdatedEvent)
        params = ThreadGoalUpdatedNotification(
            thread_id=self._state.thread_id,
            turn_id=msg.turn_id,
            goal=ThreadGoal.model_validate(msg.goal),
        )
        self._notifier.send("thread/goal/updated", params)

    def _goal_cleared(self, event: ev.Event) -> None:
        if event.msg_as(ThreadGoalClearedEvent).cleared:
            params = ThreadGoalClearedNotification(thread_id=self._state.thread_id)
            self._notifier.send("thread/goal/cleared", params)

    def _name_updated(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ThreadNameUpdatedEvent)
        params = ThreadNameUpdatedNotification(
            thread_id=self._state.thread_id, thread_name=msg.thread_name
        )
        self._notifier.send("thread/name/updated", params)

    def _mcp_startup(self, event: ev.Event) -> None:
        msg = event.msg_as(McpStartupUpdateEvent)
        params = McpServerStatusUpdatedNotification(
            thread_id=self._state.thread_id, name=msg.server, status=msg.state, error=msg.error
        )
        self._notifier.send("mcpServer/startupStatus/updated", params)

    def _subagent_lifecycle(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.SubagentLifecycleEvent)
        params = SubagentLifecycleNotification.model_validate(
            {"thread_id": self._state.thread_id, **msg.model_dump(exclude={"type"})}
        )
        self._notifier.send("subagent/lifecycle", params)

    def _agent_inbox(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.AgentInboxEvent)
        params = AgentInboxNotification.model_validate(
            {"thread_id": self._state.thread_id, **msg.model_dump(exclude={"type"})}
        )
        self._notifier.send("agent/inbox", params)
