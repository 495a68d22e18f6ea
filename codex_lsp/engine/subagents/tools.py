"""The subagent tools' handlers: check the model's arguments, act on the tree, report in JSON.

Every mistake the model can make (a bad id, a child that is not its own, a timeout out of
bounds) comes back to it as a tool error that says what to do instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from typing import Any, Literal, overload

from codex_lsp.engine.subagents import specs
from codex_lsp.engine.subagents.sessions import dormant_activity
from codex_lsp.engine.subagents.tree import AgentTree
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput

TreeHandler = Callable[[AgentTree, ToolCall], Awaitable[ToolOutput]]


def _args(call: ToolCall) -> dict[str, Any]:
    try:
        raw = json.loads(call.payload or "{}")
    except json.JSONDecodeError as err:
        raise ToolError(f"{call.name}: arguments are not valid JSON: {err}") from err
    if not isinstance(raw, dict):
        raise ToolError(f"{call.name}: arguments must be a JSON object")
    return raw


@overload
def _int(call: ToolCall, args: dict[str, Any], key: str, *, required: Literal[True]) -> int: ...
@overload
def _int(call: ToolCall, args: dict[str, Any], key: str, *, required: bool) -> int | None: ...
def _int(call: ToolCall, args: dict[str, Any], key: str, *, required: bool) -> int | None:
    value = args.get(key)
    if value is None:
        if required:
            raise ToolError(f"{call.name}: `{key}` is required")
        return None
    # JSON numbers may arrive as 3.0; booleans are ints to Python but never ids.
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise ToolError(f"{call.name}: `{key}` must be an integer, got {json.dumps(value)}")
    return int(value)


@overload
def _text(call: ToolCall, args: dict[str, Any], key: str, *, required: Literal[True]) -> str: ...
@overload
def _text(call: ToolCall, args: dict[str, Any], key: str, *, required: bool) -> str | None: ...
def _text(call: ToolCall, args: dict[str, Any], key: str, *, required: bool) -> str | None:
    value = args.get(key)
    if value is None or (isinstance(value, str) and not value.strip() and not required):
        if required:
            raise ToolError(f"{call.name}: `{key}` is required")
        return None
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{call.name}: `{key}` must be a non-empty string")
    return value


def await_timeout(value: Any) -> float:
    """`timeout_s` in seconds: absent or 0 is the default, anything else must be in bounds."""
    if value is None or (not isinstance(value, bool) and value == 0):
        return float(specs.AWAIT_DEFAULT_S)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ToolError(
            f"{specs.AWAIT}: `timeout_s` must be a number of seconds, got {json.dumps(value)}"
        )
    if not specs.AWAIT_MIN_S <= value <= specs.AWAIT_MAX_S:
        raise ToolError(
            f"{specs.AWAIT}: timeout_s = {value:g} is out of bounds: pass 0 (or omit it) for the "
            f"{specs.AWAIT_DEFAULT_S // 60}-minute default, or a value between "
            f"{specs.AWAIT_MIN_S} and {specs.AWAIT_MAX_S} seconds; prefer backing off "
            "(300, then 600, then 1200) and checking subagent_logs in between"
        )
    return float(value)


def _out(data: dict[str, Any]) -> ToolOutput:
    return ToolOutput(json.dumps(data, ensure_ascii=False))


async def spawn(tree: AgentTree, call: ToolCall) -> ToolOutput:
    args = _args(call)
    message = _text(call, args, "message", required=True)
    assert message is not None
    fork = args.get("fork", False)
    if fork is not None and not isinstance(fork, bool):
        raise ToolError(f"{call.name}: `fork` must be true or false")
    label = _text(call, args, "label", required=False)
    agent = await tree.spawn(
        call.session, call.ctx, call.sub_id, message, fork=bool(fork), label=label
    )
    return _out(
        {
            "agent_id": agent.agent_id,
            "parent_agent_id": agent.parent_agent_id,
            "session_id": agent.session_id,
            "status": agent.status,
            "forked": bool(fork),
        }
    )


async def send(tree: AgentTree, call: ToolCall) -> ToolOutput:
    args = _args(call)
    agent_id = _int(call, args, "agent_id", required=True)
    message = _text(call, args, "message", required=True)
    assert agent_id is not None and message is not None
    agent = tree.child_of(tree.agent_of(call.session), agent_id)
    queued = await tree.deliver(agent, message, call.ctx)
    report = {"agent_id": agent_id, "status": agent.status, "queued": queued}
    if queued:
        report["pending_regular"] = len(agent.inbox.regular)
    return _out(report)


async def interrupt(tree: AgentTree, call: ToolCall) -> ToolOutput:
    args = _args(call)
    agent_id = _int(call, args, "agent_id", required=True)
    message = _text(call, args, "message", required=False)
    assert agent_id is not None
    agent = tree.child_of(tree.agent_of(call.session), agent_id)
    stopped = await tree.interrupt(agent, message, call.ctx)
    report: dict[str, Any] = {"agent_id": agent_id, "interrupted": stopped, "status": agent.status}
    if not stopped:
        report["note"] = f"agent {agent_id} was not working" + (
            "; it is handling your message now" if message else "; nothing to interrupt"
        )
    return _out(report)


async def logs(tree: AgentTree, call: ToolCall) -> ToolOutput:
    args = _args(call)
    agent_id = _int(call, args, "agent_id", required=True)
    limit = _int(call, args, "limit", required=False) or specs.LOGS_DEFAULT_LIMIT
    assert agent_id is not None
    if not 1 <= limit <= specs.LOGS_MAX_LIMIT:
        raise ToolError(f"{call.name}: `limit` must be between 1 and {specs.LOGS_MAX_LIMIT}")
    agent = tree.child_of(tree.agent_of(call.session), agent_id)
    lines = list(agent.activity)
    if agent.session is None and not lines:
        lines = await dormant_activity(agent)  # read from its rollout; it stays asleep
    return _out({**agent.report(), "activity": lines[-limit:]})


async def await_children(tree: AgentTree, call: ToolCall) -> ToolOutput:
    args = _args(call)
    timeout_s = await_timeout(args.get("timeout_s"))
    agent_id = _int(call, args, "agent_id", required=False)
    caller_id = tree.agent_of(call.session)
    if agent_id is not None:
        targets = [tree.child_of(caller_id, agent_id)]
    else:
        # Wait for the busy ones, report on all: the model sees every child's outcome.
        targets = tree.children_of(caller_id)
        if not targets:
            return _out({"timed_out": False, "agents": [], "note": "you have no subagents"})
    finished = await tree.wait_settled(targets, timeout_s)
    reports = [target.report() for target in targets if target.agent_id in tree.agents]
    report: dict[str, Any] = {"timed_out": not finished, "agents": reports}
    if not finished:
        report["note"] = (
            f"still working after {timeout_s:g}s; check subagent_logs, then await again "
            "with a longer timeout or interrupt"
        )
    return _out(report)


async def list_children(tree: AgentTree, call: ToolCall) -> ToolOutput:
    children = tree.children_of(tree.agent_of(call.session))
    return _out(
        {
            "active": tree.active_count(),
            "max_active": tree.max_active,
            "agents": [child.report() for child in children],
        }
    )


async def cancel(tree: AgentTree, call: ToolCall) -> ToolOutput:
    args = _args(call)
    agent_id = _int(call, args, "agent_id", required=True)
    assert agent_id is not None
    agent = tree.child_of(tree.agent_of(call.session), agent_id)
    previous = agent.status
    removed = await tree.cancel(agent)
    return _out(
        {
            "agent_id": agent_id,
            "previous_status": previous,
            "canceled": [each.agent_id for each in removed],
        }
    )


async def prune(tree: AgentTree, call: ToolCall) -> ToolOutput:
    args = _args(call)
    caller_id = tree.agent_of(call.session)
    wanted = args.get("agent_ids")
    if wanted is None:
        ids = [child.agent_id for child in tree.children_of(caller_id)]
    elif isinstance(wanted, list):
        ids = [_int(call, {"agent_ids": value}, "agent_ids", required=True) for value in wanted]
    else:
        raise ToolError(f"{call.name}: `agent_ids` must be a list of agent ids")
    pruned: list[int] = []
    skipped: dict[str, str] = {}
    for agent_id in ids:
        assert agent_id is not None
        try:
            agent = tree.child_of(caller_id, agent_id)
            if wanted is None and agent.busy:
                skipped[str(agent_id)] = "still working"
                continue
            pruned.extend(each.agent_id for each in await tree.prune(agent))
        except ToolError as err:
            skipped[str(agent_id)] = str(err)
    report: dict[str, Any] = {"pruned": pruned}
    if skipped:
        report["skipped"] = skipped
    return ToolOutput(json.dumps(report), success=bool(pruned) or not skipped)


HANDLERS: dict[str, TreeHandler] = {
    specs.SPAWN: spawn,
    specs.SEND: send,
    specs.INTERRUPT: interrupt,
    specs.LOGS: logs,
    specs.AWAIT: await_children,
    specs.LIST: list_children,
    specs.CANCEL: cancel,
    specs.PRUNE: prune,
}
