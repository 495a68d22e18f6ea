"""Config edits on the v2 wire: `config/value/write`, `config/batchWrite`,
`configRequirements/read`, `config/mcpServer/reload`, and the `configWarning` notification."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel
from typing_extensions import TypeAliasType

from codex_lsp.protocol.v2_common import Opt, V2Model
from codex_lsp.protocol.v2_config import ConfigLayerMetadata

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


REQUESTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "config/value/write": (ConfigValueWriteParams, ConfigWriteResponse),
    "config/batchWrite": (ConfigBatchWriteParams, ConfigWriteResponse),
    "configRequirements/read": (ConfigRequirementsReadParams, ConfigRequirementsReadResponse),
    "config/mcpServer/reload": (McpServerRefreshParams, McpServerRefreshResponse),
}

NOTIFICATIONS: dict[str, type[BaseModel]] = {"configWarning": ConfigWarningNotification}

NO_PARAMS = frozenset({"configRequirements/read", "config/mcpServer/reload"})
