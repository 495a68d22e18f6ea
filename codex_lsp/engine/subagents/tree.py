"""The subagents of one root thread: ids, the work each child does, and the events UIs see.

Agent 0 is the root thread; every child spawned anywhere in the tree gets the next id, and a
resumed thread continues after the highest id its rollout recorded. Children run their tasks
in the root's task group, in parallel with the root and with each other. A message to an idle
child starts a task at once; a message to a busy child waits in its inbox until the task
ends, and an interrupt stops the task first.

Every event a child emits also goes to the root's `child_events` when its door listens, to be
shown as the child thread's own; with agent teams on, its requests for the user too. The root
thread receives (and persists) a `subagent_lifecycle` event whenever a child is attached,
changes status or reasoning header, or is detached, and an `agent_inbox` event whenever a
child's inbox depth changes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio

from codex_lsp.engine.subagents.activity import activity_line, reasoning_header
from codex_lsp.engine.subagents.agent import ROOT_AGENT_ID, Subagent
from codex_lsp.engine.subagents.sessions import (
    close_child_session,
    open_child_session,
    wake_child_session,
)
from codex_lsp.engine.subagents.specs import child_role
from codex_lsp.engine.subagents.team_specs import FEATURE as TEAM_FEATURE
from codex_lsp.engine.task import run_regular_task
from codex_lsp.engine.tools.base import ToolError
from codex_lsp.protocol.core.events import (
    AgentInboxEvent,
    AgentReasoningEvent,
    ErrorEvent,
    Event,
    SubagentChange,
    SubagentLifecycleEvent,
    SubagentStatus,
    TaskCompleteEvent,
)
from codex_lsp.protocol.core.inputs import TextInput
from codex_lsp.store.home import new_thread_id

if TYPE_CHECKING:
    from codex_lsp.engine.session import RunningTask, Session
    from codex_lsp.engine.turn_context import TurnContext
    from codex_lsp.store.history import ResumedState

log = logging.getLogger(__name__)

DEFAULT_MAX_ACTIVE_SUBAGENTS = 4

# A child's requests for the user travel to the root thread's UI, which answers them (unless
# the door shows them on the child's own thread, with agent teams on).
FORWARDED_EVENTS = frozenset(
    {"exec_approval_request", "apply_patch_approval_request", "request_user_input"}
)


class AgentTree:
    """All subagents under one root Session."""

    def __init__(
        self, root: Session, owners: dict[Session, tuple[AgentTree, int]], max_active: int
    ) -> None:
        self.root = root
        self.max_active = max_active
        self.agents: dict[int, Subagent] = {}
        # Every session of the tree (root included) to its agent id, shared with the extension.
        self._owners = owners
        self._next_id = 1
        self._changed = anyio.Event()
        # Told of each task a child ends without another one queued: (child, task, outcome).
        self.on_settled: list[Callable[[Subagent, RunningTask, SubagentStatus], None]] = []

    # Ids and lookups ----------------------------------------------------------------------

    def allocate_id(self) -> int:
        agent_id = self._next_id
        self._next_id += 1
        return agent_id

    def continue_after(self, highest_id: int) -> None:
        self._next_id = max(self._next_id, highest_id + 1)

    def agent_of(self, session: Session) -> int:
        return self._owners[session][1]

    def children_of(self, agent_id: int) -> list[Subagent]:
        return sorted(
            (a for a in self.agents.values() if a.parent_agent_id == agent_id),
            key=lambda a: a.agent_id,
        )

    def descendants(self, agent_id: int) -> list[Subagent]:
        """Every agent below `agent_id`, deepest first, so they can be closed in that order."""
        found: list[Subagent] = []
        for child in self.children_of(agent_id):
            found.extend(self.descendants(child.agent_id))
            found.append(child)
        return found

    def child_of(self, caller_id: int, agent_id: int) -> Subagent:
        agent = self.agents.get(agent_id)
        if agent is None:
            raise ToolError(f"no subagent with id {agent_id}; subagent_list shows your children")
        if agent.parent_agent_id != caller_id:
            raise ToolError(
                f"agent {agent_id} belongs to agent {agent.parent_agent_id}, not to you "
                f"(agent {caller_id}); you can only address your own children"
            )
        return agent

    def active_count(self) -> int:
        return sum(1 for agent in self.agents.values() if agent.busy)

    def check_capacity(self) -> None:
        active = self.active_count()
        if active >= self.max_active:
            raise ToolError(
                f"{active} subagent(s) already running, the most allowed "
                f"(max_active_subagents = {self.max_active}); await, interrupt or cancel one "
                "before starting another"
            )

    # Events -------------------------------------------------------------------------------

    def _lifecycle(self, agent: Subagent, change: SubagentChange) -> None:
        event = SubagentLifecycleEvent(
            change=change,
            agent_id=agent.agent_id,
            agent=agent.summary(),
            agents=[self.agents[key].summary() for key in sorted(self.agents)],
        )
        self.root.emit(agent.origin_sub_id, event)

    def _inbox_changed(self, agent: Subagent) -> None:
        event = AgentInboxEvent(
            agent_id=agent.agent_id,
            session_id=agent.session_id,
            pending_regular=len(agent.inbox.regular),
            pending_interrupt=len(agent.inbox.interrupt),
        )
        self.root.emit(agent.origin_sub_id, event)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def _set_status(self, agent: Subagent, status: SubagentStatus) -> None:
        if agent.status != status:
            agent.status = status
            if agent.agent_id in self.agents:
                self._lifecycle(agent, "status")
        self._notify()

    def observe(self, agent: Subagent, event: Event) -> None:
        """Every event a child emits: its log, outcome and header; requests go to the UI."""
        msg = event.msg
        relay = self.root.child_events
        # With agent teams on, a child asks on its own thread when the door shows that
        # thread, as codex does; a `subagent_*` child otherwise asks through the root thread.
        asks_on_own_thread = relay is not None and bool(
            self.root.ctx.features.get(TEAM_FEATURE, False)
        )
        if msg.type in FORWARDED_EVENTS and not asks_on_own_thread:
            self.root.emit(event.id, msg)
        elif relay is not None:
            relay(agent.session_id, event)
        line = activity_line(msg)
        if line is not None:
            agent.activity.append(line)
        if isinstance(msg, ErrorEvent):
            agent.task_error = msg.message
        elif isinstance(msg, TaskCompleteEvent) and msg.last_agent_message:
            agent.last_message = msg.last_agent_message
        elif isinstance(msg, AgentReasoningEvent):
            header = reasoning_header(msg.text)
            if header and header != agent.reasoning_header and not agent.closing:
                agent.reasoning_header = header
                self._lifecycle(agent, "reasoning")

    # Attaching and detaching --------------------------------------------------------------

    async def spawn(
        self,
        caller: Session,
        ctx: TurnContext,
        sub_id: str,
        message: str,
        *,
        fork: bool = False,
        label: str | None = None,
        agent_path: str | None = None,
        role_note: str | None = None,
    ) -> Subagent:
        """Start a child of `caller` working on `message`."""
        self.check_capacity()
        caller_id = self.agent_of(caller)
        parent = self.agents.get(caller_id)
        agent = Subagent(
            agent_id=self.allocate_id(),
            parent_agent_id=caller_id,
            session_id=new_thread_id(),
            parent_session_id=caller.thread_id,
            # A grandchild's events belong with the root turn its ancestor came from.
            origin_sub_id=parent.origin_sub_id if parent is not None else sub_id,
            label=label,
            agent_path=agent_path,
            depth=parent.depth + 1 if parent is not None else 1,
        )
        role = role_note or child_role(agent.agent_id, caller_id)

        def attach(session: Session, _restored: ResumedState | None) -> None:
            self.agents[agent.agent_id] = agent
            self._register(agent, session)

        await open_child_session(
            self.root,
            caller,
            agent,
            ctx,
            self._observer(agent),
            fork=fork,
            role_note=role,
            prepare=attach,
        )
        await self._start_task(agent, [message])
        self._lifecycle(agent, "forked" if fork else "spawned")
        return agent

    def attach_dormant(self, agent: Subagent) -> None:
        """Register a child rebuilt from a rollout; it wakes when it is sent a message."""
        self.agents[agent.agent_id] = agent
        if agent.status == "running":
            # Its task did not survive the process that ran it.
            self._set_status(agent, "interrupted")

    async def _detach(self, agent: Subagent, change: SubagentChange) -> None:
        await self._close(agent)
        self.agents.pop(agent.agent_id, None)
        self._lifecycle(agent, change)
        self._notify()

    async def _close(self, agent: Subagent) -> None:
        agent.closing = True
        session, agent.session = agent.session, None
        if session is not None:
            self._owners.pop(session, None)
            await close_child_session(session)
        agent.task = None

    # Work ---------------------------------------------------------------------------------

    async def _wake(self, agent: Subagent, ctx: TurnContext) -> Session:
        if agent.session is None:
            parent = self.agents.get(agent.parent_agent_id)
            # A dormant parent still knows its thread id; the root's is the session's own.
            parent_id = parent.session_id if parent is not None else self.root.thread_id
            return await wake_child_session(
                self.root,
                parent_id,
                agent,
                ctx,
                self._observer(agent),
                prepare=lambda session, _restored: self._register(agent, session),
            )
        return agent.session

    def _register(self, agent: Subagent, session: Session) -> None:
        """Make `session` the child's, before the extensions hear of it."""
        agent.session = session
        session.agent_id = agent.agent_id
        self._owners[session] = (self, agent.agent_id)

    def _observer(self, agent: Subagent) -> Callable[[Event], None]:
        return lambda event: self.observe(agent, event)

    async def _start_task(self, agent: Subagent, texts: list[str]) -> None:
        session = agent.session
        assert session is not None
        agent.turns += 1
        agent.task_error = None
        items = [TextInput(text=text) for text in texts]

        async def body(sess: Session, task: RunningTask) -> None:
            await run_regular_task(sess, task, sess.ctx, list(items))

        # A turn id like any other thread's: the client sees the child's turns and requests.
        await session.start_task(new_thread_id(), "regular", body)
        task = session.running_task
        assert task is not None
        agent.task = task
        self._set_status(agent, "running")
        self.root.task_group.start_soon(self._watch, agent, task)

    async def _watch(self, agent: Subagent, task: RunningTask) -> None:
        await task.done.wait()
        await self._settle(agent, task)

    async def _settle(self, agent: Subagent, task: RunningTask) -> None:
        """After a task ends: start the next one from the inbox, or report how it ended.

        Called by the task's watcher and by an interrupt, whichever comes first; the second
        call finds nothing to do. Nothing here yields before the next task is started, so an
        await never sees a child as finished between two of its tasks.
        """
        if agent.task is not task or agent.closing:
            return
        agent.task = None
        if task.abort_reason is not None:
            outcome: SubagentStatus = "interrupted"
        else:
            outcome = "failed" if agent.task_error else "completed"
        if not agent.inbox.empty:
            texts = agent.inbox.take_next()
            self._inbox_changed(agent)
            if texts:
                await self._start_task(agent, texts)
                return
        self._set_status(agent, outcome)
        for hook in self.on_settled:
            hook(agent, task, outcome)

    async def start_work(self, agent: Subagent, texts: list[str], ctx: TurnContext) -> None:
        """Start a task on an idle child, waking it first if it is dormant."""
        self.check_capacity()
        await self._wake(agent, ctx)
        await self._start_task(agent, texts)

    async def deliver(self, agent: Subagent, text: str, ctx: TurnContext) -> bool:
        """Hand a message to a child; True if it waits in the inbox of a busy child."""
        if agent.busy:
            agent.inbox.regular.append(text)
            self._inbox_changed(agent)
            return True
        self.check_capacity()
        await self._wake(agent, ctx)
        await self._start_task(agent, [text])
        return False

    async def interrupt(self, agent: Subagent, message: str | None, ctx: TurnContext) -> bool:
        """Stop the child's task (it then handles `message`, if any); True if one was stopped."""
        task = agent.task
        if task is None:
            if message:
                await self.deliver(agent, message, ctx)
            return False
        agent.inbox.interrupt.append(message)
        self._inbox_changed(agent)
        assert agent.session is not None
        await agent.session.abort_task("interrupted")
        await self._settle(agent, task)
        return True

    async def cancel(self, agent: Subagent) -> list[Subagent]:
        """Stop and detach a child and everything below it; the agents removed, deepest first."""
        removed = [*self.descendants(agent.agent_id), agent]
        for each in removed:
            each.status = "canceled"
            each.inbox.regular.clear()
            each.inbox.interrupt.clear()
            await self._detach(each, "canceled")
        return removed

    async def prune(self, agent: Subagent) -> list[Subagent]:
        """Detach a finished child and its finished descendants; refuses busy ones."""
        removed = [*self.descendants(agent.agent_id), agent]
        busy = [each.agent_id for each in removed if each.busy]
        if busy:
            ids = ", ".join(str(agent_id) for agent_id in busy)
            raise ToolError(
                f"agent {agent.agent_id} cannot be pruned: agent(s) {ids} still running; "
                "await them or cancel them first"
            )
        for each in removed:
            await self._detach(each, "pruned")
        return removed

    async def wait_settled(self, agents: list[Subagent], timeout_s: float) -> bool:
        """Wait until none of `agents` is busy (a detached one counts as done); False on timeout."""
        with anyio.move_on_after(timeout_s):
            while any(a.busy and a.agent_id in self.agents for a in agents):
                await self._changed.wait()
            return True
        return False

    async def shutdown(self) -> None:
        """The root is closing: stop every child, recording the interrupted ones as such."""
        for agent in self.descendants(ROOT_AGENT_ID):
            was_busy = agent.busy
            await self._close(agent)
            if was_busy:
                agent.inbox.regular.clear()
                agent.inbox.interrupt.clear()
                self._set_status(agent, "interrupted")
