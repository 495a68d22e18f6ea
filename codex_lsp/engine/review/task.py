"""The review Task: a one-shot reviewer conversation beside the thread, then its verdict.

The reviewer gets our review instructions as base instructions and the target prompt (with
the diff) as its only user message; it never sees the thread. It may read files with
`shell_command` in a read-only sandbox under approval `never`, so it can neither change
anything nor stop to ask. Its text is not streamed as chat: the structured result arrives in
`exited_review_mode`, and the thread learns about it only when the request asks for that.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.engine.history import ConversationHistory, user_message
from codex_lsp.engine.models import model_info
from codex_lsp.engine.review.output import REVIEW_OUTPUT_SCHEMA, parse_review_output
from codex_lsp.engine.review.prompts import review_instructions
from codex_lsp.engine.review.render import assistant_message, render_review, review_user_action
from codex_lsp.engine.sampling import SamplingResult, run_sampling_request
from codex_lsp.engine.session import RunningTask, Session
from codex_lsp.engine.task import record_turn_context
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.engine.tools.router import output_item
from codex_lsp.engine.tools.shell import handle_shell_command
from codex_lsp.engine.tools.specs import SHELL_COMMAND
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.model import ModelClient, ModelError, Prompt, ResponseEvent
from codex_lsp.protocol.core.events import (
    EnteredReviewModeEvent,
    ErrorEvent,
    ExitedReviewModeEvent,
    TaskCompleteEvent,
    TaskStartedEvent,
    UserMessageEvent,
    WarningEvent,
)
from codex_lsp.protocol.core.inputs import ReviewOutputEvent, ReviewTarget
from codex_lsp.protocol.core.policy import AskForApproval, ReadOnly
from codex_lsp.protocol.core.response_items import ResponseItem

# A reviewer that keeps reading files must still answer: its last round offers no tools.
MAX_REVIEW_ROUNDS = 16
REVIEW_TOOLS = frozenset({"shell_command"})


@dataclass(frozen=True)
class ReviewJob:
    """Everything the review task needs, resolved before it starts."""

    target: ReviewTarget
    hint: str
    prompt: str
    repo_root: Path
    append_to_thread: bool
    ctx: TurnContext
    tools: bool = True


def review_context(session_ctx: TurnContext, *, model: str | None, repo_root: Path) -> TurnContext:
    """The reviewer's settings: read-only, never asks, its own instructions and schema."""
    ctx = replace(
        session_ctx,
        cwd=repo_root,
        approval_policy=AskForApproval.NEVER,
        sandbox_policy=ReadOnly(),
        base_instructions=None,
        developer_instructions=None,
        user_instructions=None,
        output_schema=REVIEW_OUTPUT_SCHEMA,
        web_search=False,
    )
    if model and model != ctx.model:
        ctx = replace(ctx, model=model, context_window=model_info(model).context_window)
    return ctx


ResultHook = Callable[[Session, ReviewOutputEvent], None]


async def run_review_task(
    session: Session, task: RunningTask, job: ReviewJob, on_result: ResultHook | None = None
) -> None:
    """The task body; `on_result(session, output)` receives every review that finished."""
    sub_id = task.sub_id
    started = time.monotonic()
    # As Codex orders them: review mode is entered before the turn starts, and the turn opens
    # with what was asked (the request's first paragraph; the diff under it stays unshown).
    session.emit(sub_id, EnteredReviewModeEvent(target=job.target, user_facing_hint=job.hint))
    session.emit(
        sub_id,
        TaskStartedEvent(
            turn_id=sub_id, started_at=session.now(), model_context_window=job.ctx.context_window
        ),
    )
    session.emit(sub_id, UserMessageEvent(message=job.prompt.split("\n\n", 1)[0]))
    try:
        answer = await _ask_reviewer(session, task, job)
    except ModelError as err:
        session.emit(sub_id, ErrorEvent(message=err.message, codex_error_info=err.codex_error_info))
        _exit_review(session, sub_id, job, None)
        _complete(session, task, started, None)
        return
    except (anyio.get_cancelled_exc_class(), Exception):
        # Interrupted, replaced or crashed: leave review mode; the session then reports
        # `turn_aborted` (or the crash) as it does for every task.
        _exit_review(session, sub_id, job, None)
        raise
    parsed = parse_review_output(answer, job.repo_root)
    if parsed.dropped:
        session.emit(
            sub_id,
            WarningEvent(
                message=f"{parsed.dropped} review finding(s) had no file or line range "
                "and were left out."
            ),
        )
    text = _exit_review(session, sub_id, job, parsed.output)
    if on_result is not None:
        on_result(session, parsed.output)
    _complete(session, task, started, text)


