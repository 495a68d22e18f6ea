"""User input items and small shared value types of the core protocol."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class WireModel(BaseModel):
    """Base of every core wire type: snake_case fields, unknown fields ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class ByteRange(WireModel):
    start: int
    end: int


class TextElement(WireModel):
    byte_range: ByteRange
    placeholder: str | None = None


class TextInput(WireModel):
    type: Literal["text"] = "text"
    text: str
    text_elements: list[TextElement] = Field(default_factory=list)


class ImageInput(WireModel):
    type: Literal["image"] = "image"
    image_url: str


class LocalImageInput(WireModel):
    type: Literal["local_image"] = "local_image"
    path: str


class SkillInput(WireModel):
    type: Literal["skill"] = "skill"
    name: str
    path: str


class MentionInput(WireModel):
    type: Literal["mention"] = "mention"
    name: str
    path: str


UserInput = Annotated[
    TextInput | ImageInput | LocalImageInput | SkillInput | MentionInput,
    Field(discriminator="type"),
]

# Text input is capped so a pasted log cannot blow up the request.
MAX_USER_INPUT_TEXT_CHARS = 1 << 20

ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
ReasoningSummary = Literal["auto", "concise", "detailed", "none"]
Personality = Literal["friendly", "pragmatic", "none"]
# How the agent works with the user: "plan" explores read-only and ends with a plan.
CollaborationModeKind = Literal["default", "plan"]


class ReviewDecisionAmendment(WireModel):
    proposed_execpolicy_amendment: list[str]


class PlanItem(WireModel):
    step: str
    status: Literal["pending", "in_progress", "completed"]


class TokenUsage(WireModel):
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_output_tokens=self.reasoning_output_tokens + other.reasoning_output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )


class TokenUsageInfo(WireModel):
    total_token_usage: TokenUsage
    last_token_usage: TokenUsage
    model_context_window: int | None = None


class RateLimitWindow(WireModel):
    used_percent: float
    window_minutes: int | None = None
    resets_at: int | None = None


class RateLimitSnapshot(WireModel):
    limit_id: str | None = None
    limit_name: str | None = None
    primary: RateLimitWindow | None = None
    secondary: RateLimitWindow | None = None
    plan_type: str | None = None


class ReviewCodeLocation(WireModel):
    absolute_file_path: str
    line_range: ByteRange


class ReviewFinding(WireModel):
    title: str
    body: str
    confidence_score: float = 0.0
    priority: int = 1
    code_location: ReviewCodeLocation


class ReviewOutputEvent(WireModel):
    findings: list[ReviewFinding] = Field(default_factory=list)
    overall_correctness: str = ""
    overall_explanation: str = ""
    overall_confidence_score: float = 0.0


class UncommittedChangesTarget(WireModel):
    type: Literal["uncommittedChanges"] = "uncommittedChanges"


class BaseBranchTarget(WireModel):
    type: Literal["baseBranch"] = "baseBranch"
    branch: str


class CommitTarget(WireModel):
    type: Literal["commit"] = "commit"
    sha: str
    title: str | None = None


class CustomTarget(WireModel):
    type: Literal["custom"] = "custom"
    instructions: str


ReviewTarget = Annotated[
    UncommittedChangesTarget | BaseBranchTarget | CommitTarget | CustomTarget,
    Field(discriminator="type"),
]


class ReviewRequest(WireModel):
    target: ReviewTarget
    user_facing_hint: str | None = None
    # Whether the finished review is added to the thread's history for later turns to see.
    append_to_original_thread: bool = True
