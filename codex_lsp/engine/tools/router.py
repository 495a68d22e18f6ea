"""Route a tool call from the model to its handler and shape the output item."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from codex_lsp.engine.approvals import TurnAbortRequested
from codex_lsp.engine.hooks import HookTarget, hook_target, matching, run_hooks
from codex_lsp.engine.tools.apply_patch import handle_apply_patch
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.engine.tools.config import BUILT_IN_TOOL_NAMES
from codex_lsp.engine.tools.exec_command import handle_exec_command, handle_write_stdin
from codex_lsp.engine.tools.plan import handle_update_plan
from codex_lsp.engine.tools.shell import handle_shell_command
from codex_lsp.protocol.core.response_items import ContentItem, ToolOutputItem

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
        hooks = getattr(call.session.services.config, "hooks", None) or {}
        pre, post = hooks.get("PreToolUse") or [], hooks.get("PostToolUse") or []
        target = None
        if pre or post:
            target = hook_target(call.name, _arguments(call), call.payload)
            commands = matching(pre, target)
            if commands:
                reason = await run_hooks(
                    "PreToolUse", commands, _hook_payload(call, target), call.ctx.cwd
                )
                if reason is not None:
                    return ToolOutput(f"Blocked by a PreToolUse hook: {reason}", success=False)
        output = await self._run(handler, call)
        if target is not None:
            commands = matching(post, target)
            if commands:
                payload = {**_hook_payload(call, target), "tool_response": output.text}
                reason = await run_hooks("PostToolUse", commands, payload, call.ctx.cwd)
                if reason is not None:
                    output = ToolOutput(
                        f"{output.text}\n\nPostToolUse hook: {reason}", success=output.success
                    )
        return output

    async def _run(self, handler: Handler, call: ToolCall) -> ToolOutput:
        try:
            return await handler(call)
        except ToolError as err:
            return ToolOutput(str(err), success=False)
        except TurnAbortRequested:
            raise
        except Exception as err:  # A broken tool fails its call, not the turn.
            log.exception("tool %s failed", call.name)
            return ToolOutput(f"tool {call.name} failed: {err}", success=False)


def _arguments(call: ToolCall) -> Any:
    if call.kind != "function":
        return None
    try:
        return json.loads(call.payload)
    except ValueError:
        return None


def _hook_payload(call: ToolCall, target: HookTarget) -> dict[str, Any]:
    rollout = call.session.rollout_path
    return {
        "session_id": call.session.thread_id,
        "turn_id": call.task.sub_id,
        "transcript_path": str(rollout) if rollout is not None else None,
        "cwd": str(call.ctx.cwd),
        "model": call.ctx.model,
        "permission_mode": "default",
        "tool_name": target.tool_name,
        "tool_input": target.tool_input,
        "tool_use_id": call.call_id,
    }


def output_item(call_item: Mapping[str, Any], output: ToolOutput) -> ToolOutputItem:
    """The history item that answers `call_item`."""
    # Echoed as the call carried it: the API matches the pair on this value.
    call_id: str = call_item.get("call_id")  # type: ignore[assignment]
    body = _output_body(output)
    if call_item.get("type") == "custom_tool_call":
        return {"type": "custom_tool_call_output", "call_id": call_id, "output": body}
    return {"type": "function_call_output", "call_id": call_id, "output": body}


def _output_body(output: ToolOutput) -> str | list[ContentItem]:
    """Text, or the content parts a tool answered with (an image it looked at)."""
    if output.content:
        return cast("list[ContentItem]", output.content)
    return output.text
