"""`codex-lsp exec --json`: the engine's events as the thread events `codex exec --json` prints.

One JSON object a line: `thread.started` once the session is configured, `turn.started`,
`item.started` / `item.updated` / `item.completed` for what the agent says and does, then
`turn.completed` (with the token usage) or `turn.failed`; `error` for an error the engine
reports. Items carry codex's shapes (`agent_message`, `reasoning`, `command_execution`,
`file_change`, `mcp_tool_call`, `web_search`, `todo_list`, `error`) and ids `item_0`,
`item_1`, ... in the order they appear, so scripts and OpenAI's SDKs written for codex read
them unchanged. The engine's own events stay available behind `--raw-events`.
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any, TextIO

from codex_lsp.cli.exec_render import approval_text, write_shown
from codex_lsp.engine.review.render import render_review
from codex_lsp.protocol.core.events import (
    AgentMessageEvent,
    AgentReasoningEvent,
    ApplyPatchApprovalRequestEvent,
    ErrorEvent,
    Event,
    ExecApprovalRequestEvent,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
    ExitedReviewModeEvent,
    McpToolCallBeginEvent,
    McpToolCallEndEvent,
    PatchApplyBeginEvent,
    PatchApplyEndEvent,
    PlanUpdateEvent,
    SessionConfiguredEvent,
    TaskCompleteEvent,
    TaskStartedEvent,
    TokenCountEvent,
    WarningEvent,
    WebSearchBeginEvent,
    WebSearchEndEvent,
)
from codex_lsp.protocol.core.inputs import PlanItem, TokenUsage

Json = dict[str, Any]


def command_line(argv: list[str]) -> str:
    """A command as codex's items show it: its argv joined as a shell would read it."""
    return shlex.join(argv)


def file_changes(changes: dict[str, dict[str, Any]]) -> list[Json]:
    kinds = {"add": "add", "delete": "delete"}
    return [
        {"path": path, "kind": kinds.get(str(change.get("type")), "update")}
        for path, change in changes.items()
    ]


def usage_of(total: TokenUsage | None) -> Json:
    total = total or TokenUsage()
    return {
        "input_tokens": total.input_tokens,
        "cached_input_tokens": total.cached_input_tokens,
        "cache_write_input_tokens": 0,
        "output_tokens": total.output_tokens,
        "reasoning_output_tokens": total.reasoning_output_tokens,
    }


def _todo_items(plan: list[PlanItem]) -> list[Json]:
    return [{"text": step.step, "completed": step.status == "completed"} for step in plan]


