"""Review mode: `entered_review_mode` / `exited_review_mode` become the `enteredReviewMode` (the
hint) and `exitedReviewMode` (the rendered review) items.

A review whose answer could not be parsed still ends the engine's task normally; here it also
fails the turn, with the engine's explanation as the error, so a client need not read the text
to know the review failed.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from codex_lsp.api.convert import turn_error
from codex_lsp.api.threads import items
from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.open_items import OpenItems
from codex_lsp.api.threads.events.state import Handler, ThreadState
from codex_lsp.engine.review.output import CORRECT, INCORRECT
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.core.inputs import ReviewOutputEvent
from codex_lsp.store.home import new_thread_id

# How the engine's review explanation starts when the reviewer's answer was not a review.
FAILED_REVIEW_PREFIX = "The review failed:"


def failed_review_message(output: ReviewOutputEvent | dict[str, Any] | None) -> str | None:
    """The explanation of a review that failed, else None.

    A failed review is the engine's stand-in for an answer it could not parse: no verdict, no
    findings, and an explanation saying so (see `codex_lsp.engine.review`).
    """
    if isinstance(output, dict):  # rebuilt from a rollout
        try:
            output = ReviewOutputEvent.model_validate(output)
        except ValidationError:
            return None
    if (
        output is None
        or output.overall_correctness in (CORRECT, INCORRECT)
        or output.findings
        or not output.overall_explanation.startswith(FAILED_REVIEW_PREFIX)
    ):
        return None
    return output.overall_explanation


class ReviewEvents:
    def __init__(self, state: ThreadState, notifier: Notifier, open_items: OpenItems) -> None:
        self._state = state
        self._notifier = notifier
        self._items = open_items

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "entered_review_mode": self._entered_review,
            "exited_review_mode": self._exited_review,
        }

    def _entered_review(self, event: ev.Event) -> None:
        # Review mode is entered before the review's turn starts: the item names that turn.
        msg = event.msg_as(ev.EnteredReviewModeEvent)
        item = items.entered_review(new_thread_id(), msg.user_facing_hint or "")
        self._notifier.item_started(item, turn_id=event.id)
        self._notifier.item_completed(item, turn_id=event.id)

    def _exited_review(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.ExitedReviewModeEvent)
        turn = self._state.turn
        if turn is None:
            return
        exited = items.exited_review(new_thread_id(), msg.review_output)
        self._items.instant(exited)
        # The review text is also the turn's answer, as an agent message.
        answer = items.agent_message(f"msg_{uuid.uuid4().hex}", exited.review)
        self._items.instant(answer)
        turn.last_message = answer
        failure = failed_review_message(msg.review_output)
        if failure is not None and turn.error is None:
            turn.error = turn_error(failure)
            self._notifier.error(turn.error, turn.id, will_retry=False)
