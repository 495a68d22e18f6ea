"""Building blocks shared by every app-server v2 wire type.

The v2 API speaks camelCase JSON. A field the schema lists as required is always written, as `null`
when it is nullable and unset; a field the schema lists as optional is left out when it is `None`.
`Opt[T]` marks the second kind, so the rule lives in the type, not in each call site that dumps.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from typing_extensions import TypeAliasType

from codex_lsp.protocol.core import policy

T = TypeVar("T")


def _is_none(value: object) -> bool:
    return value is None


Opt = Annotated[T | None, Field(exclude_if=_is_none)]
"""A field the schema makes optional: omitted from the wire while it is `None`."""

EXPERIMENTAL_MARK = "x-codex-experimental"
ExperimentalOpt = Annotated[
    T | None, Field(exclude_if=_is_none, json_schema_extra={EXPERIMENTAL_MARK: True})
]
"""An optional field the reference documents only in its experimental API: sent as any `Opt`,
left out of the stable schema and bindings."""


class V2Model(BaseModel):
    """Base of every v2 type: camelCase on the wire, snake_case in Python, unknown keys ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="ignore",
    )


class SnakeModel(BaseModel):
    """Base of the few v2 payloads that keep snake_case keys (config values, policy amendments)."""

    model_config = ConfigDict(
        populate_by_name=True,
        extra="ignore",
    )


def dump(model: BaseModel) -> dict[str, Any]:
    """The wire JSON object of `model`: camelCase keys, absent optional fields left out."""
    return model.model_dump(mode="json", by_alias=True)


def dump_json(model: BaseModel) -> str:
    """`dump` straight to a JSON string, skipping the intermediate dict on hot paths."""
    return model.model_dump_json(by_alias=True)


RequestId = TypeAliasType("RequestId", str | int)
"""A JSON-RPC request id: the schema allows a string or a 64-bit integer."""

SandboxMode = TypeAliasType("SandboxMode", policy.SandboxMode)
"""The coarse sandbox setting of `thread/start`: read-only, workspace-write, danger-full-access."""

ApprovalsReviewer = TypeAliasType(
    "ApprovalsReviewer",
    Literal["user", "auto_review", "guardian_subagent"],
)
"""Who reviews approval requests; `guardian_subagent` is the legacy spelling of `auto_review`."""

ReasoningEffort = TypeAliasType("ReasoningEffort", Annotated[str, Field(min_length=1)])
"""v2 leaves the effort open (any non-empty string the model advertises), unlike the core enum."""

ReasoningSummary = TypeAliasType("ReasoningSummary", Literal["auto", "concise", "detailed", "none"])
Personality = TypeAliasType("Personality", Literal["none", "friendly", "pragmatic"])
SortDirection = TypeAliasType("SortDirection", Literal["asc", "desc"])
ThreadSortKey = TypeAliasType(
    "ThreadSortKey",
    Literal["created_at", "updated_at", "recency_at", "section_position"],
)
ThreadStartSource = TypeAliasType("ThreadStartSource", Literal["startup", "clear"])
ThreadSourceKind = TypeAliasType(
    "ThreadSourceKind",
    Literal[
        "cli",
        "vscode",
        "exec",
        "appServer",
        "subAgent",
        "subAgentReview",
        "subAgentCompact",
        "subAgentThreadSpawn",
        "subAgentOther",
        "unknown",
    ],
)
PlanType = TypeAliasType(
    "PlanType",
    Literal[
        "free",
        "go",
        "plus",
        "pro",
        "prolite",
        "promax",
        "team",
        "self_serve_business_prolite",
        "self_serve_business_usage_based",
        "business",
        "ent26",
        "enterprise_cbp_automation",
        "enterprise_cbp_usage_based",
        "enterprise",
        "edu",
        "edu_plus",
        "edu_pro",
        "sci",
        "sci_plus",
        "unknown",
    ],
)


class GranularApproval(SnakeModel):
    """Per-category approval switches: `true` lets the prompt through, `false` auto-rejects it."""

    sandbox_approval: bool
    rules: bool
    mcp_elicitations: bool
    skill_approval: bool = False
    request_permissions: bool = False


class GranularAskForApproval(SnakeModel):
    granular: GranularApproval


