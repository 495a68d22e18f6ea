"""Subagents as an engine extension: the `subagent_*` tools when `[features] subagent_tools`
is on, a tree of child sessions per root thread, rebuilt when the thread is resumed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codex_lsp.engine.extensions import Extension, ToolHandler
from codex_lsp.engine.subagents import specs
from codex_lsp.engine.subagents.agent import ROOT_AGENT_ID
from codex_lsp.engine.subagents.collab import COLLAB_TOOLS, CollabReport
from codex_lsp.engine.subagents.restore import restore_children
from codex_lsp.engine.subagents.tools import HANDLERS, TreeHandler
from codex_lsp.engine.subagents.tree import DEFAULT_MAX_ACTIVE_SUBAGENTS, AgentTree
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext


def subagents_enabled(ctx: TurnContext) -> bool:
    return bool(ctx.features.get(specs.FEATURE, False))


class SubagentsExtension(Extension):
    name = "subagents"

    def __init__(self, *, max_active: int | None = None) -> None:
        self.max_active = max_active or DEFAULT_MAX_ACTIVE_SUBAGENTS
        # Every live session of every tree, root or child, to its tree and agent id.
        self.owners: dict[Session, tuple[AgentTree, int]] = {}

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        return list(specs.TOOL_SPECS) if subagents_enabled(ctx) else []

    def tool_handlers(self) -> dict[str, ToolHandler]:
        return {name: self._bind(handler) for name, handler in HANDLERS.items()}

    def _bind(self, handler: TreeHandler) -> ToolHandler:
        async def run(call: ToolCall) -> ToolOutput:
            if not subagents_enabled(call.ctx):
                raise ToolError(
                    f"{call.name} is not available: subagents are off "
                    f"([features] {specs.FEATURE} = false)"
                )
            owner = self.owners.get(call.session)
            if owner is None:
                raise ToolError(f"{call.name}: this session has closed")
            if call.name not in COLLAB_TOOLS:
                return await handler(owner[0], call)
            report = CollabReport(owner[0], call)
            report.begin()
            output: ToolOutput | None = None
            try:
                output = await handler(owner[0], call)
                return output
            finally:
                report.end(output)

        return run

    def instructions(self, session: Session, ctx: TurnContext) -> list[str]:
        if not subagents_enabled(ctx):
            return []
        section = specs.root_section(self.max_active)
        owner = self.owners.get(session)
        if owner is None or owner[1] == ROOT_AGENT_ID:
            return [section]
        tree, agent_id = owner
        return [specs.child_role(agent_id, tree.agents[agent_id].parent_agent_id), section]

    async def session_started(self, session: Session, sub_id: str) -> None:
        if session in self.owners:
            return  # a child of a tree: the tree registered it
        tree = AgentTree(session, self.owners, self.max_active)
        self.owners[session] = (tree, ROOT_AGENT_ID)
        if subagents_enabled(session.ctx):
            await restore_children(tree, sub_id)

    async def session_closed(self, session: Session) -> None:
        owner = self.owners.pop(session, None)
        if owner is not None and owner[1] == ROOT_AGENT_ID:
            await owner[0].shutdown()
