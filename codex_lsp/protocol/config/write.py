"""Config edits on the v2 wire: `config/value/write`, `config/batchWrite`,
`configRequirements/read`, `config/mcpServer/reload`, and the `configWarning` notification."""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, V2Model
from codex_lsp.protocol.config.models import ConfigLayerMetadata
from codex_lsp.protocol.methods import MethodTable

MergeStrategy = TypeAliasType("MergeStrategy", Literal["replace", "upsert"])
WriteStatus = TypeAliasType("WriteStatus", Literal["ok", "okOverridden"])


class ConfigEdit(V2Model):
    """Set `keyPath` (dotted, e.g. `sandbox_workspace_write.network_access`) to `value`;
    `upsert` merges a table into the one there, `null` removes the key."""

    key_path: str
    value: Any
    merge_strategy: MergeStrategy


class ConfigValueWriteParams(ConfigEdit):
    file_path: Opt[str] = None
    expected_version: Opt[str] = None


class ConfigBatchWriteParams(V2Model):
    """Several edits applied together: all of them or, if one is invalid, none."""

    edits: list[ConfigEdit]
    file_path: Opt[str] = None
    expected_version: Opt[str] = None
    reload_user_config: Opt[bool] = None


class OverriddenMetadata(V2Model):
    message: str
    overriding_layer: ConfigLayerMetadata
    effective_value: Any


class ConfigWriteResponse(V2Model):
    status: WriteStatus
    version: str
    """`sha256:<hex>` of the file as written; pass it as `expectedVersion` to detect races."""
    file_path: str
    overridden_metadata: OverriddenMetadata | None = None


class ConfigRequirementsReadParams(V2Model):
    """No params."""


class ConfigRequirementsReadResponse(V2Model):
    """`requirements` is null: no managed requirements (requirements.toml, MDM) apply here."""

    requirements: dict[str, Any] | None = None
    supports_independent_speed_modes: bool | None = None


class McpServerRefreshParams(V2Model):
    """No params."""


class McpServerRefreshResponse(V2Model):
    """Empty: loaded threads restart their MCP servers from the config on disk."""


class TextPosition(V2Model):
    line: int
    column: int


class TextRange(V2Model):
    start: TextPosition
    end: TextPosition


class ConfigWarningNotification(V2Model):
    summary: str
    details: str | None = None
    path: Opt[str] = None
    range: Opt[TextRange] = None


METHODS = MethodTable()
CONFIG_VALUE_WRITE = METHODS.request(
    "config/value/write", ConfigValueWriteParams, ConfigWriteResponse
)
CONFIG_BATCH_WRITE = METHODS.request(
    "config/batchWrite", ConfigBatchWriteParams, ConfigWriteResponse
)
CONFIG_REQUIREMENTS_READ = METHODS.request(
    "configRequirements/read",
    ConfigRequirementsReadParams,
    ConfigRequirementsReadResponse,
    no_params=True,
)
CONFIG_MCP_SERVER_RELOAD = METHODS.request(
    "config/mcpServer/reload", McpServerRefreshParams, McpServerRefreshResponse, no_params=True
)
METHODS.notification("configWarning", ConfigWarningNotification)
