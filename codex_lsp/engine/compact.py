"""Compaction: when the history nears the context window, summarise it and start over from that.

The model writes a hand-off summary; the new history is the initial context, the most recent
user messages (up to a budget) and the summary. A `compacted` rollout line records it so a
resumed thread continues from the summary.
"""

from __future__ import annotations

from typing import Any

from codex_lsp.engine.history import message_text, user_message
from codex_lsp.engine.instructions import contextual_user_message, developer_message
from codex_lsp.engine.sampling import run_sampling_request
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.model import Prompt
from codex_lsp.protocol.events import ContextCompactedEvent, WarningEvent
from codex_lsp.protocol.inputs import TokenUsage

SUMMARIZATION_PROMPT = """\
You are handing this task over to another instance of yourself that will not see the \
conversation so far. Write a context checkpoint it can continue from. Cover:
- the user's goal and any constraints or preferences they stated;
- what has been done so far, with the files and commands involved, and key decisions made;
- the current state: what works, what fails, open questions;
- the next concrete steps;
- any data that must not be lost (names, paths, values, error messages).
Be complete but concise. Reply with the summary only."""

SUMMARY_PREFIX = (
    "Another model worked on this task before you and wrote the summary below of the "
    "conversation so far. Build on it; do not redo work it says is done."
)

COMPACTION_WARNING = (
    "Heads up: long threads and multiple compactions can make the model less accurate. "
    "Start a new thread when you can."
)

# Recent user messages kept verbatim after compaction, in approximate tokens (4 bytes each).
USER_MESSAGE_BUDGET_TOKENS = 20_000

_CONTEXT_PREFIXES = (
    "<environment_context>",
    "# AGENTS.md instructions",
    "<user_instructions>",
    "<turn_aborted>",
    "<permissions instructions>",
    SUMMARY_PREFIX,
)


def is_real_user_message(item: dict[str, Any]) -> bool:
    if item.get("type") != "message" or item.get("role") != "user":
        return False
    return not message_text(item).lstrip().startswith(_CONTEXT_PREFIXES)


def recent_user_messages(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest real user messages that fit the budget, oldest first."""
    budget = USER_MESSAGE_BUDGET_TOKENS * 4
    kept: list[dict[str, Any]] = []
    for item in reversed(items):
        if not is_real_user_message(item):
            continue
        text = message_text(item)
        if len(text) > budget:
            if budget > 0:
                half = budget // 2
                kept.append(user_message(text[:half] + "\n…\n" + text[-half:]))
            break
        budget -= len(text)
        kept.append(user_message(text))
    kept.reverse()
    return kept


def compacted_history(ctx: TurnContext, old: list[dict[str, Any]], summary: str) -> list[dict[str, Any]]:
    return [
        developer_message(ctx),
        contextual_user_message(ctx),
        *recent_user_messages(old),
        user_message(f"{SUMMARY_PREFIX}\n{summary}"),
    ]


async def maybe_compact(session: Any, task: Any, ctx: TurnContext) -> None:
    if session.context_tokens() >= ctx.compact_threshold():
        await compact(session, task, ctx)


async def compact(session: Any, task: Any, ctx: TurnContext) -> None:
    sub_id = task.sub_id
    client = session.services.model_client(ctx, session.thread_id)
    prompt = Prompt(
        model=ctx.model,
        instructions=ctx.base_instructions or "",
        input=[*session.history.for_prompt(), user_message(SUMMARIZATION_PROMPT)],
        tools=[],
        prompt_cache_key=session.thread_id,
    )
    result = await run_sampling_request(session, sub_id, client, prompt, show_messages=False)
    summary = result.last_agent_message or ""
    replacement = compacted_history(ctx, session.history.items, summary)
    session.history.replace(replacement)
    session.record_line("compacted", {"message": summary, "replacement_history": replacement})
    if result.usage is not None:
        session.total_usage = session.total_usage + result.usage
    # Usage of the old, long history no longer says how full the window is.
    session.last_usage = TokenUsage()
    session.emit(sub_id, session.token_count_event())
    session.emit(sub_id, ContextCompactedEvent())
    session.emit(sub_id, WarningEvent(message=COMPACTION_WARNING))
