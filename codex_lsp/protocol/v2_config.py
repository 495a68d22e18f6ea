"""`config/read` on the v2 wire: the effective config and where each value came from.

The config object itself keeps the snake_case keys of `config.toml`, and unknown keys pass through,
because clients read it as the TOML they know.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.v2_common import (
    ApprovalsReviewer,
    AskForApproval,
    Opt,
    ReasoningEffort,
    ReasoningSummary,
    SandboxMode,
    SnakeModel,
    V2Model,
)


class SandboxWorkspaceWrite(SnakeModel):
    writable_roots: list[str] = Field(default_factory=list)
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False


class Config(SnakeModel):
    """The merged config. Keys we do not model (providers, profiles, ...) are kept as they are."""

    model_config = ConfigDict(extra="allow")

    model: Opt[str] = None
    model_provider: Opt[str] = None
    model_context_window: Opt[int] = None
    model_auto_compact_token_limit: Opt[int] = None
    model_reasoning_effort: Opt[ReasoningEffort] = None
    model_reasoning_summary: Opt[ReasoningSummary] = None
    model_verbosity: Opt[Literal["low", "medium", "high"]] = None
    review_model: Opt[str] = None
    service_tier: Opt[str] = None
    approval_policy: Opt[AskForApproval] = None
    approvals_reviewer: Opt[ApprovalsReviewer] = None
    sandbox_mode: Opt[SandboxMode] = None
    sandbox_workspace_write: Opt[SandboxWorkspaceWrite] = None
    instructions: Opt[str] = None
    developer_instructions: Opt[str] = None
    compact_prompt: Opt[str] = None
    web_search: Opt[Literal["disabled", "cached", "indexed", "live"]] = None
    forced_login_method: Opt[Literal["chatgpt", "api"]] = None


class UserConfigLayerSource(V2Model):
    """`$CODEX_HOME/config.toml`, possibly narrowed to one `[profiles.<name>]`."""

    type: Literal["user"] = "user"
    file: str
    profile: Opt[str] = None


class ProjectConfigLayerSource(V2Model):
    type: Literal["project"] = "project"
    dot_codex_folder: str


class SystemConfigLayerSource(V2Model):
    type: Literal["system"] = "system"
    file: str


class SessionFlagsConfigLayerSource(V2Model):
    """Overrides given on the command line or in a request's `config` map."""

    type: Literal["sessionFlags"] = "sessionFlags"


ConfigLayerSource = TypeAliasType(
    "ConfigLayerSource",
    Annotated[
        UserConfigLayerSource
        | ProjectConfigLayerSource
        | SystemConfigLayerSource
        | SessionFlagsConfigLayerSource,
        Field(discriminator="type"),
    ],
)


class ConfigLayerMetadata(V2Model):
    name: ConfigLayerSource
    version: str


class ConfigLayer(V2Model):
    name: ConfigLayerSource
    version: str
    config: Any
    disabled_reason: Opt[str] = None


class ConfigReadParams(V2Model):
    include_layers: bool = False
    cwd: Opt[str] = None


class ConfigReadResponse(V2Model):
    config: Config
    # Dotted key path (`model`, `sandbox_workspace_write.network_access`) -> layer that set it.
    origins: dict[str, ConfigLayerMetadata] = Field(default_factory=dict)
    layers: Opt[list[ConfigLayer]] = None
