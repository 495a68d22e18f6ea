"""What the server offers: `model/list` and `skills/list` on the v2 wire."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, ReasoningEffort, V2Model
from codex_lsp.protocol.methods import MethodTable

InputModality = TypeAliasType("InputModality", Literal["text", "image", "audio"])
SkillScope = TypeAliasType("SkillScope", Literal["user", "repo", "system", "admin"])


class ReasoningEffortOption(V2Model):
    reasoning_effort: ReasoningEffort
    description: str


def _text_and_image() -> list[InputModality]:
    return ["text", "image"]


class ModelUpgradeInfo(V2Model):
    """The model to move to from this one, and how to tell the user."""

    model: str
    upgrade_copy: str | None = None
    model_link: str | None = None
    migration_markdown: str | None = None
    retirement_at: int | None = None


class ModelAvailabilityNux(V2Model):
    message: str


class ModelServiceTier(V2Model):
    id: str
    name: str
    description: str


class Model(V2Model):
    """A model the user can pick: `id` is what `thread/start` and `turn/start` take as `model`."""

    id: str
    model: str
    upgrade: str | None = None
    upgrade_info: ModelUpgradeInfo | None = None
    availability_nux: ModelAvailabilityNux | None = None
    display_name: str
    description: str
    model_specialty: str | None = None
    hidden: bool
    supported_reasoning_efforts: list[ReasoningEffortOption]
    default_reasoning_effort: ReasoningEffort
    input_modalities: list[InputModality] = Field(default_factory=_text_and_image)
    supports_personality: bool = False
    multi_agent_version: str | None = None
    additional_speed_tiers: list[str] = Field(default_factory=list)
    service_tiers: list[ModelServiceTier] = Field(default_factory=list)
    default_service_tier: str | None = None
    available_access_programs: Any = None
    is_default: bool


class ModelListParams(V2Model):
    cursor: Opt[str] = None
    limit: Opt[int] = None
    include_hidden: Opt[bool] = None
    model_provider: Opt[str] = None


class ModelListResponse(V2Model):
    data: list[Model]
    next_cursor: str | None = None


class SkillsListParams(V2Model):
    # Empty or absent means the working directory of the current session.
    cwds: Opt[list[str]] = None
    force_reload: Opt[bool] = None


class SkillMetadata(V2Model):
    name: str
    description: str
    path: str
    scope: SkillScope
    enabled: bool
    short_description: Opt[str] = None
    plugin_id: str | None = None


class SkillErrorInfo(V2Model):
    """A skill file that could not be loaded, so the UI can point at it."""

    path: str
    message: str


class SkillsListEntry(V2Model):
    cwd: str
    skills: list[SkillMetadata] = Field(default_factory=list)
    errors: list[SkillErrorInfo] = Field(default_factory=list)


class SkillsListResponse(V2Model):
    data: list[SkillsListEntry]


METHODS = MethodTable()
MODEL_LIST = METHODS.request("model/list", ModelListParams, ModelListResponse)
SKILLS_LIST = METHODS.request("skills/list", SkillsListParams, SkillsListResponse)
