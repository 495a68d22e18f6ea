"""A subagent's recent activity as short lines, and the reasoning header UIs show for it.

`subagent_logs` reads these lines; they come from the child's own events while it runs, and
from the events persisted in its rollout when a resumed thread has not woken it yet.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from codex_lsp.engine.shell import shell_script
from codex_lsp.protocol.core.events import (
    AgentMessageEvent,
    AgentReasoningEvent,
    ErrorEvent,
    EventMsg,
    ExecCommandEndEvent,
    McpToolCallEndEvent,
    PatchApplyEndEvent,
    PlanUpdateEvent,
    TaskCompleteEvent,
    TurnAbortedEvent,
    UserMessageEvent,
    WarningEvent,
    WebSearchEndEvent,
    parse_event_msg,
)

# Lines kept per child; `subagent_logs` returns the newest of them.
ACTIVITY_LIMIT = 200
MAX_LINE_CHARS = 400
MAX_HEADER_CHARS = 120

_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def clip(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """One line of at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def reasoning_header(text: str) -> str | None:
    """The bold heading a reasoning summary opens with (`**Planning the fix**`), else its first
    line: what a UI shows as "what the agent is thinking about"."""
    stripped = text.strip()
    if not stripped:
        return None
    match = _BOLD.search(stripped)
    header = match.group(1) if match else stripped.splitlines()[0]
    return clip(header, MAX_HEADER_CHARS) or None


def _command_text(command: list[str]) -> str:
    # `bash -lc "<script>"` reads better as the script itself.
    script = shell_script(command)
    return " ".join(command) if script is None else script


def activity_line(msg: EventMsg) -> str | None:
    """The line an event adds to the log, or None for events not worth a line (deltas...)."""
    if isinstance(msg, UserMessageEvent):
        return f"message: {clip(msg.message)}"
    if isinstance(msg, AgentMessageEvent):
        return f"assistant: {clip(msg.message)}"
    if isinstance(msg, AgentReasoningEvent):
        return f"reasoning: {reasoning_header(msg.text) or ''}"
    if isinstance(msg, ExecCommandEndEvent):
        return f"ran `{clip(_command_text(msg.command), 200)}` ({msg.status}, exit {msg.exit_code})"
    if isinstance(msg, PatchApplyEndEvent):
        files = ", ".join(sorted(msg.changes)) or "no files"
        return f"patch {msg.status}: {clip(files, 200)}"
    if isinstance(msg, McpToolCallEndEvent):
        what = msg.invocation.get("tool") or msg.call_id
        return f"mcp tool {what}: {'failed' if msg.error else 'done'}"
    if isinstance(msg, WebSearchEndEvent):
        return f"web search: {clip(msg.query, 200)}"
    if isinstance(msg, PlanUpdateEvent):
        steps = "; ".join(f"[{item.status}] {item.step}" for item in msg.plan)
        return f"plan: {clip(steps)}"
    if isinstance(msg, ErrorEvent):
        return f"error: {clip(msg.message)}"
    if isinstance(msg, WarningEvent):
        return f"warning: {clip(msg.message)}"
    if isinstance(msg, TaskCompleteEvent):
        return "task complete"
    if isinstance(msg, TurnAbortedEvent):
        return f"turn aborted ({msg.reason})"
    return None


def lines_from_persisted(events: list[dict[str, Any]]) -> tuple[list[str], str | None]:
    """Log lines and the last agent message from a rollout's persisted events."""
    lines: list[str] = []
    last_message: str | None = None
    for payload in events:
        try:
            msg = parse_event_msg(payload)
        except ValidationError:
            continue  # a newer writer's event kind; nothing to show for it
        line = activity_line(msg)
        if line is not None:
            lines.append(line)
        if isinstance(msg, TaskCompleteEvent) and msg.last_agent_message:
            last_message = msg.last_agent_message
    return lines[-ACTIVITY_LIMIT:], last_message
