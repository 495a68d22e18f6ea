"""Model providers on the v2 wire: `modelProvider/list`, `modelProvider/capabilities/read`,
`modelProvider/config/write` and `modelProvider/default/set`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, V2Model
from codex_lsp.protocol.config.write import ConfigWriteResponse
from codex_lsp.protocol.methods import MethodTable


class NoneGatewayAuth(V2Model):
    mode: Literal["none"] = "none"


class EnvironmentVariableGatewayAuth(V2Model):
    mode: Literal["environmentVariable"] = "environmentVariable"
    env_key: str


class ExternallyConfiguredGatewayAuth(V2Model):
    """The provider authenticates in a way the form does not show (headers, a query string);
    edits keep it."""

    mode: Literal["externallyConfigured"] = "externallyConfigured"
    env_key: Opt[str] = None


GatewayAuth = TypeAliasType(
    "GatewayAuth",
    Annotated[
        NoneGatewayAuth | EnvironmentVariableGatewayAuth | ExternallyConfiguredGatewayAuth,
        Field(discriminator="mode"),
    ],
)


class OpenaiProviderSettings(V2Model):
    type: Literal["openai"] = "openai"


class CustomGatewayProviderSettings(V2Model):
    type: Literal["customGateway"] = "customGateway"
    auth: GatewayAuth


class BedrockProviderSettings(V2Model):
    type: Literal["bedrock"] = "bedrock"
    profile: str | None = None
    region: str | None = None


class GcpProviderSettings(V2Model):
    type: Literal["gcp"] = "gcp"
    credential_file: str | None = None
    location: str | None = None
    project_id: str | None = None


ProviderSettings = TypeAliasType(
    "ProviderSettings",
    Annotated[
        OpenaiProviderSettings
        | CustomGatewayProviderSettings
        | BedrockProviderSettings
        | GcpProviderSettings,
        Field(discriminator="type"),
    ],
)


class ModelProviderSummary(V2Model):
    id: str
    name: str
    can_edit: bool
    """Whether the user's config.toml holds this provider's table, so it can be edited."""
    settings: ProviderSettings
    base_url: str | None = None
    """Null when the endpoint is absent or carries secrets (credentials, a query string)."""


class ModelProviderListParams(V2Model):
    """No params."""


class ModelProviderListResponse(V2Model):
    data: list[ModelProviderSummary]
    default_provider_id: str
    can_change_default: bool


class ModelProviderCapabilitiesReadParams(V2Model):
    """No params: the capabilities of the configured default provider."""


class ModelProviderCapabilitiesReadResponse(V2Model):
    web_search: bool
    image_generation: bool


class _Patch(V2Model):
    model_config = ConfigDict(extra="forbid")


class CustomGatewayProviderSettingsPatch(_Patch):
    """Omitted fields keep their value; an explicit null clears it. Without `providerId` a
    new provider is created, its id made from `name`."""

    type: Literal["customGateway"]
    provider_id: Opt[str] = None
    name: Opt[str] = None
    base_url: Opt[str] = None
    env_key: Opt[str] = None


class BedrockProviderSettingsPatch(_Patch):
    type: Literal["bedrock"]
    provider_id: Literal["amazon-bedrock", "amazon-bedrock-runtime"]
    profile: Opt[str] = None
    region: Opt[str] = None


class GcpProviderSettingsPatch(_Patch):
    type: Literal["gcp"]
    provider_id: Literal["gcp"]
    credential_file: Opt[str] = None
    location: Opt[str] = None
    project_id: Opt[str] = None


ProviderSettingsPatch = TypeAliasType(
    "ProviderSettingsPatch",
    Annotated[
        CustomGatewayProviderSettingsPatch
        | BedrockProviderSettingsPatch
        | GcpProviderSettingsPatch,
        Field(discriminator="type"),
    ],
)


class ModelProviderConfigWriteParams(_Patch):
    settings: ProviderSettingsPatch


class ModelProviderConfigWriteResponse(V2Model):
    provider: ModelProviderSummary


class ModelProviderDefaultSetParams(V2Model):
    provider_id: str
    """A configured provider, used by new threads and model lists that name none."""


METHODS = MethodTable()
MODEL_PROVIDER_LIST = METHODS.request(
    "modelProvider/list", ModelProviderListParams, ModelProviderListResponse
)
MODEL_PROVIDER_CAPABILITIES_READ = METHODS.request(
    "modelProvider/capabilities/read",
    ModelProviderCapabilitiesReadParams,
    ModelProviderCapabilitiesReadResponse,
)
MODEL_PROVIDER_CONFIG_WRITE = METHODS.request(
    "modelProvider/config/write", ModelProviderConfigWriteParams, ModelProviderConfigWriteResponse
)
MODEL_PROVIDER_DEFAULT_SET = METHODS.request(
    "modelProvider/default/set", ModelProviderDefaultSetParams, ConfigWriteResponse
)
