"""Extensions: features that add tools, instructions or ops to every session.

Questions to the user, skills, web search, MCP tools, subagents and review each live in their
own module as an `Extension`; the engine core asks the extensions of its services for tool
specs and handlers, developer-message sections and op handlers, and tells them when a session
starts and ends. An extension that fails to start warns; it never takes the session down.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from codex_lsp.protocol.core.response_items import ResponseItem

if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.tools.base import ToolCall, ToolOutput
    from codex_lsp.engine.turn_context import TurnContext
    from codex_lsp.protocol.core.inputs import UserInput
    from codex_lsp.protocol.core.ops import Op

ToolHandler = Callable[["ToolCall"], Awaitable["ToolOutput"]]
# Called with an op whose wire `type` is the handler's key in `op_handlers`.
OpHandler = Callable[["Codex", "Session", str, "Op"], Awaitable[None]]


class Extension:
    """Override what the feature needs; every hook defaults to adding nothing."""

    name = "extension"

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        """Responses-API tool specs to offer the model this turn."""
        return []

    def tool_handlers(self) -> dict[str, ToolHandler]:
        """Handlers by tool name (a name may be dynamic: see `handles_tool`)."""
        return {}

    def handles_tool(self, name: str) -> ToolHandler | None:
        """A handler for a tool whose name is only known at run time (e.g. MCP tools)."""
        return None

    def instructions(self, session: Session, ctx: TurnContext) -> list[str]:
        """Sections for the developer message at the start of a thread."""
        return []

    async def extra_user_items(
        self, session: Session, ctx: TurnContext, sub_id: str, items: list[UserInput]
    ) -> list[ResponseItem]:
        """History items recorded right after a user message (e.g. the skills it names)."""
        return []

    def op_handlers(self) -> dict[str, OpHandler]:
        """Handlers for ops by their wire `type`."""
        return {}

    async def session_started(self, session: Session, sub_id: str) -> None:
        """Called once a session is configured (new, resumed or forked)."""

    async def session_closed(self, session: Session) -> None:
        """Called when the session ends; release what `session_started` acquired."""

    async def config_reloaded(self, session: Session, sub_id: str) -> None:
        """Called when the session's config was read again (`session.services.config`)."""
