"""A Session: one thread's configuration and state, and the Task running in it.

The Session owns the history, the turn context, approvals, token usage and the rollout. It
runs at most one Task at a time; starting another, interrupting, or reconfiguring aborts it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from anyio.abc import TaskGroup

from codex_lsp.engine.approvals import (
    AnswerWaiters,
    ApprovalCache,
    ApprovalWaiters,
    TurnAbortRequested,
)
from codex_lsp.engine.editor_context import EditorContext
from codex_lsp.engine.exec_rules import ExecRules
from codex_lsp.engine.history import ConversationHistory, user_message
from codex_lsp.engine.steering import Steering
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.engine.turn_diff import TurnDiffTracker
from codex_lsp.engine.unified_exec import ProcessStore
from codex_lsp.engine.workspace import Workspace
from codex_lsp.model import ModelClient
from codex_lsp.model.recording import StreamRecorder, recording_path
from codex_lsp.protocol.core.events import (
    ErrorEvent,
    Event,
    EventMsg,
    TaskCompleteEvent,
    TokenCountEvent,
    TurnAbortedEvent,
    TurnAbortReason,
    WarningEvent,
)
from codex_lsp.protocol.core.inputs import RateLimitSnapshot, TokenUsage, TokenUsageInfo
from codex_lsp.protocol.core.response_items import ResponseItem

if TYPE_CHECKING:
    from codex_lsp.engine.services import EngineServices

log = logging.getLogger(__name__)

# How long ending the model's processes waits for their ends to be reported.
PROCESS_END_REPORT_S = 5.0

TURN_ABORTED_MARKER = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. If any tools or "
    "commands were aborted, they may have partially executed.\n</turn_aborted>"
)


class RolloutSink(Protocol):
    """Where a Session persists its lines; the store's recorder implements it."""

    def record(self, kind: str, payload: Mapping[str, object]) -> None: ...

    def record_event(self, event: dict[str, Any]) -> bool: ...

    def sync(self) -> None: ...

    def close(self) -> None: ...


@dataclass
class RunningTask:
    sub_id: str
    kind: str
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)
    abort_reason: TurnAbortReason | None = None
    last_response_id: str | None = None
    diff: TurnDiffTracker = field(default_factory=TurnDiffTracker)
    steering: Steering = field(default_factory=Steering)
    # Set when the turn ended on an error the model could not get past.
    failed: bool = False
    # Whether what the turn uses counts against the thread's goal: not in Plan mode, as in Codex.
    goal_counted: bool = True


TaskBody = Callable[["Session", RunningTask], Awaitable[None]]


