"""`ReviewExtension`: serves the `review` op and keeps each session's latest review.

The target is resolved before anything starts (in a worker thread: git may take a moment),
so a target that cannot be reviewed is one `error` event and leaves a running turn alone.
A resolvable target starts the review as the session's task, replacing any running one.

The reviewer's task (`task.py`, with the sampling loop and the model client) is imported by
the first review, not with the extension, which every session is built with.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from codex_lsp.engine.extensions import Extension, OpHandler
from codex_lsp.engine.review.git import (
    MAX_DIFF_CHARS,
    ReviewMaterial,
    ReviewTargetError,
    collect_review_material,
)
from codex_lsp.engine.review.prompts import review_prompt, user_facing_hint
from codex_lsp.protocol.core.events import ErrorEvent
from codex_lsp.protocol.core.inputs import ReviewOutputEvent, ReviewRequest
from codex_lsp.protocol.core.ops import Review

if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex
    from codex_lsp.engine.session import RunningTask, Session
    from codex_lsp.protocol.core.ops import Op
    from codex_lsp.store.config import Config

# The latest finished review of each live session; it goes away with the session.
_LAST_REVIEW: weakref.WeakKeyDictionary[Session, ReviewOutputEvent] = weakref.WeakKeyDictionary()


def last_review(session: Session) -> ReviewOutputEvent | None:
    """The findings of the session's latest review that finished, if any.

    An interrupted or failed-to-run review leaves the previous one in place; a review whose
    answer could not be parsed replaces it (with no findings).
    """
    return _LAST_REVIEW.get(session)


class ReviewExtension(Extension):
    """Code review of uncommitted changes, a branch, a commit, or free instructions."""

    name = "review"

    def __init__(
        self,
        *,
        review_model: str | None = None,
        allow_commands: bool = True,
        max_diff_chars: int = MAX_DIFF_CHARS,
    ) -> None:
        self.review_model = review_model
        # Read-only commands let the reviewer look past the diff; off, it sees the diff only.
        self.allow_commands = allow_commands
        self.max_diff_chars = max_diff_chars

    @classmethod
    def from_config(cls, config: Config) -> ReviewExtension:
        return cls(review_model=config.review_model)

    def op_handlers(self) -> dict[str, OpHandler]:
        return {"review": self._handle_review}

    async def _handle_review(self, codex: Codex, session: Session, sub_id: str, op: Op) -> None:
        assert isinstance(op, Review)
        await self.start_review(session, sub_id, op.review_request)

    async def start_review(self, session: Session, sub_id: str, request: ReviewRequest) -> bool:
        """Start reviewing `request.target` as task `sub_id`; False (after an `error` event)
        when the target cannot be reviewed."""
        try:
            material = await anyio.to_thread.run_sync(
                _collect, request, session.cwd, self.max_diff_chars
            )
        except ReviewTargetError as err:
            session.emit(sub_id, ErrorEvent(message=str(err)))
            return False
        from codex_lsp.engine.review.task import ReviewJob, review_context, run_review_task

        hint = (request.user_facing_hint or "").strip() or user_facing_hint(request.target)
        job = ReviewJob(
            target=request.target,
            hint=hint,
            prompt=review_prompt(request.target, material),
            repo_root=material.repo_root,
            append_to_thread=request.append_to_original_thread,
            ctx=review_context(session.ctx, model=self.review_model, repo_root=material.repo_root),
            tools=self.allow_commands,
        )

        async def body(sess: Session, task: RunningTask) -> None:
            await run_review_task(sess, task, job, on_result=_remember)

        await session.start_task(sub_id, "review", body)
        return True

    async def session_closed(self, session: Session) -> None:
        _LAST_REVIEW.pop(session, None)


def _collect(request: ReviewRequest, cwd: Path, max_chars: int) -> ReviewMaterial:
    return collect_review_material(request.target, cwd, max_chars=max_chars)


def _remember(session: Session, output: ReviewOutputEvent) -> None:
    _LAST_REVIEW[session] = output
