"""Subagents as an engine extension: the `subagent_*` tools when `[features] subagent_tools`
is on, the reference's `collaboration` tools when `[features] multi_agent_v2` is on (to the
user's thread only), and a tree of child sessions per root thread, rebuilt when the thread is
resumed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codex_lsp.engine.extensions import Extension, ToolHandler
from codex_lsp.engine.models import CATALOGUE
from codex_lsp.engine.subagents import specs, team_specs
from codex_lsp.engine.subagents.agent import ROOT_AGENT_ID
from codex_lsp.engine.subagents.collab import COLLAB_TOOLS, CollabReport
from codex_lsp.engine.subagents.restore import restore_children
from codex_lsp.engine.subagents.team import HANDLERS as TEAM_HANDLERS, Team, TeamHandler
from codex_lsp.engine.subagents.tools import HANDLERS, TreeHandler
from codex_lsp.engine.subagents.tree import DEFAULT_MAX_ACTIVE_SUBAGENTS, AgentTree
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext


def subagents_enabled(ctx: TurnContext) -> bool:
    return bool(ctx.features.get(specs.FEATURE, False))


def team_enabled(ctx: TurnContext) -> bool:
    return bool(ctx.features.get(team_specs.FEATURE, False))


class SubagentsExtension(Extension):
    name = "subagents"

    def __init__(self, *, max_active: int | None = None) -> None:
        self.max_active = max_active or DEFAULT_MAX_ACTIVE_SUBAGENTS
        # Every live session of every tree, root or child, to its tree and agent id.
        self.owners: dict[Session, tuple[AgentTree, int]] = {}
        self.teams: dict[AgentTree, Team] = {}

    def _is_root(self, session: Session) -> bool:
        owner = self.owners.get(session)
        return owner is None or owner[1] == ROOT_AGENT_ID

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        offered = list(specs.TOOL_SPECS) if subagents_enabled(ctx) else []
        if team_enabled(ctx) and self._is_root(session):
            models = [info.slug for info in CATALOGUE if not info.hidden]
            offered.append(team_specs.namespace_spec(models))
        return offered

    def tool_handlers(self) -> dict[str, ToolHandler]:
        bound = {name: self._bind(handler) for name, handler in HANDLERS.items()}
        bound.update({name: self._bind_team(handler) for name, handler in TEAM_HANDLERS.items()})
        return bound

    def team_of(self, tree: AgentTree) -> Team:
        team = self.teams.get(tree)
        if team is None:
            team = self.teams[tree] = Team(tree)
        return team

    def _bind_team(self, handler: TeamHandler) -> ToolHandler:
        async def run(call: ToolCall) -> ToolOutput:
            owner = self.owners.get(call.session)
            if not team_enabled(call.ctx) or owner is None or owner[1] != ROOT_AGENT_ID:
                raise ToolError(f"unsupported call: {call.name}")
            return await handler(self.team_of(owner[0]), call)

        return run

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
        sections = self._subagent_instructions(session, ctx)
        if team_enabled(ctx):
            owner = self.owners.get(session)
            if owner is None or owner[1] == ROOT_AGENT_ID:
                sections.append(team_specs.root_section(self.max_active))
            else:
                sections.append(team_specs.child_section(self.team_of(owner[0]).path(owner[1])))
        return sections

    def _subagent_instructions(self, session: Session, ctx: TurnContext) -> list[str]:
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
        if subagents_enabled(session.ctx) or team_enabled(session.ctx):
            await restore_children(tree, sub_id)

    async def session_closed(self, session: Session) -> None:
        owner = self.owners.pop(session, None)
        if owner is not None and owner[1] == ROOT_AGENT_ID:
            self.teams.pop(owner[0], None)
            await owner[0].shutdown()
