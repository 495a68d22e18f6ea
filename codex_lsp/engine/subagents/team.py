"""The `collaboration` tools' handlers, over the same tree of child sessions as `subagent_*`.

Agents are addressed by task path. A child's final answer reaches its parent's thread as an
`agent_message` item, which the parent's history takes before its next model request;
`wait_agent` waits for one that has not been taken yet.
Each spawn, message, interrupt and finished task is reported to the UI as one
`sub_agent_activity` event (a `subAgentActivity` item); a wait as a `collabAgentToolCall`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import anyio

from codex_lsp.engine.models import model_info
from codex_lsp.engine.subagents import team_specs as specs
from codex_lsp.engine.subagents.agent import ROOT_AGENT_ID, Subagent
from codex_lsp.engine.subagents.tree import AgentTree
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput, object_arguments
from codex_lsp.protocol.core.events import (
    CollabAgentToolCallBeginEvent,
    CollabAgentToolCallEndEvent,
    SubAgentActivityEvent,
    SubagentStatus,
)
from codex_lsp.protocol.core.events_collab import SubAgentActivityKind
from codex_lsp.protocol.core.inputs import TextInput
from codex_lsp.store.home import new_thread_id

if TYPE_CHECKING:
    from codex_lsp.engine.session import RunningTask, Session
    from codex_lsp.engine.steering import Steering
    from codex_lsp.protocol.core.inputs import ReasoningEffort

_TASK_NAME = re.compile(r"[a-z0-9_]+")


class Team:
    """The pending notes of one tree's agents, and who is told when an answer arrives."""

    def __init__(self, tree: AgentTree) -> None:
        self.tree = tree
        # Agent id -> notes sent while it was idle: they open its next task.
        self.notes: dict[int, list[str]] = {}
        self._arrived = anyio.Event()
        tree.on_settled.append(self._settled)

    def path(self, agent_id: int) -> str:
        agent = self.tree.agents.get(agent_id)
        if agent is None:
            return specs.ROOT_PATH
        return f"{self.path(agent.parent_agent_id)}/{agent.label or agent.agent_id}"

    def resolve(self, caller_id: int, target: Any) -> Subagent:
        if not isinstance(target, str) or not target.strip():
            raise ToolError("`target` must be an agent's task name")
        target = target.strip()
        wanted = target if target.startswith("/") else f"{self.path(caller_id)}/{target}"
        for agent in self.tree.agents.values():
            if target == agent.session_id or self.path(agent.agent_id) == wanted:
                return agent
        raise ToolError(f"live agent path `{wanted}` not found")

    def session_of(self, agent_id: int) -> Session:
        agent = self.tree.agents.get(agent_id)
        session = agent.session if agent is not None else self.tree.root
        return session if session is not None else self.tree.root

    def report(
        self,
        session: Session,
        sub_id: str,
        item_id: str,
        kind: SubAgentActivityKind,
        agent: Subagent,
        **started: Any,
    ) -> None:
        event = SubAgentActivityEvent(
            item_id=item_id,
            kind=kind,
            agent_thread_id=agent.session_id,
            agent_path=self.path(agent.agent_id),
            **started,
        )
        session.emit(sub_id, event)

    def _settled(self, agent: Subagent, task: RunningTask, outcome: SubagentStatus) -> None:
        if outcome not in ("completed", "failed"):
            return
        parent = self.session_of(agent.parent_agent_id)
        running = parent.running_task
        sub_id = running.sub_id if running is not None else agent.origin_sub_id
        # Unique across resumes, as the child's turn ids are in the reference.
        item_id = f"subagent-completed-{new_thread_id()}"
        self.report(parent, sub_id, item_id, "completed", agent)
        answer = agent.task_error if outcome == "failed" else agent.last_message
        sender, recipient = self.path(agent.agent_id), self.path(agent.parent_agent_id)
        text = specs.envelope("FINAL_ANSWER", recipient, sender, answer or "")
        parent.arrivals.append(
            {
                "type": "agent_message",
                "author": sender,
                "recipient": recipient,
                "content": [{"type": "input_text", "text": text}],
            }
        )
        self._arrived.set()
        self._arrived = anyio.Event()

    async def wait_arrival(self, session: Session, steering: Steering, timeout_s: float) -> str:
        """Until `session` has an agent's message its history has not taken (`arrived`), or
        the user steers input into the turn (`steered`); `timed_out` otherwise."""
        with anyio.move_on_after(timeout_s):
            while True:
                if session.arrivals:
                    return "arrived"
                if steering.pending:
                    return "steered"
                await _either(self._arrived, steering.added)
        return "timed_out"


