"""Turns on the v2 wire: `Turn` and the `turn/start`, `turn/interrupt`, `review/start` methods."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import (
    ApprovalsReviewer,
    AskForApproval,
    ExperimentalOpt,
    Opt,
    Personality,
    ReasoningEffort,
    ReasoningSummary,
    SandboxPolicy,
    V2Model,
)
from codex_lsp.protocol.methods import MethodTable
from codex_lsp.protocol.turns.items import ThreadItem, UserInput

TurnStatus = TypeAliasType(
    "TurnStatus",
    Literal["completed", "interrupted", "failed", "inProgress"],
)
TurnItemsView = TypeAliasType("TurnItemsView", Literal["notLoaded", "summary", "full"])

CodexErrorKind = TypeAliasType(
    "CodexErrorKind",
    Literal[
        "contextWindowExceeded",
        "sessionBudgetExceeded",
        "usageLimitExceeded",
        "rateLimitExceeded",
        "flexUnavailable",
        "serverOverloaded",
        "modelNotFound",
        "policyCapacityUnavailable",
        "cyberPolicy",
        "misalignmentPolicyViolation",
        "tooManyDenials",
        "internalServerError",
        "unauthorized",
        "badRequest",
        "threadRollbackFailed",
        "sandboxError",
        "other",
    ],
)
"""The plain-string error kinds; the HTTP-flavoured ones are objects (see `http_error_info`)."""

CodexErrorInfo = TypeAliasType("CodexErrorInfo", str | dict[str, Any])
"""A `CodexErrorKind` string, or `{kind: {...}}` such as `{"httpConnectionFailed": {...}}`.

The schema keeps a catch-all for any string or object, so newer kinds stay readable.
"""

HttpErrorKind = Literal[
    "httpConnectionFailed",
    "responseStreamConnectionFailed",
    "responseStreamDisconnected",
    "responseTooManyFailedAttempts",
]


def http_error_info(kind: HttpErrorKind, http_status_code: int | None) -> dict[str, Any]:
    """The object form of an HTTP-related `CodexErrorInfo`."""
    return {kind: {"httpStatusCode": http_status_code}}


class TurnError(V2Model):
    message: str
    codex_error_info: CodexErrorInfo | None = None
    additional_details: str | None = None
    misalignment: Any = None


class Turn(V2Model):
    """A turn: `items` is empty in most notifications and filled when a thread is read back;
    `items_view` says which (`notLoaded`, `summary` for the final items, `full`)."""

    id: str
    root_turn_id: str | None = None
    items: list[ThreadItem] = Field(default_factory=list)
    items_view: TurnItemsView = "notLoaded"
    status: TurnStatus
    error: TurnError | None = None
    started_at: int | None = None
    completed_at: int | None = None
    duration_ms: int | None = None


class TurnStartParams(V2Model):
    """Start a turn. The overrides stick: later turns of the thread keep them."""

    thread_id: str
    input: list[UserInput]
    cwd: Opt[str] = None
    approval_policy: Opt[AskForApproval] = None
    approvals_reviewer: Opt[ApprovalsReviewer] = None
    sandbox_policy: Opt[SandboxPolicy] = None
    model: Opt[str] = None
    service_tier: Opt[str] = None
    effort: Opt[ReasoningEffort] = None
    summary: Opt[ReasoningSummary] = None
    personality: Opt[Personality] = None
    output_schema: Opt[Any] = None
    client_user_message_id: Opt[str] = None
    # A `threads.ops.CollaborationMode`: "plan" explores read-only and ends with a plan.
    collaboration_mode: ExperimentalOpt[Any] = None


class TurnStartResponse(V2Model):
    turn: Turn


class TurnInterruptParams(V2Model):
    thread_id: str
    turn_id: str


class TurnInterruptResponse(V2Model):
    """Empty: the interrupted turn reports itself through `turn/completed`."""


class UncommittedChangesReviewTarget(V2Model):
    type: Literal["uncommittedChanges"] = "uncommittedChanges"


class BaseBranchReviewTarget(V2Model):
    type: Literal["baseBranch"] = "baseBranch"
    branch: str


class CommitReviewTarget(V2Model):
    type: Literal["commit"] = "commit"
    sha: str
    title: str | None = None


class CustomReviewTarget(V2Model):
    type: Literal["custom"] = "custom"
    instructions: str


ReviewTarget = TypeAliasType(
    "ReviewTarget",
    Annotated[
        UncommittedChangesReviewTarget
        | BaseBranchReviewTarget
        | CommitReviewTarget
        | CustomReviewTarget,
        Field(discriminator="type"),
    ],
)

ReviewDelivery = TypeAliasType("ReviewDelivery", Literal["inline", "detached"])
"""`inline` (the default) reviews on the thread itself; `detached`, which the reference schema
no longer lists, reviews on a fork of it and answers with the fork's id as `reviewThreadId`."""


class ReviewStartParams(V2Model):
    thread_id: str
    target: ReviewTarget
    delivery: Opt[ReviewDelivery] = None
    # Our extension (absent from the reference schema): whether the finished review is added to
    # the reviewed thread's history, so later turns can act on it. Absent means true.
    append_to_original_thread: Opt[bool] = None


class ReviewStartResponse(V2Model):
    turn: Turn
    review_thread_id: str


METHODS = MethodTable()
TURN_START = METHODS.request("turn/start", TurnStartParams, TurnStartResponse)
TURN_INTERRUPT = METHODS.request("turn/interrupt", TurnInterruptParams, TurnInterruptResponse)
REVIEW_START = METHODS.request("review/start", ReviewStartParams, ReviewStartResponse)
