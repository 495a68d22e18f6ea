"""One subagent: its ids, status, inbox and recent activity, and the summary UIs receive."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codex_lsp.engine.subagents.activity import ACTIVITY_LIMIT
from codex_lsp.protocol.core.events import SubagentStatus, SubagentSummary

if TYPE_CHECKING:
    from codex_lsp.engine.session import RunningTask, Session

ROOT_AGENT_ID = 0


@dataclass
class Inbox:
    """Messages waiting for a busy child.

    Regular messages wait for the current task to end; an interrupt message (or a bare
    interrupt, `None`) stops the task and is handled first.
    """

    regular: list[str] = field(default_factory=list)
    interrupt: list[str | None] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.regular and not self.interrupt

    def take_next(self) -> list[str]:
        """The texts of the next task: interrupt messages first, else every regular one.

        A bare interrupt means "stop": the regular messages queued behind it are dropped too,
        or they would start the child again straight away.
        """
        if self.interrupt:
            texts = [text for text in self.interrupt if text]
            self.interrupt.clear()
            if not texts:
                self.regular.clear()
            return texts
        texts, self.regular = self.regular, []
        return texts


@dataclass
class Subagent:
    agent_id: int
    parent_agent_id: int
    session_id: str
    parent_session_id: str | None
    # The event id its lifecycle events carry: the root turn (or configure op) it came from.
    origin_sub_id: str
    label: str | None = None
    # The task path a `collaboration` spawn named it by (`/root/<task_name>`).
    agent_path: str | None = None
    depth: int = 1
    status: SubagentStatus = "running"
    reasoning_header: str | None = None
    rollout_path: str | None = None
    # None while dormant: rebuilt from a resumed thread's rollout and not woken since.
    session: Session | None = None
    # A dormant child of a forked root thread is forked too when woken, so the two threads
    # never append to the same child rollout.
    fork_on_wake: bool = False
    inbox: Inbox = field(default_factory=Inbox)
    activity: deque[str] = field(default_factory=lambda: deque(maxlen=ACTIVITY_LIMIT))
    last_message: str | None = None
    task: RunningTask | None = None
    task_error: str | None = None
    turns: int = 0
    closing: bool = False

    @property
    def busy(self) -> bool:
        """Running a task, or holding messages that will start one."""
        return self.task is not None or bool(self.inbox.regular) or bool(self.inbox.interrupt)

    def summary(self) -> SubagentSummary:
        return SubagentSummary(
            agent_id=self.agent_id,
            parent_agent_id=self.parent_agent_id,
            session_id=self.session_id,
            parent_session_id=self.parent_session_id,
            label=self.label,
            status=self.status,
            reasoning_header=self.reasoning_header,
            pending_regular=len(self.inbox.regular),
            pending_interrupt=len(self.inbox.interrupt),
            rollout_path=self.rollout_path,
        )

    def report(self) -> dict[str, Any]:
        """What the model reads about this child in tool outputs."""
        report: dict[str, Any] = {
            "agent_id": self.agent_id,
            "parent_agent_id": self.parent_agent_id,
            "label": self.label,
            "status": self.status,
            "reasoning_header": self.reasoning_header,
            "pending_regular": len(self.inbox.regular),
            "pending_interrupt": len(self.inbox.interrupt),
            "last_message": self.last_message,
        }
        if self.status == "failed" and self.task_error:
            report["error"] = self.task_error
        return {key: value for key, value in report.items() if value is not None}

    @classmethod
    def from_summary(
        cls, summary: SubagentSummary, *, origin_sub_id: str, fork_on_wake: bool
    ) -> Subagent:
        """A dormant child rebuilt from the last summary a rollout recorded for it."""
        return cls(
            agent_id=summary.agent_id,
            parent_agent_id=summary.parent_agent_id,
            session_id=summary.session_id,
            parent_session_id=summary.parent_session_id,
            origin_sub_id=origin_sub_id,
            label=summary.label,
            status=summary.status,
            reasoning_header=summary.reasoning_header,
            rollout_path=summary.rollout_path,
            fork_on_wake=fork_on_wake,
        )
