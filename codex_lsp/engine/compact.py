"""Compaction: when the history nears the context window, summarise it and start over from that.

The model writes a hand-off summary; the new history is the initial context, the most recent
user messages (up to a budget) and the summary, prefixed so a later compaction or a resumed
thread recognises it. A `compacted` rollout line records it so a
resumed thread continues from the summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codex_lsp.engine.history import user_message
from codex_lsp.engine.instructions import contextual_user_message, developer_message
from codex_lsp.engine.sampling import run_sampling_request
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.model import Prompt
from codex_lsp.protocol.core.events import (
    ContextCompactedEvent,
    ContextCompactionStartedEvent,
    WarningEvent,
)
from codex_lsp.protocol.core.inputs import TokenUsage
from codex_lsp.protocol.core.response_items import ResponseItem
from codex_lsp.store.history import compacted_history

if TYPE_CHECKING:
    from codex_lsp.engine.session import RunningTask, Session

SUMMARIZATION_PROMPT = """\
You are handing this task over to another instance of yourself that will not see the \
conversation so far. Write a context checkpoint it can continue from. Cover:
- the user's goal and any constraints or preferences they stated;
- what has been done so far, with the files and commands involved, and key decisions made;
- the current state: what works, what fails, open questions;
- the next concrete steps;
- any data that must not be lost (names, paths, values, error messages).
Be complete but concise. Reply with the summary only."""

COMPACTION_WARNING = (
    "Heads up: long threads and multiple compactions can make the model less accurate. "
    "Start a new thread when you can."
)


def replacement_history(
    ctx: TurnContext,
    old: list[ResponseItem],
    summary: str,
    *,
    extra_sections: list[str] | None = None,
) -> list[ResponseItem]:
    """The initial context, then recent user messages and the summary."""
    return [
        developer_message(ctx, extra_sections=extra_sections),
        contextual_user_message(ctx),
        *compacted_history(old, summary),
    ]


async def maybe_compact(session: Session, task: RunningTask, ctx: TurnContext) -> None:
    if session.context_tokens() >= ctx.compact_threshold():
        await compact(session, task, ctx)


async def compact(session: Session, task: RunningTask, ctx: TurnContext) -> None:
    sub_id = task.sub_id
    session.emit(sub_id, ContextCompactionStartedEvent())
    client = session.model_client(ctx)
    prompt = Prompt(
        model=ctx.model,
        instructions=ctx.base_instructions or "",
        input=[*session.history.for_prompt(), user_message(SUMMARIZATION_PROMPT)],
        tools=[],
        prompt_cache_key=session.thread_id,
    )
    result = await run_sampling_request(session, sub_id, client, prompt, show_messages=False)
    summary = result.last_agent_message
    if not summary:
        # Replacing the history with an empty summary would lose the whole thread.
        session.emit(sub_id, WarningEvent(message="compaction skipped: the model wrote no summary"))
        return
    # The sections extensions add (skills, tools' notes) were in the first developer message;
    # the model only sees them again if the replacement carries them too.
    sections = session.services.instruction_sections(session, ctx)
    replacement = replacement_history(ctx, session.history.items, summary, extra_sections=sections)
    session.history.replace(replacement)
    session.record_line("compacted", {"message": summary, "replacement_history": replacement})
    if result.usage is not None:
        session.total_usage = session.total_usage + result.usage
    # Usage of the old, long history no longer says how full the window is.
    session.last_usage = TokenUsage()
    session.emit(sub_id, session.token_count_event())
    session.emit(sub_id, ContextCompactedEvent())
    session.emit(sub_id, WarningEvent(message=COMPACTION_WARNING))