async def _ask_reviewer(session: Session, task: RunningTask, job: ReviewJob) -> str:
    """Sample (and run read-only commands) until the reviewer answers; its final text."""
    ctx = job.ctx
    client = _ReviewClient(session.model_client(ctx))
    transcript = ConversationHistory([user_message(job.prompt)])
    answer = ""
    for round_ in range(MAX_REVIEW_ROUNDS):
        offer_tools = job.tools and round_ < MAX_REVIEW_ROUNDS - 1
        prompt = _prompt(session, ctx, transcript, tools=offer_tools)
        result = await run_sampling_request(
            session, task.sub_id, client, prompt, show_messages=False
        )
        transcript.extend(result.items)
        _count_usage(session, task.sub_id, result)
        answer = result.last_agent_message or answer
        calls = result.tool_calls
        if not calls:
            return answer
        for item in calls:
            output = await _run_tool(session, task, ctx, item)
            transcript.append(output_item(item, output))
    return answer


def _prompt(
    session: Session, ctx: TurnContext, transcript: ConversationHistory, *, tools: bool
) -> Prompt:
    info = model_info(ctx.model)
    reasoning = None
    if info.supports_reasoning and ctx.provider.wire_api == "responses":
        # Summaries would go nowhere: the reviewer's thinking is not shown.
        reasoning = {"effort": ctx.effort or info.default_effort}
    return Prompt(
        model=ctx.model,
        instructions=review_instructions(tools=tools),
        input=transcript.for_prompt(),
        tools=[SHELL_COMMAND] if tools else [],
        parallel_tool_calls=False,
        reasoning=reasoning,
        output_schema=ctx.output_schema,
        # A key of its own: the reviewer's prefix shares nothing with the thread's.
        prompt_cache_key=f"{session.thread_id}:review",
    )


async def _run_tool(
    session: Session, task: RunningTask, ctx: TurnContext, item: Mapping[str, Any]
) -> ToolOutput:
    name = str(item.get("name") or "")
    if name not in REVIEW_TOOLS or item.get("type") != "function_call":
        return ToolOutput(f"{name or 'this tool'} is not available during a review", success=False)
    call = ToolCall(
        session=session,
        task=task,
        ctx=ctx,
        call_id=str(item.get("call_id") or item.get("id") or ""),
        name=name,
        kind="function",
        payload=str(item.get("arguments") or ""),
    )
    try:
        return await handle_shell_command(call)
    except ToolError as err:
        return ToolOutput(str(err), success=False)


def _count_usage(session: Session, sub_id: str, result: SamplingResult) -> None:
    # The reviewer's tokens cost the same, but its context is not the thread's: the total
    # grows while the thread's last-request size (which drives compaction) stays as it was.
    if result.usage is not None:
        session.total_usage = session.total_usage + result.usage
    session.emit(sub_id, session.token_count_event())


def _exit_review(
    session: Session, sub_id: str, job: ReviewJob, output: ReviewOutputEvent | None
) -> str | None:
    """Emit `exited_review_mode` and, when asked, tell the thread; the rendered text."""
    text = render_review(output) if output is not None else None
    if job.append_to_thread:
        if session.context_seen is None:
            # A review as the thread's first act: the thread's own context goes first, so
            # the history reads like any other thread's.
            record_turn_context(session, session.ctx, sub_id)
        items: list[ResponseItem] = [review_user_action(job.hint, text)]
        if text is not None:
            items.append(assistant_message(text))
        session.record_items(items)
    session.emit(sub_id, ExitedReviewModeEvent(review_output=output))
    return text


def _complete(session: Session, task: RunningTask, started: float, text: str | None) -> None:
    session.emit(
        task.sub_id,
        TaskCompleteEvent(
            turn_id=task.sub_id,
            last_agent_message=text,
            completed_at=session.now(),
            duration_ms=int((time.monotonic() - started) * 1000),
        ),
    )


class _ReviewClient:
    """A model client whose requests say they come from the review sub-agent."""

    def __init__(self, inner: ModelClient) -> None:
        self._inner = inner

    def stream(
        self, prompt: Prompt, *, extra_headers: Mapping[str, str] | None = None
    ) -> AsyncIterator[ResponseEvent]:
        headers = {"x-openai-subagent": "review", **(extra_headers or {})}
        return self._inner.stream(prompt, extra_headers=headers)
