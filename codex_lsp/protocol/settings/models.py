"""Settings pages on the v2 wire: skills (`skills/config/write`, `skills/extraRoots/set`,
`skills/changed`), `hooks/list`, experimental features (`experimentalFeature/list`,
`experimentalFeature/enablement/set`) and `permissionProfile/list`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, V2Model
from codex_lsp.protocol.methods import MethodTable

# -- skills ------------------------------------------------------------------------------


class SkillsConfigWriteParams(V2Model):
    """Enable or disable one skill, chosen by the path of its SKILL.md or by its name."""

    enabled: bool
    name: Opt[str] = None
    path: Opt[str] = None


class SkillsConfigWriteResponse(V2Model):
    effective_enabled: bool


class SkillsExtraRootsSetParams(V2Model):
    extra_roots: list[str]
    """Absolute directories scanned for skills (as user skills) besides the usual roots."""


class SkillsExtraRootsSetResponse(V2Model):
    pass


class SkillsChangedNotification(V2Model):
    """The skills a client listed may have changed: list them again."""


# -- hooks -------------------------------------------------------------------------------


class HooksListParams(V2Model):
    cwds: Opt[list[str]] = None
    thread_id: Opt[str] = None


class HookErrorInfo(V2Model):
    path: str
    message: str


class HooksListEntry(V2Model):
    cwd: str
    hooks: list[dict[str, Any]]
    """The hooks the engine runs, from the user's config.toml (see the entry's warnings)."""
    warnings: list[str]
    errors: list[HookErrorInfo]


class HooksListResponse(V2Model):
    data: list[HooksListEntry]


# -- experimental features --------------------------------------------------------------

ExperimentalFeatureStage = TypeAliasType(
    "ExperimentalFeatureStage",
    Literal["beta", "underDevelopment", "stable", "deprecated", "removed"],
)


class ExperimentalFeatureListParams(V2Model):
    cursor: Opt[str] = None
    limit: Opt[int] = Field(default=None, ge=0)
    thread_id: Opt[str] = None


class ExperimentalFeature(V2Model):
    name: str
    stage: ExperimentalFeatureStage
    enabled: bool
    default_enabled: bool
    display_name: str | None = None
    description: str | None = None
    announcement: str | None = None


class ExperimentalFeatureListResponse(V2Model):
    data: list[ExperimentalFeature]
    next_cursor: str | None = None


class ExperimentalFeatureEnablementSetParams(V2Model):
    enablement: dict[str, bool]


class ExperimentalFeatureEnablementSetResponse(V2Model):
    enablement: dict[str, bool]
    """The features this request changed; names this server does not know are left out."""


# -- permission profiles ----------------------------------------------------------------


class PermissionProfileListParams(V2Model):
    cursor: Opt[str] = None
    limit: Opt[int] = Field(default=None, ge=0)
    cwd: Opt[str] = None


class PermissionProfileSummary(V2Model):
    id: str
    allowed: bool
    description: str | None = None


class PermissionProfileListResponse(V2Model):
    data: list[PermissionProfileSummary]
    next_cursor: str | None = None


METHODS = MethodTable()
SKILLS_CONFIG_WRITE = METHODS.request(
    "skills/config/write", SkillsConfigWriteParams, SkillsConfigWriteResponse
)
SKILLS_EXTRA_ROOTS_SET = METHODS.request(
    "skills/extraRoots/set", SkillsExtraRootsSetParams, SkillsExtraRootsSetResponse
)
HOOKS_LIST = METHODS.request("hooks/list", HooksListParams, HooksListResponse)
EXPERIMENTAL_FEATURE_LIST = METHODS.request(
    "experimentalFeature/list", ExperimentalFeatureListParams, ExperimentalFeatureListResponse
)
EXPERIMENTAL_FEATURE_ENABLEMENT_SET = METHODS.request(
    "experimentalFeature/enablement/set",
    ExperimentalFeatureEnablementSetParams,
    ExperimentalFeatureEnablementSetResponse,
)
PERMISSION_PROFILE_LIST = METHODS.request(
    "permissionProfile/list", PermissionProfileListParams, PermissionProfileListResponse
)
METHODS.notification("skills/changed", SkillsChangedNotification)