class ThreadEventWriter:
    """Turns engine events into thread events and writes each as one line on `out`."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._next_id = 0
        # The engine's call id of an item that started and has not completed yet -> our id.
        self._open: dict[str, str] = {}
        self._todo: tuple[str, list[Json]] | None = None
        self._usage: TokenUsage | None = None
        self._turn_error: str | None = None
        self.final_message: str | None = None

    # -- the Renderer interface -------------------------------------------------------------

    def show(self, event: Event) -> None:
        for line in self.translate(event):
            self._out.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
        self._out.flush()
        # An approval is asked of the person at the terminal, on stderr.
        match event.msg:
            case ExecApprovalRequestEvent() | ApplyPatchApprovalRequestEvent():
                write_shown(sys.stderr, approval_text(event.msg))

    def prompt(self, text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    # -- translation ------------------------------------------------------------------------

    def translate(self, event: Event) -> list[Json]:
        msg = event.msg
        match msg:
            case SessionConfiguredEvent(session_id=session_id):
                return [{"type": "thread.started", "thread_id": session_id}]
            case TaskStartedEvent():
                self._turn_error = None
                self.final_message = None
                return [{"type": "turn.started"}]
            case AgentMessageEvent(message=text):
                self.final_message = text
                return [self._completed({"type": "agent_message", "text": text})]
            case ExitedReviewModeEvent(review_output=output) if output is not None:
                # A review ends with its findings as the agent's message, as codex shows it.
                self.final_message = render_review(output)
                return [self._completed({"type": "agent_message", "text": self.final_message})]
            case AgentReasoningEvent(text=text):
                if not text.strip():
                    return []
                return [self._completed({"type": "reasoning", "text": text})]
            case ExecCommandBeginEvent(call_id=call_id, command=argv):
                item = _command_item(argv, "", None, "in_progress")
                return [self._started(call_id, item)]
            case ExecCommandEndEvent() as end:
                status = end.status if end.status != "completed" or end.exit_code == 0 else "failed"
                item = _command_item(end.command, end.aggregated_output, end.exit_code, status)
                return [self._finished(end.call_id, item)]
            case PatchApplyBeginEvent(call_id=call_id, changes=changes):
                item = {"type": "file_change", "changes": file_changes(changes)}
                return [self._started(call_id, {**item, "status": "in_progress"})]
            case PatchApplyEndEvent() as end:
                status = "completed" if end.success else "failed"
                item = {"type": "file_change", "changes": file_changes(end.changes)}
                return [self._finished(end.call_id, {**item, "status": status})]
            case McpToolCallBeginEvent(call_id=call_id, invocation=invocation):
                return [self._started(call_id, _mcp_item(invocation, None, None, "in_progress"))]
            case McpToolCallEndEvent() as end:
                status = "failed" if end.error or (end.result or {}).get("isError") else "completed"
                item = _mcp_item(end.invocation, end.result, end.error, status)
                return [self._finished(end.call_id, item)]
            case WebSearchBeginEvent(call_id=call_id):
                return [self._started(call_id, _search_item(call_id, ""))]
            case WebSearchEndEvent(call_id=call_id, query=query):
                return [self._finished(call_id, _search_item(call_id, query))]
            case PlanUpdateEvent(plan=plan):
                return [self._plan(_todo_items(plan))]
            case TokenCountEvent(info=info) if info is not None:
                self._usage = info.total_token_usage
                return []
            case WarningEvent(message=message):
                return [self._completed({"type": "error", "message": message})]
            case ErrorEvent(message=message):
                self._turn_error = message
                return [{"type": "error", "message": message}]
            case TaskCompleteEvent():
                return self._turn_end()
        return []

    def _turn_end(self) -> list[Json]:
        lines: list[Json] = []
        if self._todo is not None:
            item_id, items = self._todo
            self._todo = None
            lines.append(_event("item.completed", item_id, {"type": "todo_list", "items": items}))
        if self._turn_error is not None:
            self.final_message = None
            lines.append({"type": "turn.failed", "error": {"message": self._turn_error}})
        else:
            lines.append({"type": "turn.completed", "usage": usage_of(self._usage)})
        return lines

    def _new_id(self) -> str:
        item_id = f"item_{self._next_id}"
        self._next_id += 1
        return item_id

    def _completed(self, details: Json) -> Json:
        return _event("item.completed", self._new_id(), details)

    def _started(self, call_id: str, details: Json) -> Json:
        item_id = self._open.get(call_id)
        if item_id is not None:
            return _event("item.updated", item_id, details)
        item_id = self._open[call_id] = self._new_id()
        return _event("item.started", item_id, details)

    def _finished(self, call_id: str, details: Json) -> Json:
        item_id = self._open.pop(call_id, None) or self._new_id()
        return _event("item.completed", item_id, details)

    def _plan(self, items: list[Json]) -> Json:
        if self._todo is None:
            item_id = self._new_id()
            self._todo = (item_id, items)
            return _event("item.started", item_id, {"type": "todo_list", "items": items})
        item_id = self._todo[0]
        self._todo = (item_id, items)
        return _event("item.updated", item_id, {"type": "todo_list", "items": items})


def _event(kind: str, item_id: str, details: Json) -> Json:
    return {"type": kind, "item": {"id": item_id, **details}}


def _command_item(argv: list[str], output: str, exit_code: int | None, status: str) -> Json:
    return {
        "type": "command_execution",
        "command": command_line(argv),
        "aggregated_output": output,
        "exit_code": exit_code,
        "status": status,
    }


def _mcp_item(
    invocation: dict[str, Any], result: dict[str, Any] | None, error: str | None, status: str
) -> Json:
    shown = None
    if result is not None:
        shown = {
            "content": result.get("content", []),
            "structured_content": result.get("structuredContent"),
        }
    return {
        "type": "mcp_tool_call",
        "server": invocation.get("server", ""),
        "tool": invocation.get("tool", ""),
        "arguments": invocation.get("arguments"),
        "result": shown,
        "error": {"message": error} if error else None,
        "status": status,
    }


def _search_item(call_id: str, query: str) -> Json:
    action = {"type": "search", "query": query} if query else {"type": "other"}
    return {"type": "web_search", "id": call_id, "query": query, "action": action}
