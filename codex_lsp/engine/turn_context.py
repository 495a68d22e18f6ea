"""The settings one turn runs under: model, cwd, policies, reasoning, personality.

A `user_turn` replaces them, `override_turn_context` patches them, and they persist to later turns.
The writable roots are resolved and held open when a context is made with a new cwd or sandbox
policy (`hold_roots`), and every command and patch write of its turns goes through those handles.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from codex_lsp.protocol.core.inputs import (
    CollaborationModeKind,
    Personality,
    ReasoningEffort,
    ReasoningSummary,
)
from codex_lsp.protocol.core.policy import (
    AskForApproval,
    ReadOnly,
    SandboxPolicy,
    has_network_access,
)
from codex_lsp.protocol.core.providers import ModelProviderInfo
from codex_lsp.sandbox import HeldRoots, hold_roots

# Context window assumed for models we know nothing about; matches the current catalogue.
DEFAULT_CONTEXT_WINDOW = 272_000
# `project_doc_max_bytes`'s default in Codex: AGENTS.md files are instructions, not a corpus.
PROJECT_DOC_MAX_BYTES = 32 * 1024


@dataclass(frozen=True, slots=True)
class TurnContext:
    model: str
    provider_id: str
    provider: ModelProviderInfo
    cwd: Path
    approval_policy: AskForApproval
    sandbox_policy: SandboxPolicy
    effort: ReasoningEffort | None = None
    summary: ReasoningSummary | None = None
    # `model_verbosity`: sent as the Responses API's `text.verbosity`.
    verbosity: str | None = None
    personality: Personality | None = None
    base_instructions: str | None = None
    developer_instructions: str | None = None
    user_instructions: str | None = None
    project_doc_max_bytes: int = PROJECT_DOC_MAX_BYTES
    project_doc_fallback_filenames: tuple[str, ...] = ()
    context_window: int = DEFAULT_CONTEXT_WINDOW
    auto_compact_limit: int | None = None
    output_schema: dict[str, Any] | None = None
    features: dict[str, bool] = field(default_factory=dict)
    web_search: bool = False
    web_search_live: bool = True
    update_plan_tool: bool = False
    collaboration_mode: CollaborationModeKind = "default"
    # The user's own policies while Plan mode holds the turn to a read-only sandbox: what the
    # thread keeps (and its rollout records) for the turns after Plan mode.
    user_policies: tuple[AskForApproval, SandboxPolicy] | None = field(
        default=None, compare=False, repr=False
    )
    # The sandbox policy's writable roots for this cwd, held open since they were resolved.
    roots: HeldRoots | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.roots is None:
            object.__setattr__(self, "roots", hold_roots(self.sandbox_policy, self.cwd))

    def with_overrides(self, **changes: Any) -> TurnContext:
        """A copy with the given fields replaced; `None` values leave a field unchanged.
        A new cwd or sandbox policy resolves the writable roots again."""
        applied = {key: value for key, value in changes.items() if value is not None}
        if "cwd" in applied:
            applied["cwd"] = Path(applied["cwd"])
        if ("cwd" in applied and applied["cwd"] != self.cwd) or (
            "sandbox_policy" in applied and applied["sandbox_policy"] != self.sandbox_policy
        ):
            applied["roots"] = hold_roots(
                applied.get("sandbox_policy", self.sandbox_policy), applied.get("cwd", self.cwd)
            )
        return replace(self, **applied)

    @property
    def network_enabled(self) -> bool:
        return has_network_access(self.sandbox_policy)

    def compact_threshold(self) -> int:
        """Token count at which history is summarised: 90% of the window, or a smaller limit."""
        limit = int(self.context_window * 0.9)
        if self.auto_compact_limit is not None:
            limit = min(limit, self.auto_compact_limit)
        return limit

    def to_rollout(self, turn_id: str | None) -> dict[str, Any]:
        """The `turn_context` rollout line's payload."""
        approval, sandbox = self.user_policies or (self.approval_policy, self.sandbox_policy)
        return {
            "turn_id": turn_id,
            "cwd": str(self.cwd),
            "approval_policy": approval.value,
            "sandbox_policy": sandbox.model_dump(mode="json"),
            "collaboration_mode": self.collaboration_mode,
            "model": self.model,
            "model_provider": self.provider_id,
            "effort": self.effort,
            "summary": self.summary or "auto",
            "personality": self.personality,
            "developer_instructions": self.developer_instructions,
            "user_instructions": self.user_instructions,
        }


def restricted_for_plan(ctx: TurnContext) -> TurnContext:
    """The context a turn runs under: in Plan mode, a read-only sandbox and no approvals, so
    nothing it runs can change a file or ask to; otherwise `ctx` itself."""
    if ctx.collaboration_mode != "plan":
        return ctx
    restricted = ctx.with_overrides(sandbox_policy=ReadOnly(), approval_policy=AskForApproval.NEVER)
    return replace(restricted, user_policies=(ctx.approval_policy, ctx.sandbox_policy))
