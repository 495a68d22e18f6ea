"""Code review in the engine: the `review` op, its events, and the findings it leaves behind.

Starting a review
-----------------
Submit `Review(review_request=ReviewRequest(target=..., user_facing_hint=None,
append_to_original_thread=True))` with the targets of `codex_lsp.protocol.core.inputs`:
`UncommittedChangesTarget()`, `BaseBranchTarget(branch=...)`, `CommitTarget(sha=...,
title=None)` and `CustomTarget(instructions=...)`. Front doors that hold the extension can
call `ReviewExtension.start_review(session, sub_id, request)` directly instead.

Events (every one carries the submission id of the `review` op as `Event.id`)
----------------------------------------------------------------------------------
When the target cannot be reviewed (empty custom instructions: "Review prompt cannot be
empty"; not a git repository; unknown branch or commit; no commits yet for a branch review;
nothing changed), there is exactly one `error` event whose message says why, and no task
starts: a running turn is left alone.

Otherwise, in order:

1. `task_started{turn_id}` (the turn id is the submission id).
2. `entered_review_mode{target, user_facing_hint}`. The hint is the request's, or
   "current changes", "changes against '<branch>'", "commit <sha7>: <title>" (or
   "commit <sha7>"), or the trimmed custom instructions.
3. While the reviewer works: `token_count`, `stream_error` on reconnects, and, when it reads
   files, `exec_command_begin` / `exec_command_output_delta` / `exec_command_end` of its
   read-only commands. No `agent_message` or `agent_message_delta`: the reviewer's raw
   answer is JSON, not chat.
4. Then one of:
   * finished: `warning` if findings were dropped (no file or line range), then
     `exited_review_mode{review_output}` with the parsed `ReviewOutputEvent`, then
     `task_complete{last_agent_message}` whose message is the rendered review text
     (`render_review`). An answer that could not be parsed still finishes this way, with
     `overall_correctness == ""`, no findings, and an `overall_explanation` that starts
     "The review failed:" and quotes the answer.
   * model error: `error{message, codex_error_info}`, `exited_review_mode{review_output:
     null}`, `task_complete{last_agent_message: null}`.
   * interrupted (the `interrupt` op) or replaced by another task:
     `exited_review_mode{review_output: null}`, then `turn_aborted{reason}`.
   * an internal crash: `exited_review_mode{review_output: null}`, then the session's usual
     `error` and `task_complete`.

Findings
--------
Each `ReviewFinding` has a title starting "[P0]".."[P3]", `priority` 0-3 (0 is the most
severe), `confidence_score` in [0, 1], a Markdown `body`, and `code_location` with an
absolute, normalised `absolute_file_path` (relative answers are resolved against the
repository root) and a 1-based inclusive `line_range{start, end}` with start <= end.
`overall_correctness` is "patch is correct" or "patch is incorrect" ("" when the review
failed). `last_review(session)` returns the session's latest finished review, for the
language server's diagnostics.

The thread
----------
With `append_to_original_thread` (the default) the history gets a user message
`<user_action>…<action>review</action><results>…</results></user_action>` and an assistant
message with the rendered review, so later turns know what the review found (an unfinished
review records the user message only, with "None." results). Without it the review adds
nothing to the history (an interrupt still leaves the session's usual `<turn_aborted>` marker,
as it does for every interrupted task).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codex_lsp.engine.review.extension import ReviewExtension, last_review
    from codex_lsp.engine.review.git import (
        ReviewMaterial,
        ReviewTargetError,
        collect_review_material,
    )
    from codex_lsp.engine.review.output import REVIEW_OUTPUT_SCHEMA, parse_review_output
    from codex_lsp.engine.review.prompts import review_instructions, review_prompt, user_facing_hint
    from codex_lsp.engine.review.render import render_finding, render_review

# The names below load with their modules on first use (PEP 562): importing one submodule,
# say `render` to show a past review, must not load the reviewer's task and the model client.
_HOMES = {
    "ReviewExtension": "extension",
    "last_review": "extension",
    "ReviewMaterial": "git",
    "ReviewTargetError": "git",
    "collect_review_material": "git",
    "REVIEW_OUTPUT_SCHEMA": "output",
    "parse_review_output": "output",
    "review_instructions": "prompts",
    "review_prompt": "prompts",
    "user_facing_hint": "prompts",
    "render_finding": "render",
    "render_review": "render",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "REVIEW_OUTPUT_SCHEMA",
    "ReviewExtension",
    "ReviewMaterial",
    "ReviewTargetError",
    "collect_review_material",
    "last_review",
    "parse_review_output",
    "render_finding",
    "render_review",
    "review_instructions",
    "review_prompt",
    "user_facing_hint",
]
