"""`review/start`: a code review as a turn of its own, on the thread or on a fork of it.

The engine resolves the target (git diff, merge base, commit) before it starts anything, and
refuses one it cannot review (empty instructions, not a repository, unknown branch or commit,
nothing changed) with a single `error`. So the request waits for the engine's first word: the
refusal is a -32602 carrying the engine's message and no turn exists; otherwise the response
carries the review's turn, and the turn's events, held meanwhile, follow it on the wire:
`turn/started`, the `enteredReviewMode` item (the hint), the reviewer's read-only commands, the
`exitedReviewMode` item (the rendered review), `turn/completed`.

`delivery: "detached"` (our extension; the reference schema has `inline` only) forks the thread
and reviews on the fork, whose id is the response's `reviewThreadId`; the fork is announced with
`thread/started` first. The structured findings stay in the engine (`last_review`), where the
language server reads them to publish diagnostics.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from codex_lsp.api.convert import invalid
from codex_lsp.api.threads.items import user_message
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.threads.replies import ThreadGone
from codex_lsp.engine.review import last_review
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.core.events import EnteredReviewModeEvent
from codex_lsp.protocol.core.inputs import ReviewOutputEvent, ReviewRequest
from codex_lsp.protocol.core.ops import Review
from codex_lsp.protocol.turns.items import TextUserInput
from codex_lsp.protocol.turns.models import ReviewStartParams, Turn
from codex_lsp.store.home import new_thread_id

log = logging.getLogger(__name__)

# The engine's answers to a `review` op: the task began, or the target was refused.
# The engine's first word on a review: it entered review mode, or why it could not.
_FIRST_WORD = ("entered_review_mode", "error")


@dataclass(frozen=True)
class StartedReview:
    """A review the engine accepted; its events are held until `thread.release(turn.id)`."""

    thread: LoadedThread
    turn: Turn


def review_request(params: ReviewStartParams) -> ReviewRequest:
    """The engine's request for `params` (the targets share their field names)."""
    append = params.append_to_original_thread
    return ReviewRequest.model_validate(
        {
            "target": dump(params.target),
            "append_to_original_thread": True if append is None else append,
        }
    )


async def start_review(thread: LoadedThread, params: ReviewStartParams) -> StartedReview:
    """Submit the review on `thread`; raises -32602 with the engine's reason if it refused."""
    if thread.codex.session is None or thread.map is None:
        raise invalid("threadId", f"thread {params.thread_id} has no running session")
    request = review_request(params)
    # A UUIDv7 like every turn id; it is also the op's submission id, so its events carry it.
    turn_id = new_thread_id()
    try:
        first = await thread.ask(
            Review(review_request=request), _FIRST_WORD, sub_id=turn_id, hold=True
        )
    except ThreadGone:
        raise invalid(
            "threadId", f"thread {thread.thread_id} closed before the review began"
        ) from None
    if first.msg.type == "error":
        raise invalid("target", first.msg.message)
    hint = first.msg_as(EnteredReviewModeEvent).user_facing_hint or ""
    # What was asked, as the reference server answers it; the turn has no root yet.
    asked = user_message(new_thread_id(), [TextUserInput(text=hint)])
    turn = Turn(id=turn_id, status="inProgress", items=[asked], items_view="notLoaded")
    return StartedReview(thread, turn)


def thread_review(thread: LoadedThread | None) -> ReviewOutputEvent | None:
    """The structured findings of the latest review that finished on `thread`, if any: one
    finished since it was loaded, else the last one its rollout recorded before it was resumed."""
    session = thread.codex.session if thread is not None else None
    if thread is None or session is None:
        return None
    recorded = resumed_review(thread)
    return last_review(session) or (recorded[1] if recorded is not None else None)


def resumed_review(thread: LoadedThread | None) -> tuple[str, ReviewOutputEvent] | None:
    """The latest review that finished before `thread` was resumed, with the id of its turn:
    the last `exited_review_mode` with findings among the events its rollout had."""
    configured = thread.configured if thread is not None else None
    if thread is None or configured is None:
        return None
    found: tuple[str, ReviewOutputEvent] | None = None
    turn_id = ""
    for event in configured.initial_messages or []:
        kind = event.get("type")
        output = event.get("review_output")
        if kind in ("task_started", "turn_started"):
            turn_id = str(event.get("turn_id") or "")
        elif kind == "exited_review_mode" and isinstance(output, dict):
            try:
                found = (turn_id, ReviewOutputEvent.model_validate(output))
            except ValueError:
                log.warning("the review recorded in thread %s is unreadable", thread.thread_id)
    return found