async def _either(first: anyio.Event, second: anyio.Event) -> None:
    async with anyio.create_task_group() as group:

        async def wait(event: anyio.Event) -> None:
            await event.wait()
            group.cancel_scope.cancel()

        group.start_soon(wait, first)
        group.start_soon(wait, second)


_WAIT_ENDS = {
    "arrived": "Wait completed.",
    "steered": "Wait interrupted by new input.",
    "timed_out": "Wait timed out.",
}


TeamHandler = Callable[[Team, ToolCall], Awaitable[ToolOutput]]


def _text(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"`{key}` is required and must be a non-empty string")
    return value


def _optional(args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(f"`{key}` must be a string")
    return value.strip() or None


def _status(agent: Subagent) -> Any:
    """An agent's status as the model reads it in `list_agents` and `interrupt_agent`."""
    if agent.busy:
        return "running"
    if agent.status == "completed":
        return {"completed": agent.last_message}
    if agent.status == "failed":
        return {"errored": agent.task_error}
    return "shutdown" if agent.status == "canceled" else agent.status


async def spawn_agent(team: Team, call: ToolCall) -> ToolOutput:
    args = object_arguments(call.payload)
    unknown = sorted(
        set(args) - {"task_name", "message", "fork_turns", "model", "reasoning_effort"}
    )
    if unknown:
        raise ToolError(f"unknown field(s): {', '.join(unknown)}")
    name = _text(args, "task_name").strip()
    if not _TASK_NAME.fullmatch(name):
        raise ToolError("agent_name must use only lowercase letters, digits, and underscores")
    message = _text(args, "message")
    fork_turns = (_optional(args, "fork_turns") or "all").lower()
    if fork_turns not in ("all", "none"):
        raise ToolError("fork_turns must be `all` or `none`")
    fork = fork_turns == "all"
    model, effort = _optional(args, "model"), _optional(args, "reasoning_effort")
    # A fork carries the parent's conversation, so it runs on the parent's model and effort.
    inherited = call.ctx.effort or model_info(call.ctx.model).default_effort
    if fork and ((model or call.ctx.model) != call.ctx.model or (effort or inherited) != inherited):
        raise ToolError(
            "full-history forks inherit the parent model and reasoning effort; "
            'set fork_turns to "none" to choose them'
        )
    tree = team.tree
    caller_id = tree.agent_of(call.session)
    path = f"{team.path(caller_id)}/{name}"
    if any(team.path(agent.agent_id) == path for agent in tree.agents.values()):
        raise ToolError(f"agent path `{path}` already exists")
    ctx = call.ctx
    if model or effort:
        chosen = model or ctx.model
        if effort is not None and effort not in model_info(chosen).efforts:
            efforts = ", ".join(model_info(chosen).efforts)
            raise ToolError(f"reasoning_effort `{effort}` is not one of {chosen}'s: {efforts}")
        ctx = dataclasses.replace(
            ctx, model=chosen, effort=cast("ReasoningEffort", effort) if effort else ctx.effort
        )
    text = specs.envelope("NEW_TASK", path, team.path(caller_id), message)
    agent = await tree.spawn(
        call.session,
        ctx,
        call.sub_id,
        text,
        fork=fork,
        label=name,
        agent_path=path,
        role_note=specs.child_section(path),
    )
    team.report(
        call.session,
        call.sub_id,
        call.call_id,
        "started",
        agent,
        model=ctx.model,
        reasoning_effort=ctx.effort or model_info(ctx.model).default_effort,
    )
    return ToolOutput(json.dumps({"task_name": path}, separators=(",", ":")))


async def _hand_over(team: Team, call: ToolCall, kind: str) -> ToolOutput:
    args = object_arguments(call.payload)
    caller_id = team.tree.agent_of(call.session)
    agent = team.resolve(caller_id, args.get("target"))
    text = specs.envelope(
        kind, team.path(agent.agent_id), team.path(caller_id), _text(args, "message")
    )
    team.report(call.session, call.sub_id, call.call_id, "interacted", agent)
    running = agent.session.running_task if agent.session is not None else None
    if running is not None and not running.steering.closed:
        # A working agent reads it at its next model request, within the task it is on.
        running.steering.add([TextInput(text=text)])
    elif kind == "MESSAGE":
        team.notes.setdefault(agent.agent_id, []).append(text)
    else:
        texts = [*team.notes.pop(agent.agent_id, []), text]
        await team.tree.start_work(agent, texts, call.ctx)
    return ToolOutput("")


async def send_message(team: Team, call: ToolCall) -> ToolOutput:
    return await _hand_over(team, call, "MESSAGE")


async def followup_task(team: Team, call: ToolCall) -> ToolOutput:
    return await _hand_over(team, call, "NEW_TASK")


async def wait_agent(team: Team, call: ToolCall) -> ToolOutput:
    args = object_arguments(call.payload)
    timeout = args.get("timeout_ms", specs.WAIT_DEFAULT_MS)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise ToolError("`timeout_ms` must be a number of milliseconds")
    timeout_ms = min(max(float(timeout), specs.WAIT_MIN_MS), specs.WAIT_MAX_MS)
    sender = call.session.thread_id
    begin = CollabAgentToolCallBeginEvent(
        call_id=call.call_id, tool="wait", sender_thread_id=sender
    )
    call.session.emit(call.sub_id, begin)
    ended = "timed_out"
    try:
        ended = await team.wait_arrival(call.session, call.task.steering, timeout_ms / 1000)
    finally:
        end = CollabAgentToolCallEndEvent(
            call_id=call.call_id, tool="wait", sender_thread_id=sender, status="completed"
        )
        call.session.emit(call.sub_id, end)
    result = {"message": _WAIT_ENDS[ended], "timed_out": ended == "timed_out"}
    output = json.dumps(result, separators=(",", ":"))
    return ToolOutput(output)


async def interrupt_agent(team: Team, call: ToolCall) -> ToolOutput:
    args = object_arguments(call.payload)
    agent = team.resolve(team.tree.agent_of(call.session), args.get("target"))
    previous = _status(agent)
    team.report(call.session, call.sub_id, call.call_id, "interrupted", agent)
    if agent.task is not None:
        await team.tree.interrupt(agent, None, call.ctx)
    output = {"previous_status": previous}
    return ToolOutput(json.dumps(output, ensure_ascii=False, separators=(",", ":")))


async def list_agents(team: Team, call: ToolCall) -> ToolOutput:
    prefix = _optional(object_arguments(call.payload), "path_prefix")
    root = "running" if team.tree.root.running_task is not None else "idle"
    listed: list[dict[str, Any]] = [{"agent_name": specs.ROOT_PATH, "agent_status": root}]
    for agent_id in sorted(team.tree.agents):
        agent = team.tree.agents[agent_id]
        if agent.session is None:
            continue  # dormant since a resume: `followup_task` wakes it, but it is not live
        listed.append({"agent_name": team.path(agent_id), "agent_status": _status(agent)})
    if prefix:
        listed = [
            entry
            for entry in listed
            if entry["agent_name"] == prefix or entry["agent_name"].startswith(prefix + "/")
        ]
    return ToolOutput(json.dumps({"agents": listed}, ensure_ascii=False, separators=(",", ":")))


HANDLERS: dict[str, TeamHandler] = {
    specs.SPAWN: spawn_agent,
    specs.SEND: send_message,
    specs.FOLLOWUP: followup_task,
    specs.WAIT: wait_agent,
    specs.INTERRUPT: interrupt_agent,
    specs.LIST: list_agents,
}


def is_root(tree: AgentTree, session: Session) -> bool:
    return tree.agent_of(session) == ROOT_AGENT_ID
