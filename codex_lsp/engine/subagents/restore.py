"""Rebuild a resumed root thread's subagents from the lifecycle events in its rollout.

A `spawned` or `forked` event attaches a child, `canceled` or `pruned` detaches it, and the
last summary recorded for a child gives its ids, label, status and rollout. Children come back
dormant: each is loaded from its own rollout only when it is next sent a message.
"""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
from pydantic import ValidationError

from codex_lsp.engine.subagents.agent import ROOT_AGENT_ID, Subagent
from codex_lsp.engine.subagents.tree import AgentTree
from codex_lsp.protocol.core.events import SubagentLifecycleEvent, SubagentSummary
from codex_lsp.store.rollout import EVENT_MSG, parse_line

log = logging.getLogger(__name__)

_ATTACH = frozenset({"spawned", "forked"})
_DETACH = frozenset({"canceled", "pruned"})
_MARKER = b'"subagent_lifecycle"'


def read_lifecycle_events(path: Path) -> list[SubagentLifecycleEvent]:
    """The rollout's lifecycle events in order; other lines are skipped without parsing."""
    events: list[SubagentLifecycleEvent] = []
    with path.open("rb") as lines:
        for raw in lines:
            if _MARKER not in raw:
                continue
            line = parse_line(raw)
            if line is None or line.type != EVENT_MSG or not isinstance(line.payload, dict):
                continue
            if line.payload.get("type") != "subagent_lifecycle":
                continue
            try:
                events.append(SubagentLifecycleEvent.model_validate(line.payload))
            except ValidationError:
                log.warning("skipped a malformed subagent_lifecycle line in %s", path)
    return events


def attached_children(
    events: list[SubagentLifecycleEvent],
) -> tuple[dict[int, SubagentSummary], int]:
    """The children still attached after `events`, by id, and the highest id ever used."""
    attached: dict[int, SubagentSummary] = {}
    highest = ROOT_AGENT_ID
    for event in events:
        highest = max(highest, event.agent_id)
        if event.change in _DETACH:
            attached.pop(event.agent_id, None)
        elif event.change in _ATTACH or event.agent_id in attached:
            attached[event.agent_id] = event.agent
    return attached, highest


async def restore_children(tree: AgentTree, sub_id: str) -> int:
    """Attach the children the root's rollout records; returns how many came back."""
    path = tree.root.rollout_path
    if path is None:
        return 0
    try:
        events = await anyio.to_thread.run_sync(read_lifecycle_events, path)
    except OSError as err:
        tree.root.warn_once(sub_id, f"subagents could not be restored: {err.strerror}")
        return 0
    attached, highest = attached_children(events)
    tree.continue_after(highest)
    # A child recorded under a parent thread id other than its parent's current one came with
    # a fork of the root thread: it is forked in turn when woken. Parents come before their
    # children in id order, so each child sees its parent's verdict.
    session_ids: dict[int, str] = {ROOT_AGENT_ID: tree.root.thread_id}
    forked: dict[int, bool] = {ROOT_AGENT_ID: False}
    depths: dict[int, int] = {ROOT_AGENT_ID: 0}
    for agent_id in sorted(attached):
        summary = attached[agent_id]
        parent_id = summary.parent_agent_id
        if parent_id not in depths:
            continue  # its parent is gone, so nothing could address it
        fork = forked[parent_id] or summary.parent_session_id != session_ids[parent_id]
        agent = Subagent.from_summary(summary, origin_sub_id=sub_id, fork_on_wake=fork)
        agent.depth = depths[parent_id] + 1
        depths[agent_id], forked[agent_id] = agent.depth, fork
        session_ids[agent_id] = summary.session_id
        tree.attach_dormant(agent)
    return len(tree.agents)
