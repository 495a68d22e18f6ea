"""Whether an MCP tool call needs the user's approval, and asking for it.

Per tool, `[mcp_servers.<name>.tools.<tool>] approval_mode`, else the server's
`default_tools_approval_mode` (Codex's keys), decides:

* `approve`: run without asking;
* `prompt`: always ask;
* `writes`: ask unless the server marks the tool read-only;
* `auto` (the default): follow the session's approval policy. Under `untrusted` ask, unless
  the server marks the tool read-only; under `on-request`, `on-failure` and `never` run.

The engine cannot see what an MCP tool does, so it cannot sandbox it; asking is the only
guard. With `approval_policy = "never"` nobody is there to answer, so a tool set to `prompt`
is declined instead of waiting forever. The question goes out as an `exec_approval_request`
(the form every front door already renders); `approved_for_session` covers that one tool for
the rest of the session.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import Tool

from codex_lsp.engine.approvals import TurnAbortRequested
from codex_lsp.engine.tools.base import ToolCall
from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.events import ExecApprovalRequestEvent
from codex_lsp.protocol.core.policy import AskForApproval
from codex_lsp.store.config_mcp import McpServerConfig

DECISIONS = [
    ReviewDecision.APPROVED,
    ReviewDecision.APPROVED_FOR_SESSION,
    ReviewDecision.DENIED,
    ReviewDecision.ABORT,
]
REJECTED_BY_USER = "MCP tool call rejected by user"
NOBODY_TO_ASK = (
    "MCP tool call not run: this tool needs the user's approval, and the approval policy "
    "`never` allows no questions"
)
# How much of the arguments the question quotes; the UI shows the command on one line.
_ARGUMENTS_PREVIEW_CHARS = 400


def approval_mode(config: McpServerConfig, tool: str) -> str:
    own = config.tools.get(tool)
    if own is not None and own.approval_mode is not None:
        return own.approval_mode
    return config.default_tools_approval_mode


def needs_approval(config: McpServerConfig, tool: Tool, policy: AskForApproval) -> bool:
    mode = approval_mode(config, tool.name)
    if mode == "approve":
        return False
    if mode == "prompt":
        return True
    read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
    if mode == "writes":
        return not read_only
    return policy == AskForApproval.UNTRUSTED and not read_only


def session_key(server: str, tool: str) -> str:
    """Where `approved_for_session` is remembered; distinct from any command's key."""
    return json.dumps({"mcp_tool": [server, tool]}, separators=(",", ":"))


async def ask_approval(call: ToolCall, server: str, tool: str, arguments: dict[str, Any]) -> bool:
    """True to run. `denied` returns False; `abort` ends the whole turn."""
    session = call.session
    key = session_key(server, tool)
    if session.approval_cache.command_approved(key):
        return True
    preview = json.dumps(arguments, ensure_ascii=False)
    if len(preview) > _ARGUMENTS_PREVIEW_CHARS:
        preview = preview[: _ARGUMENTS_PREVIEW_CHARS - 1] + "…"
    session.emit(
        call.sub_id,
        ExecApprovalRequestEvent(
            call_id=call.call_id,
            turn_id=call.sub_id,
            command=["mcp", server, tool, preview],
            cwd=str(call.ctx.cwd),
            reason=f"Allow the MCP server `{server}` to run its tool `{tool}`?",
            parsed_cmd=[{"type": "unknown", "cmd": f"mcp {server} {tool} {preview}"}],
            available_decisions=DECISIONS,
        ),
    )
    decision = await session.approvals.ask(call.call_id)
    if decision is ReviewDecision.ABORT:
        raise TurnAbortRequested
    if decision is ReviewDecision.APPROVED_FOR_SESSION:
        session.approval_cache.approve_command(key, f"the MCP tool {tool} of {server}")
    return decision.approves
