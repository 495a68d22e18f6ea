"""Web search: the Responses API's hosted `web_search` tool, when config enables it.

The search runs on the model provider's side, so there is no handler here. The model's
`web_search_call` output items become `web_search_begin` / `web_search_end{query}` events in
sampling, and they stay in the history like any other item so later requests replay them.
Chat Completions servers have no hosted tools, so the tool is offered on the Responses wire only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codex_lsp.engine.extensions import Extension

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext

WEB_SEARCH_TOOL: dict[str, Any] = {"type": "web_search"}
# Codex's older switch for the same tool, still found in users' config files.
LEGACY_FEATURE = "web_search_request"


def web_search_enabled(ctx: TurnContext) -> bool:
    """`[tools] web_search = true` (or the legacy feature flag), on the Responses wire."""
    wanted = ctx.web_search or ctx.features.get(LEGACY_FEATURE, False)
    return bool(wanted) and ctx.provider.wire_api == "responses"


class WebSearchExtension(Extension):
    name = "web_search"

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        if not web_search_enabled(ctx):
            return []
        spec = dict(WEB_SEARCH_TOOL)
        if not ctx.web_search_live:
            # `web_search = "cached"`/`"indexed"`: results from the index, no live fetches.
            spec["external_web_access"] = False
        return [spec]
