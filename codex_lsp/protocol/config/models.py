"""`config/read` on the v2 wire: the effective config and where each value came from.

The config object itself keeps the snake_case keys of `config.toml`, and unknown keys pass through,
because clients read it as the TOML they know.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import (
    ApprovalsReviewer,
    AskForApproval,
    Opt,
    ReasoningEffort,
    ReasoningSummary,
    SandboxMode,
    SnakeModel,
    V2Model,
)
from codex_lsp.protocol.methods import MethodTable


class SandboxWorkspaceWrite(SnakeModel):
    writable_roots: list[str] = Field(default_factory=list)
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False


class Config(SnakeModel):
    """The whole effective config. The keys the protocol names are always written (`null` when
    unset); every other key of ours (providers, profiles, features, ...) follows as it is."""

    model_config = ConfigDict(extra="allow")

    model: str | None = None
    review_model: str | None = None
    model_context_window: int | None = None
    model_auto_compact_token_limit: int | None = None
    model_auto_compact_token_limit_scope: str | None = None
    model_provider: str | None = None
    approval_policy: AskForApproval | None = None
    approvals_reviewer: ApprovalsReviewer | None = None
    sandbox_mode: SandboxMode | None = None
    sandbox_workspace_write: SandboxWorkspaceWrite | None = None
    forced_chatgpt_workspace_id: Any = None
    forced_login_method: Literal["chatgpt", "api"] | None = None
    web_search: Literal["disabled", "cached", "indexed", "live"] | None = None
    client_search_provider: Any = None
    tools: Any = None
    instructions: str | None = None
    developer_instructions: str | None = None
    compact_prompt: str | None = None
    model_reasoning_effort: ReasoningEffort | None = None
    model_reasoning_summary: ReasoningSummary | None = None
    model_verbosity: Literal["low", "medium", "high"] | None = None
    service_tier: str | None = None
    analytics: Any = None
    browser_use: Any = None
    computer_use: Any = None
    desktop: dict[str, Any] | None = None


class UserConfigLayerSource(V2Model):
    """`$CODEX_HOME/config.toml`, possibly narrowed to one `[profiles.<name>]`."""

    type: Literal["user"] = "user"
    file: str
    profile: str | None = None


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
    disabled_reason: str | None = None


class ConfigReadParams(V2Model):
    include_layers: bool = False
    cwd: Opt[str] = None


class ConfigReadResponse(V2Model):
    config: Config
    # Dotted key path (`model`, `sandbox_workspace_write.network_access`) -> layer that set it.
    origins: dict[str, ConfigLayerMetadata] = Field(default_factory=dict)
    # Lowest first; null unless `includeLayers` asked for them.
    layers: list[ConfigLayer] | None = None


METHODS = MethodTable()
CONFIG_READ = METHODS.request("config/read", ConfigReadParams, ConfigReadResponse)
