"""Each call of a subagent tool, reported as the reference reports its agent tools: a begin and an
end event that the API turns into a `collabAgentToolCall` item.

The item names threads, not agent ids: the caller's thread and the children's thread ids, with
each child's last known state once the call is over.
"""

from __future__ import annotations

import json
from typing import Any

from codex_lsp.engine.subagents import specs
from codex_lsp.engine.subagents.agent import Subagent
from codex_lsp.engine.subagents.tree import AgentTree
from codex_lsp.engine.tools.base import ToolCall, ToolOutput
from codex_lsp.protocol.core.events_collab import (
    CollabAgentStateRecord,
    CollabAgentStatus,
    CollabAgentTool,
    CollabAgentToolCallBeginEvent,
    CollabAgentToolCallEndEvent,
)

# `subagent_logs` only reads a child's activity: the reference has no agent tool for it.
COLLAB_TOOLS: dict[str, CollabAgentTool] = {
    specs.SPAWN: "spawnAgent",
    specs.SEND: "sendInput",
    specs.INTERRUPT: "interruptAgent",
    specs.AWAIT: "wait",
    specs.LIST: "listAgents",
    specs.CANCEL: "closeAgent",
    specs.PRUNE: "closeAgent",
}

_STATUS: dict[str, CollabAgentStatus] = {
    "running": "running",
    "completed": "completed",
    "interrupted": "interrupted",
    "failed": "errored",
    "canceled": "shutdown",
}


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        raw = json.loads(call.payload or "{}")
    except json.JSONDecodeError:
        return {}
    return raw if isinstance(raw, dict) else {}


def _targets(tree: AgentTree, call: ToolCall, args: dict[str, Any]) -> list[Subagent]:
    """The caller's children this call names (all of them where it names none)."""
    caller = tree.agent_of(call.session)
    children = {child.agent_id: child for child in tree.children_of(caller)}
    wanted: list[Any] = []
    if call.name == specs.PRUNE:
        ids = args.get("agent_ids")
        wanted = ids if isinstance(ids, list) else list(children)
    elif "agent_id" in args:
        wanted = [args["agent_id"]]
    elif call.name in (specs.AWAIT, specs.LIST):
        wanted = list(children)
    return [children[each] for each in wanted if isinstance(each, int) and each in children]


def _state(agent: Subagent, tree: AgentTree) -> CollabAgentStateRecord:
    if agent.agent_id not in tree.agents:
        return CollabAgentStateRecord(status="shutdown")
    message = agent.task_error if agent.status == "failed" else agent.last_message
    return CollabAgentStateRecord(status=_STATUS.get(agent.status, "running"), message=message)


class CollabReport:
    """The begin event of one call, then its end event once the handler returned or raised."""

    def __init__(self, tree: AgentTree, call: ToolCall) -> None:
        self._tree = tree
        self._call = call
        self._args = _arguments(call)
        self._tool = COLLAB_TOOLS[call.name]
        self._targets = _targets(tree, call, self._args)
        prompt = self._args.get("message")
        self._prompt = prompt if isinstance(prompt, str) else None
        self._sender = call.session.thread_id

    def begin(self) -> None:
        event = CollabAgentToolCallBeginEvent(
            call_id=self._call.call_id,
            tool=self._tool,
            sender_thread_id=self._sender,
            receiver_thread_ids=[each.session_id for each in self._targets],
            prompt=self._prompt,
        )
        self._call.session.emit(self._call.sub_id, event)

    def end(self, output: ToolOutput | None) -> None:
        targets = list(self._targets)
        if output is not None and self._tool == "spawnAgent":
            spawned = self._tree.agents.get(_spawned_id(output))
            if spawned is not None:
                targets.append(spawned)
        failed = output is None or not output.success
        event = CollabAgentToolCallEndEvent(
            call_id=self._call.call_id,
            tool=self._tool,
            sender_thread_id=self._sender,
            receiver_thread_ids=[each.session_id for each in targets],
            prompt=self._prompt,
            status="failed" if failed else "completed",
            agents_states={each.session_id: _state(each, self._tree) for each in targets},
        )
        self._call.session.emit(self._call.sub_id, event)


def _spawned_id(output: ToolOutput) -> int:
    try:
        value = json.loads(output.text).get("agent_id")
    except (json.JSONDecodeError, AttributeError):
        return -1
    return value if isinstance(value, int) else -1
