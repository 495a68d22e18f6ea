"""`model/list`: the provider's model catalog as v2 `Model`s, paged by index.

The catalog is what the provider lists at `GET /models` (Codex's `ModelInfo` entries: `slug`,
`display_name`, `supported_reasoning_levels`, `visibility`, `priority`, ...), in priority order
and without the models its API does not serve. A provider without such a catalog gets the
bundled one. The configured model is the default when it is listed; otherwise the first one
shown in a picker is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from codex_lsp import __version__
from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.engine.models import CATALOGUE, DEFAULT_MODEL, ModelInfo
from codex_lsp.engine.services import EngineServices
from codex_lsp.model import ModelClient
from codex_lsp.protocol.catalog.models import (
    MODEL_LIST,
    InputModality,
    Model,
    ModelAvailabilityNux,
    ModelListParams,
    ModelListResponse,
    ModelServiceTier,
    ModelUpgradeInfo,
    ReasoningEffortOption,
)
from codex_lsp.protocol.core.providers import ModelProviderInfo

_EFFORT_TEXT = {
    "none": "No reasoning: fastest answers",
    "minimal": "Very little reasoning",
    "low": "Fast responses with lighter reasoning",
    "medium": "Balances speed and reasoning depth for everyday tasks",
    "high": "Greater reasoning depth for complex problems",
    "xhigh": "Extra high reasoning depth for the hardest problems",
}


_MODALITIES: dict[str, InputModality] = {"text": "text", "image": "image", "audio": "audio"}


class _EffortPreset(BaseModel):
    effort: str
    description: str = ""


class _Upgrade(BaseModel):
    model: str
    migration_markdown: str | None = None


class _Nux(BaseModel):
    message: str


class _ServiceTier(BaseModel):
    id: str
    name: str = ""
    description: str = ""


class ProviderModel(BaseModel):
    """One entry of a provider's `/models` catalog (the fields `model/list` shows)."""

    model_config = ConfigDict(extra="ignore")

    slug: str
    display_name: str
    description: str | None = None
    default_reasoning_level: str | None = None
    supported_reasoning_levels: list[_EffortPreset] = Field(default_factory=list)
    visibility: str = "list"
    supported_in_api: bool = True
    priority: int = 0
    input_modalities: list[str] = Field(default_factory=lambda: ["text", "image"])
    additional_speed_tiers: list[str] = Field(default_factory=list)
    service_tiers: list[_ServiceTier] = Field(default_factory=list)
    default_service_tier: str | None = None
    availability_nux: _Nux | None = None
    upgrade: _Upgrade | None = None
    model_specialty: str | None = None
    multi_agent_version: str | None = None


def provider_models(entries: Sequence[dict[str, Any]]) -> list[ProviderModel]:
    """The usable entries of a provider catalog, in priority order (malformed ones skipped)."""
    models: list[ProviderModel] = []
    for entry in entries:
        try:
            models.append(ProviderModel.model_validate(entry))
        except ValidationError:
            continue
    # An API key reaches only the models the API serves.
    return sorted((m for m in models if m.supported_in_api), key=lambda m: m.priority)


def _from_provider(info: ProviderModel) -> Model:
    upgrade = info.upgrade
    return Model(
        id=info.slug,
        model=info.slug,
        upgrade=upgrade.model if upgrade is not None else None,
        upgrade_info=ModelUpgradeInfo(
            model=upgrade.model, migration_markdown=upgrade.migration_markdown
        )
        if upgrade is not None
        else None,
        availability_nux=ModelAvailabilityNux(message=info.availability_nux.message)
        if info.availability_nux is not None
        else None,
        display_name=info.display_name,
        description=info.description or "",
        model_specialty=info.model_specialty,
        hidden=info.visibility != "list",
        supported_reasoning_efforts=[
            ReasoningEffortOption(
                reasoning_effort=p.effort,
                description=p.description or _EFFORT_TEXT.get(p.effort, p.effort),
            )
            for p in info.supported_reasoning_levels
        ],
        default_reasoning_effort=info.default_reasoning_level or "none",
        input_modalities=[_MODALITIES[m] for m in info.input_modalities if m in _MODALITIES],
        multi_agent_version=info.multi_agent_version,
        additional_speed_tiers=info.additional_speed_tiers,
        service_tiers=[
            ModelServiceTier(id=t.id, name=t.name, description=t.description)
            for t in info.service_tiers
        ],
        default_service_tier=info.default_service_tier,
        is_default=False,
    )


def _bundled(info: ModelInfo) -> Model:
    return Model(
        id=info.slug,
        model=info.slug,
        display_name=info.display_name,
        description=info.description,
        hidden=info.hidden,
        supported_reasoning_efforts=[
            ReasoningEffortOption(
                reasoning_effort=effort, description=_EFFORT_TEXT.get(effort, effort)
            )
            for effort in info.efforts
        ],
        default_reasoning_effort=info.default_effort,
        is_default=False,
    )


def catalog(remote: Sequence[dict[str, Any]] | None, configured_model: str | None) -> list[Model]:
    """Every model, the default one marked: the provider's when it has a catalog."""
    listed = provider_models(remote) if remote is not None else []
    models = [_from_provider(m) for m in listed] or [_bundled(info) for info in CATALOGUE]
    wanted = configured_model or DEFAULT_MODEL
    default = next((m for m in models if m.id == wanted), None) or next(
        (m for m in models if not m.hidden), models[0] if models else None
    )
    if default is not None:
        default.is_default = True
    return models


async def model_list(params: ModelListParams, services: EngineServices) -> ModelListResponse:
    """`model/list`: a page of the catalog of `params.model_provider` (default: the
    configured provider), read from the provider each time so a new model shows at once."""
    config = services.config
    provider_id = params.model_provider or config.model_provider
    provider: ModelProviderInfo | None = config.model_providers.get(provider_id)
    if provider is None:
        raise invalid("modelProvider", f"provider {provider_id!r} is not defined")
    auth = services.auth

    def api_key() -> str | None:
        if auth is not None:
            key: str | None = auth.api_key_for(provider)
            return key
        return provider.env_api_key()

    client = ModelClient(provider, api_key=api_key, http=services.http)
    try:
        remote = await client.list_models(__version__)
    finally:
        await client.aclose()
    return list_models(params, catalog(remote, config.model))


def list_models(params: ModelListParams, models: list[Model]) -> ModelListResponse:
    """One page of `models`; `cursor` is the index to continue from."""
    visible = [m for m in models if params.include_hidden or not m.hidden]
    start = 0
    if params.cursor:
        if not params.cursor.isdigit() or int(params.cursor) > len(visible):
            raise invalid("cursor", f"not a cursor this server returned: {params.cursor!r}")
        start = int(params.cursor)
    limit = max(params.limit or len(visible), 1)
    page = visible[start : start + limit]
    more = start + limit < len(visible)
    return ModelListResponse(data=page, next_cursor=str(start + limit) if more else None)


def handlers(ctx: ApiContext) -> Routes:
    async def serve(params: ModelListParams, _raw: dict[str, Any]) -> ModelListResponse:
        return await model_list(params, ctx.services())

    return Routes().on(MODEL_LIST, serve)
