"""`ThreadItem`s built from core events: one builder per item kind.

Live turns (`event_map`) and turns rebuilt from a rollout (`rebuild`) build items the same way,
so a thread reads back exactly as it streamed.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from codex_lsp.api.convert import command_actions, command_string, duration_ms, file_changes
from codex_lsp.engine.review.render import render_review
from codex_lsp.protocol.core.events import (
    ExecApprovalRequestEvent,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
)
from codex_lsp.protocol.core.inputs import ReviewOutputEvent
from codex_lsp.protocol.turns.items import (
    AgentMessageThreadItem,
    CollabAgentState,
    CollabAgentToolCallThreadItem,
    CommandExecutionSource,
    CommandExecutionThreadItem,
    ContextCompactionThreadItem,
    EnteredReviewModeThreadItem,
    ExitedReviewModeThreadItem,
    FileChangeThreadItem,
    McpToolCallError,
    McpToolCallResult,
    McpToolCallStatus,
    McpToolCallThreadItem,
    MessagePhase,
    PatchApplyStatus,
    ReasoningThreadItem,
    SearchWebSearchAction,
    SubAgentActivityThreadItem,
    UserMessageThreadItem,
    WebSearchThreadItem,
)

_EXEC_SOURCE: dict[str, CommandExecutionSource] = {
    "agent": "agent",
    "user_shell": "userShell",
    "unified_exec_startup": "unifiedExecStartup",
    "unified_exec_interaction": "unifiedExecInteraction",
}
REVIEW_NOT_FINISHED = "The review did not finish."


def user_message(
    item_id: str, content: list[Any], at_ms: int | None = None
) -> UserMessageThreadItem:
    return UserMessageThreadItem(
        id=item_id, content=content, started_at_ms=at_ms, completed_at_ms=at_ms
    )


def agent_message(
    item_id: str, text: str, phase: MessagePhase | None = None
) -> AgentMessageThreadItem:
    return AgentMessageThreadItem(id=item_id, text=text, phase=phase)


def reasoning(item_id: str, summary: list[str], content: list[str]) -> ReasoningThreadItem:
    return ReasoningThreadItem(id=item_id, summary=summary, content=content)


def command_pending(
    event: ExecCommandBeginEvent | ExecApprovalRequestEvent, started_at_ms: int | None = None
) -> CommandExecutionThreadItem:
    """The in-progress command item, from its begin event or from the approval asked first."""
    source = getattr(event, "source", "agent")
    return CommandExecutionThreadItem(
        id=event.call_id,
        command=command_string(event.command),
        cwd=event.cwd,
        status="inProgress",
        command_actions=command_actions(event.parsed_cmd),
        source=_EXEC_SOURCE.get(source, "agent"),
        process_id=getattr(event, "process_id", None),
        started_at_ms=started_at_ms,
    )


def command_finished(
    event: ExecCommandEndEvent, started_at_ms: int | None = None, completed_at_ms: int | None = None
) -> CommandExecutionThreadItem:
    declined = event.status == "declined"
    return CommandExecutionThreadItem(
        id=event.call_id,
        command=command_string(event.command),
        cwd=event.cwd,
        status=event.status,
        command_actions=command_actions(event.parsed_cmd),
        source=_EXEC_SOURCE.get(event.source, "agent"),
        process_id=event.process_id,
        # A declined command never ran: it has no output, exit code or duration.
        aggregated_output=None if declined else event.aggregated_output,
        exit_code=None if declined else event.exit_code,
        duration_ms=None if declined else duration_ms(event.duration),
        started_at_ms=started_at_ms,
        completed_at_ms=completed_at_ms,
    )


def file_change(
    call_id: str,
    changes: dict[str, dict[str, Any]],
    status: PatchApplyStatus,
    started_at_ms: int | None = None,
    completed_at_ms: int | None = None,
) -> FileChangeThreadItem:
    return FileChangeThreadItem(
        id=call_id,
        changes=file_changes(changes),
        status=status,
        started_at_ms=started_at_ms,
        completed_at_ms=completed_at_ms,
    )


def web_search(call_id: str, query: str) -> WebSearchThreadItem:
    action = SearchWebSearchAction(query=query) if query else None
    return WebSearchThreadItem(id=call_id, query=query, action=action)


def mcp_tool_call(call_id: str, invocation: dict[str, Any], **end: Any) -> McpToolCallThreadItem:
    """An MCP call; pass `result`, `error` and `duration` (from the end event) once it ended."""
    result, error, duration = end.get("result"), end.get("error"), end.get("duration")
    status: McpToolCallStatus = "inProgress"
    if end:
        status = "failed" if error or _is_error(result) else "completed"
    return McpToolCallThreadItem(
        id=call_id,
        server=str(invocation.get("server") or ""),
        tool=str(invocation.get("tool") or ""),
        status=status,
        arguments=invocation.get("arguments"),
        result=McpToolCallResult(
            content=list(result.get("content") or []),
            structured_content=result.get("structuredContent", result.get("structured_content")),
        )
        if isinstance(result, dict)
        else None,
        error=McpToolCallError(message=error) if error else None,
        duration_ms=duration_ms(duration) if duration is not None else None,
    )


def _is_error(result: Any) -> bool:
    return isinstance(result, dict) and bool(result.get("isError", result.get("is_error")))


def entered_review(item_id: str, hint: str) -> EnteredReviewModeThreadItem:
    return EnteredReviewModeThreadItem(id=item_id, review=hint)


def exited_review(item_id: str, output: Any) -> ExitedReviewModeThreadItem:
    return ExitedReviewModeThreadItem(id=item_id, review=review_text(output))


def context_compaction(item_id: str) -> ContextCompactionThreadItem:
    return ContextCompactionThreadItem(id=item_id)


def review_text(output: ReviewOutputEvent | dict[str, Any] | None) -> str:
    """The review as the engine renders it for the thread (explanation, then one entry per
    finding); a review that did not finish (interrupted, or the model failed) says so."""
    if output is None:
        return REVIEW_NOT_FINISHED
    if isinstance(output, dict):  # rebuilt from a rollout
        try:
            output = ReviewOutputEvent.model_validate(output)
        except ValidationError:
            return REVIEW_NOT_FINISHED
    return render_review(output)


def collab_agent_tool_call(msg: dict[str, Any]) -> CollabAgentToolCallThreadItem:
    """A subagent tool's call, from its begin event (in progress) or its end event."""
    states = msg.get("agents_states") or {}
    return CollabAgentToolCallThreadItem(
        id=str(msg.get("call_id") or ""),
        tool=msg.get("tool") or "spawnAgent",
        status=msg.get("status") or "inProgress",
        sender_thread_id=str(msg.get("sender_thread_id") or ""),
        receiver_thread_ids=[str(each) for each in msg.get("receiver_thread_ids") or []],
        prompt=msg.get("prompt"),
        agents_states={
            str(thread_id): CollabAgentState(
                status=state.get("status") or "running", message=state.get("message")
            )
            for thread_id, state in states.items()
            if isinstance(state, dict)
        },
    )


def sub_agent_activity(msg: dict[str, Any]) -> SubAgentActivityThreadItem:
    """A child's activity, from its event (live or read back from a rollout)."""
    return SubAgentActivityThreadItem(
        id=str(msg.get("item_id") or ""),
        kind=msg.get("kind") or "started",
        agent_thread_id=str(msg.get("agent_thread_id") or ""),
        agent_path=str(msg.get("agent_path") or ""),
        model=msg.get("model"),
        reasoning_effort=msg.get("reasoning_effort"),
    )
