"""Route a tool call from the model to its handler and shape the output item."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from codex_lsp.engine.approvals import TurnAbortRequested
from codex_lsp.engine.tools.apply_patch import handle_apply_patch
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.engine.tools.config import BUILT_IN_TOOL_NAMES
from codex_lsp.engine.tools.exec_command import handle_exec_command, handle_write_stdin
from codex_lsp.engine.tools.plan import handle_update_plan
from codex_lsp.engine.tools.shell import handle_shell_command
from codex_lsp.protocol.core.response_items import ToolOutputItem

log = logging.getLogger(__name__)

Handler = Callable[[ToolCall], Awaitable[ToolOutput]]

BUILT_IN_HANDLERS: dict[str, Handler] = {
    "exec_command": handle_exec_command,
    "write_stdin": handle_write_stdin,
    "shell_command": handle_shell_command,
    "apply_patch": handle_apply_patch,
    "update_plan": handle_update_plan,
}


class ToolRouter:
    """Handlers by tool name; extensions (MCP, subagents, questions) add theirs."""

    def __init__(self, extra: dict[str, Handler] | None = None) -> None:
        self._handlers = {**BUILT_IN_HANDLERS, **(extra or {})}
        self._resolvers: list[Callable[[str], Handler | None]] = []

    def register(self, name: str, handler: Handler) -> None:
        self._handlers[name] = handler

    def add_resolver(self, resolver: Callable[[str], Handler | None]) -> None:
        """Look up tools whose names are only known at run time (MCP servers' tools)."""
        self._resolvers.append(resolver)

    def _handler(self, name: str) -> Handler | None:
        handler = self._handlers.get(name)
        if handler is not None:
            return handler
        return next((h for r in self._resolvers if (h := r(name)) is not None), None)

    async def dispatch(self, call: ToolCall) -> ToolOutput:
        handler = self._handler(call.name)
        offered = call.tools
        # A built-in tool this turn did not offer is unsupported, as the reference says.
        if offered is not None and call.name in BUILT_IN_TOOL_NAMES - offered.names():
            handler = None
        if handler is None:
            return ToolOutput(f"unsupported call: {call.name}", success=False)
        try:
            return await handler(call)
        except ToolError as err:
            return ToolOutput(str(err), success=False)
        except TurnAbortRequested:
            raise
        except Exception as err:  # A broken tool fails its call, not the turn.
            log.exception("tool %s failed", call.name)
            return ToolOutput(f"tool {call.name} failed: {err}", success=False)


def output_item(call_item: Mapping[str, Any], output: ToolOutput) -> ToolOutputItem:
    """The history item that answers `call_item`."""
    # Echoed as the call carried it: the API matches the pair on this value.
    call_id: str = call_item.get("call_id")  # type: ignore[assignment]
    if call_item.get("type") == "custom_tool_call":
        return {
            "type": "custom_tool_call_output",
            "call_id": call_id,
            "output": output.text,
        }
    return {
        "type": "function_call_output",
        "call_id": call_id,
        "output": output.text,
    }