class Session:
    def __init__(
        self,
        *,
        thread_id: str,
        ctx: TurnContext,
        emit: Callable[[Event], None],
        task_group: TaskGroup,
        workspace: Workspace,
        services: EngineServices,
        editor: EditorContext | None = None,
        history: ConversationHistory | None = None,
        rollout: RolloutSink | None = None,
        persist_filter: Callable[[str], bool] | None = None,
        backlog: Callable[[], int] | None = None,
        drained: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.thread_id = thread_id
        self.ctx = ctx
        self.history = history or ConversationHistory()
        self.workspace = workspace
        # The user's editor, when the front door can ask it things (the `editor_*` tools).
        self.editor = editor
        self.services = services
        self.approvals = ApprovalWaiters()
        self.answers = AnswerWaiters()
        # "Always allow commands starting with …": the rules file's and this session's.
        self.exec_rules = ExecRules(services.codex_home)
        self.approval_cache = ApprovalCache(self.exec_rules)
        # Prefix rules answered along with a command approval, by call id, until it is read.
        self.exec_amendments: dict[str, list[str]] = {}
        # Hunks declined along with a patch approval, by call id, until the patch is applied.
        self.declined_hunks: dict[str, list[tuple[str, int]]] = {}
        # Processes the model started with `exec_command` and may come back to.
        self.processes = ProcessStore()
        self.total_usage = TokenUsage()
        self.last_usage = TokenUsage()
        self.rate_limits: RateLimitSnapshot | None = None
        self.last_response_id: str | None = None
        self.thread_name: str | None = None
        # The thread's goal (`engine.goals`), and when its running time was last counted.
        self.goal: dict[str, Any] | None = None
        self.goal_clock: float | None = None
        # Tokens of the goal's turn not counted yet, and the objective the model was last given
        # (`engine.goal_turns`).
        self.goal_unaccounted = 0
        self.goal_objective_given: str | None = None
        self.goal_origin_turn: str | None = None
        self.closed = False
        # 0 for a root thread. The subagents package gives each child session its agent id,
        # so features that differ for children (questions to the user) need not import it.
        self.agent_id = 0
        # Where a root thread's door hears its children's own events, with the child's thread
        # id, to show them as that thread's; the subagents package calls it.
        self.child_events: Callable[[str, Event], None] | None = None
        # The context the model last saw; None until the first turn records it.
        self.context_seen: TurnContext | None = None
        # Items that reached this thread from elsewhere (another agent's message): the history
        # takes them before the next model request.
        self.arrivals: list[dict[str, Any]] = []
        self._emit = emit
        self._task_group = task_group
        self._rollout = rollout
        self._persist = persist_filter or (lambda _kind: False)
        self._task: RunningTask | None = None
        self.event_backlog = backlog or (lambda: 0)
        # Awaited between streamed events: returns once the client has caught up.
        self.events_drained = drained or _caught_up
        self._warned: set[str] = set()
        self._recorder: StreamRecorder | None = None

    # Events and persistence -------------------------------------------------------------

    def emit(self, sub_id: str, msg: EventMsg) -> None:
        self._emit(Event(id=sub_id, msg=msg))
        # The cheap type check first: most events (deltas) are never persisted.
        if self._rollout is not None and self._persist(msg.type):
            self._rollout.record_event(msg.model_dump(mode="json", exclude_none=True))

    def record_event(self, msg: EventMsg) -> None:
        """Keep `msg` in the thread without sending it: what the client already saw in another
        form (an interrupted answer's deltas) and reads back when it reopens the thread."""
        if self._rollout is not None and self._persist(msg.type):
            self._rollout.record_event(msg.model_dump(mode="json", exclude_none=True))

    def reply(self, sub_id: str, msg: EventMsg) -> None:
        """Answer the op `sub_id` without recording it: a refusal is not part of the thread."""
        self._emit(Event(id=sub_id, msg=msg))

    def warn_once(self, sub_id: str, message: str) -> None:
        """A non-fatal problem, said once per session."""
        if message not in self._warned:
            self._warned.add(message)
            self.emit(sub_id, WarningEvent(message=message))

    def record_items(self, items: list[ResponseItem]) -> None:
        self.history.extend(items)
        if self._rollout is not None:
            for item in items:
                self._rollout.record("response_item", item)

    def record_line(self, kind: str, payload: dict[str, Any]) -> None:
        if self._rollout is not None:
            self._rollout.record(kind, payload)

    def sync_rollout(self) -> None:
        if self._rollout is not None:
            self._rollout.sync()

    @property
    def rollout_path(self) -> Path | None:
        return getattr(self._rollout, "path", None)

    def model_client(self, ctx: TurnContext) -> ModelClient:
        """A client for one model request of this session, its streams recorded when asked."""
        return self.services.model_client(ctx, self.thread_id, recorder=self._stream_recorder(ctx))

    def _stream_recorder(self, ctx: TurnContext) -> StreamRecorder | None:
        rollout = self.rollout_path
        if not self.services.record_streams or rollout is None:
            return None
        if self._recorder is None:
            provider = ctx.provider
            self._recorder = StreamRecorder(
                recording_path(rollout),
                {
                    "thread_id": self.thread_id,
                    "wire_api": provider.wire_api,
                    "model": ctx.model,
                    "request_max_retries": provider.request_max_retries,
                    "stream_max_retries": provider.stream_max_retries,
                    "stream_idle_timeout_ms": provider.stream_idle_timeout_ms,
                },
            )
        return self._recorder

    def close(self) -> None:
        """End the model's processes, flush and close the rollout; the session takes no more
        turns."""
        self.closed = True
        self.processes.terminate_all()
        if self._rollout is not None:
            self._rollout.sync()
            self._rollout.close()
            self._rollout = None

    # Token accounting -------------------------------------------------------------------

    def add_usage(self, sub_id: str, usage: TokenUsage | None) -> None:
        self.record_usage(usage)
        self.emit(sub_id, self.token_count_event())

    def record_usage(self, usage: TokenUsage | None) -> None:
        """Count a response's usage; the turn loop reports it once the response's tool calls
        are done, as Codex does."""
        if usage is not None:
            self.last_usage = usage
            self.total_usage = self.total_usage + usage

    @property
    def usage_recorded(self) -> bool:
        """Whether any model call of the thread reported its usage yet."""
        return self.total_usage != TokenUsage()

    def token_count_event(self) -> TokenCountEvent:
        info = TokenUsageInfo(
            total_token_usage=self.total_usage,
            last_token_usage=self.last_usage,
            model_context_window=self.ctx.context_window,
        )
        return TokenCountEvent(info=info, rate_limits=self.rate_limits)

    def context_tokens(self) -> int:
        """How full the context window is: the last request's size, or an estimate."""
        if self.last_usage.total_tokens:
            return self.last_usage.total_tokens
        return self.history.approx_tokens()

    # Tasks ------------------------------------------------------------------------------

    @property
    def running_task(self) -> RunningTask | None:
        return self._task

    @property
    def task_group(self) -> TaskGroup:
        """Where this session's tasks run; extensions start work that outlives a turn here."""
        return self._task_group

    async def start_task(self, sub_id: str, kind: str, body: TaskBody) -> None:
        """Run `body` as the session's task, replacing any running one."""
        await self.abort_task("replaced")
        task = RunningTask(sub_id=sub_id, kind=kind)
        self._task = task
        self._task_group.start_soon(self._run_task, task, body)

    async def abort_task(self, reason: TurnAbortReason) -> None:
        """End the running task, if any, and wait until it has cleaned up."""
        task = self._task
        if task is None:
            return
        task.abort_reason = task.abort_reason or reason
        task.scope.cancel()
        await task.done.wait()

    async def _run_task(self, task: RunningTask, body: TaskBody) -> None:
        try:
            with task.scope:
                await body(self, task)
        except TurnAbortRequested:
            task.abort_reason = task.abort_reason or "interrupted"
        except Exception:
            # A crashed task fails only itself; the session and its queue go on.
            log.exception("task %s crashed", task.sub_id)
            self.emit(task.sub_id, ErrorEvent(message="internal error: the turn crashed"))
            if task.abort_reason is None:
                # The turn is over: say so, or a UI keeps waiting for its end.
                done = TaskCompleteEvent(turn_id=task.sub_id, completed_at=self.now())
                self.emit(task.sub_id, done)
        finally:
            if task.abort_reason == "interrupted":
                await self.end_processes()
            if task.abort_reason is not None:
                self._finish_aborted(task)
            self.sync_rollout()
            if self._task is task:
                self._task = None
            task.done.set()

    async def end_processes(self) -> None:
        """End every process the model left running and wait (briefly) until each end is
        reported, so a client hears of them before the turn's end."""
        entries = self.processes.terminate_all()
        with anyio.CancelScope(shield=True), anyio.move_on_after(PROCESS_END_REPORT_S):
            for entry in entries:
                await entry.done.wait()

    def _finish_aborted(self, task: RunningTask) -> None:
        # A review runs outside the thread's conversation: the model need not hear of it.
        if task.abort_reason == "interrupted" and task.kind != "review":
            self.record_items([user_message(TURN_ABORTED_MARKER)])
        # The usage of a response whose tool calls were cut short is reported here; without
        # any usage yet, only the rate limits (`info` stays unset, as in Codex).
        info = self.token_count_event().info if self.usage_recorded else None
        self.emit(task.sub_id, TokenCountEvent(info=info, rate_limits=self.rate_limits))
        self.emit(
            task.sub_id,
            TurnAbortedEvent(
                turn_id=task.sub_id,
                reason=task.abort_reason or "interrupted",
                response_id=self.history.last_bookmark(),
            ),
        )

    @staticmethod
    def now() -> int:
        return int(time.time())

    @property
    def cwd(self) -> Path:
        return self.ctx.cwd


async def _caught_up() -> None:
    """Nobody reads events through a queue that can fall behind."""
