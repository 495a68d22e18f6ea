"""`modelProvider/list`, `modelProvider/capabilities/read`, `modelProvider/config/write` and
`modelProvider/default/set`: the `[model_providers.<id>]` tables of config.toml and the default
`model_provider`, as a settings page shows and edits them.

The list holds OpenAI, the providers the user's config.toml defines, and the default provider;
a provider's endpoint is shown unless it carries secrets (credentials or a query string). A
provider whose table the user wrote can be edited; the built-in ones cannot. Writing a custom
gateway creates a new table (its id made from its name) or patches an existing one: an omitted
field keeps its value, a null removes it. Every write is validated as config.toml is read.
Amazon Bedrock and Google Cloud providers are not among the wires this engine speaks.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any
from urllib.parse import urlsplit

from codex_lsp.api.config.problems import load_failure
from codex_lsp.api.config.write import ConfigWriter
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.protocol.config.write import ConfigWriteResponse
from codex_lsp.protocol.core.providers import ModelProviderInfo
from codex_lsp.protocol.providers.models import (
    MODEL_PROVIDER_CAPABILITIES_READ,
    MODEL_PROVIDER_CONFIG_WRITE,
    MODEL_PROVIDER_DEFAULT_SET,
    MODEL_PROVIDER_LIST,
    CustomGatewayProviderSettings,
    CustomGatewayProviderSettingsPatch,
    EnvironmentVariableGatewayAuth,
    ExternallyConfiguredGatewayAuth,
    ModelProviderCapabilitiesReadParams,
    ModelProviderCapabilitiesReadResponse,
    ModelProviderConfigWriteParams,
    ModelProviderConfigWriteResponse,
    ModelProviderDefaultSetParams,
    ModelProviderListParams,
    ModelProviderListResponse,
    ModelProviderSummary,
    NoneGatewayAuth,
    OpenaiProviderSettings,
)
from codex_lsp.store.config import CONFIG_FILENAME, Config
from codex_lsp.store.config_edit import Edit
from codex_lsp.store.config_errors import ConfigError
from codex_lsp.store.providers import OPENAI_PROVIDER_ID, built_in_providers

_VALIDATION = {"config_write_error_code": "configValidationError"}
_NOT_FOUND = {"config_write_error_code": "configPathNotFound"}
# Patch fields and the provider table keys they set.
_PATCHED_KEYS = {"name": "name", "base_url": "base_url", "env_key": "env_key"}


class Providers:
    def __init__(self, ctx: ApiContext) -> None:
        self.ctx = ctx
        self.writer = ConfigWriter(ctx)

    async def list(
        self, _params: ModelProviderListParams, _raw: dict[str, Any]
    ) -> ModelProviderListResponse:
        config, written = self._read()
        shown = {OPENAI_PROVIDER_ID, config.model_provider, *written}
        ids = sorted(pid for pid in shown if pid in config.model_providers)
        return ModelProviderListResponse(
            data=[summary(pid, config.model_providers[pid], pid in written) for pid in ids],
            default_provider_id=config.model_provider,
            can_change_default=True,
        )

    async def capabilities(
        self, _params: ModelProviderCapabilitiesReadParams, _raw: dict[str, Any]
    ) -> ModelProviderCapabilitiesReadResponse:
        config, _written = self._read()
        provider = config.provider()
        # Web search is a Responses API tool; this engine has no image generation tool.
        return ModelProviderCapabilitiesReadResponse(
            web_search=provider.wire_api == "responses", image_generation=False
        )

    async def write(
        self, params: ModelProviderConfigWriteParams, _raw: dict[str, Any]
    ) -> ModelProviderConfigWriteResponse:
        patch = params.settings
        if not isinstance(patch, CustomGatewayProviderSettingsPatch):
            raise ApiError(
                INVALID_REQUEST,
                f"{patch.provider_id} providers are not supported by codex-lsp, which speaks "
                "the OpenAI Responses and Chat Completions APIs; add the endpoint as a custom "
                "gateway instead",
                _VALIDATION,
            )
        config, written = self._read()
        if patch.provider_id is None:
            provider_id, edits = _create(patch, config)
        else:
            provider_id = patch.provider_id
            edits = _update(patch, written)
        await self.writer.apply(edits)
        config, written = self._read()
        provider = config.model_providers[provider_id]
        return ModelProviderConfigWriteResponse(
            provider=summary(provider_id, provider, provider_id in written)
        )

    async def set_default(
        self, params: ModelProviderDefaultSetParams, _raw: dict[str, Any]
    ) -> ConfigWriteResponse:
        config, _written = self._read()
        if params.provider_id not in config.model_providers:
            raise ApiError(
                INVALID_REQUEST,
                f"Model provider `{params.provider_id}` is not configured.",
                _VALIDATION,
            )
        return await self.writer.apply([Edit(("model_provider",), params.provider_id, "replace")])

    def _read(self) -> tuple[Config, set[str]]:
        """The effective config, and the ids of the provider tables config.toml itself holds."""
        try:
            config = self.ctx.services().reload_config()
        except ConfigError as err:
            raise load_failure(err) from None
        path = self.ctx.services().codex_home / CONFIG_FILENAME
        try:
            tables = tomllib.loads(path.read_text(encoding="utf-8")).get("model_providers")
        except FileNotFoundError:
            tables = None
        written = set(tables) if isinstance(tables, dict) else set()
        return config, written - set(built_in_providers())


def summary(provider_id: str, provider: ModelProviderInfo, editable: bool) -> ModelProviderSummary:
    if provider_id == OPENAI_PROVIDER_ID:
        return ModelProviderSummary(
            id=provider_id, name=provider.name, can_edit=False, settings=OpenaiProviderSettings()
        )
    return ModelProviderSummary(
        id=provider_id,
        name=provider.name,
        can_edit=editable,
        base_url=provider.base_url if _displayable(provider.base_url) else None,
        settings=CustomGatewayProviderSettings(auth=_auth(provider)),
    )


def _auth(
    provider: ModelProviderInfo,
) -> NoneGatewayAuth | EnvironmentVariableGatewayAuth | ExternallyConfiguredGatewayAuth:
    external = (
        provider.http_headers
        or provider.env_http_headers
        or provider.query_params
        or provider.requires_openai_auth
        or (provider.base_url and not _displayable(provider.base_url))
    )
    if external:
        return ExternallyConfiguredGatewayAuth(env_key=provider.env_key)
    if provider.env_key:
        return EnvironmentVariableGatewayAuth(env_key=provider.env_key)
    return NoneGatewayAuth()


def _displayable(url: str | None) -> bool:
    if not url:
        return False
    parts = urlsplit(url)
    return not (parts.username or parts.password or parts.query or parts.fragment)


def _create(patch: CustomGatewayProviderSettingsPatch, config: Config) -> tuple[str, list[Edit]]:
    name = (patch.name or "").strip()
    if not name:
        raise ApiError(INVALID_REQUEST, "Enter a provider name.", _VALIDATION)
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "provider"
    provider_id, n = base, 1
    while provider_id in config.model_providers:
        n += 1
        provider_id = f"{base}-{n}"
    table: dict[str, Any] = {"name": name, "wire_api": "responses"}
    if patch.base_url is not None:
        table["base_url"] = patch.base_url
    if patch.env_key is not None:
        table["env_key"] = patch.env_key
    return provider_id, [Edit(("model_providers", provider_id), table, "replace")]


def _update(patch: CustomGatewayProviderSettingsPatch, written: set[str]) -> list[Edit]:
    provider_id = patch.provider_id
    assert provider_id is not None
    if provider_id in built_in_providers():
        raise ApiError(
            INVALID_REQUEST,
            "A custom provider or gateway cannot use a built-in provider ID.",
            _VALIDATION,
        )
    if provider_id not in written:
        raise ApiError(INVALID_REQUEST, f"Unknown provider ID: {provider_id}", _NOT_FOUND)
    edits: list[Edit] = []
    for field, key in _PATCHED_KEYS.items():
        if field not in patch.model_fields_set:
            continue
        value = getattr(patch, field)
        if field == "name" and not (value or "").strip():
            raise ApiError(INVALID_REQUEST, "Enter a provider name.", _VALIDATION)
        edits.append(Edit(("model_providers", provider_id, key), value, "replace"))
    return edits


def handlers(ctx: ApiContext) -> Routes:
    providers = Providers(ctx)
    return (
        Routes()
        .on(MODEL_PROVIDER_LIST, providers.list)
        .on(MODEL_PROVIDER_CAPABILITIES_READ, providers.capabilities)
        .on(MODEL_PROVIDER_CONFIG_WRITE, providers.write)
        .on(MODEL_PROVIDER_DEFAULT_SET, providers.set_default)
    )
