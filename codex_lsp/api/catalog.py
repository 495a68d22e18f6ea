"""`model/list`: the engine's model catalogue as v2 `Model`s, paged by index."""

from __future__ import annotations

from codex_lsp.api.convert import invalid
from codex_lsp.engine.models import CATALOGUE, DEFAULT_MODEL, ModelInfo
from codex_lsp.protocol.v2_catalog import (
    Model,
    ModelListParams,
    ModelListResponse,
    ReasoningEffortOption,
)

_EFFORT_TEXT = {
    "none": "No reasoning: fastest answers",
    "minimal": "Very little reasoning",
    "low": "Fast responses with lighter reasoning",
    "medium": "Balances speed and reasoning depth for everyday tasks",
    "high": "Greater reasoning depth for complex problems",
    "xhigh": "Extra high reasoning depth for the hardest problems",
}


def _model(info: ModelInfo, default_slug: str) -> Model:
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
        is_default=info.slug == default_slug,
    )


def list_models(params: ModelListParams, configured_model: str | None) -> ModelListResponse:
    """One page of the catalogue; `cursor` is the index to continue from."""
    default_slug = configured_model or DEFAULT_MODEL
    visible = [info for info in CATALOGUE if params.include_hidden or not info.hidden]
    start = 0
    if params.cursor:
        if not params.cursor.isdigit() or int(params.cursor) > len(visible):
            raise invalid("cursor", f"not a cursor this server returned: {params.cursor!r}")
        start = int(params.cursor)
    limit = max(params.limit or len(visible), 1)
    page = visible[start : start + limit]
    more = start + limit < len(visible)
    return ModelListResponse(
        data=[_model(info, default_slug) for info in page],
        next_cursor=str(start + limit) if more else None,
    )