AskForApproval = TypeAliasType(
    "AskForApproval",
    Literal["untrusted", "on-request", "never"] | GranularAskForApproval,
)
"""The v2 approval policy. The deprecated core value `on-failure` is not part of the v2 schema."""


_V2_APPROVAL_POLICIES: tuple[Literal["untrusted", "on-request", "never"], ...] = (
    "untrusted",
    "on-request",
    "never",
)


def approval_policy_to_v2(value: str) -> Literal["untrusted", "on-request", "never"]:
    """The v2 spelling of a core approval policy.

    v2 dropped `on-failure`; `on-request` is its closest surviving neighbour (run sandboxed,
    escalate to the user only when needed), so a config that still says `on-failure` maps there.
    """
    text = str(value)
    if text == "on-failure":
        return "on-request"
    for known in _V2_APPROVAL_POLICIES:
        if text == known:
            return known
    raise ValueError(f"unknown approval policy {text!r}")


class DangerFullAccessSandboxPolicy(V2Model):
    type: Literal["dangerFullAccess"] = "dangerFullAccess"


class ReadOnlySandboxPolicy(V2Model):
    type: Literal["readOnly"] = "readOnly"
    network_access: bool = False


class ExternalSandboxSandboxPolicy(V2Model):
    """The process already runs inside a sandbox someone else manages."""

    type: Literal["externalSandbox"] = "externalSandbox"
    network_access: Literal["restricted", "enabled"] = "restricted"


class WorkspaceWriteSandboxPolicy(V2Model):
    type: Literal["workspaceWrite"] = "workspaceWrite"
    writable_roots: list[str] = Field(default_factory=list)
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False


SandboxPolicy = TypeAliasType(
    "SandboxPolicy",
    Annotated[
        DangerFullAccessSandboxPolicy
        | ReadOnlySandboxPolicy
        | ExternalSandboxSandboxPolicy
        | WorkspaceWriteSandboxPolicy,
        Field(discriminator="type"),
    ],
)
"""The v2 sandbox policy: camelCase `type` tag and fields (the core uses kebab and snake case)."""

CoreSandboxPolicy = policy.DangerFullAccess | policy.ReadOnly | policy.WorkspaceWrite


def sandbox_policy_to_v2(
    core: CoreSandboxPolicy,
) -> DangerFullAccessSandboxPolicy | ReadOnlySandboxPolicy | WorkspaceWriteSandboxPolicy:
    """The v2 form of a core sandbox policy."""
    if isinstance(core, policy.DangerFullAccess):
        return DangerFullAccessSandboxPolicy()
    if isinstance(core, policy.ReadOnly):
        return ReadOnlySandboxPolicy(network_access=core.network_access)
    return WorkspaceWriteSandboxPolicy(
        writable_roots=list(core.writable_roots),
        network_access=core.network_access,
        exclude_tmpdir_env_var=core.exclude_tmpdir_env_var,
        exclude_slash_tmp=core.exclude_slash_tmp,
    )


def sandbox_policy_from_v2(
    v2: DangerFullAccessSandboxPolicy
    | ReadOnlySandboxPolicy
    | ExternalSandboxSandboxPolicy
    | WorkspaceWriteSandboxPolicy,
) -> CoreSandboxPolicy:
    """The core policy a v2 sandbox policy stands for.

    An external sandbox already confines the process, so the engine adds none of its own.
    """
    if isinstance(v2, DangerFullAccessSandboxPolicy | ExternalSandboxSandboxPolicy):
        return policy.DangerFullAccess()
    if isinstance(v2, ReadOnlySandboxPolicy):
        return policy.ReadOnly(network_access=v2.network_access)
    return policy.WorkspaceWrite(
        writable_roots=tuple(v2.writable_roots),
        network_access=v2.network_access,
        exclude_tmpdir_env_var=v2.exclude_tmpdir_env_var,
        exclude_slash_tmp=v2.exclude_slash_tmp,
    )


class GitInfo(V2Model):
    sha: str | None = None
    branch: str | None = None
    origin_url: str | None = None


class TokenUsageBreakdown(V2Model):
    total_tokens: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    reasoning_output_tokens: int
    cache_write_input_tokens: int = 0


class ThreadTokenUsage(V2Model):
    """Usage of a whole thread (`total`) and of the latest model call (`last`)."""

    total: TokenUsageBreakdown
    last: TokenUsageBreakdown
    model_context_window: int | None = None
