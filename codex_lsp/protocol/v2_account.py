"""Accounts on the v2 wire: who is signed in, logging in and out, and rate limits.

The tagged unions that are a whole params or result object (`LoginAccountParams`, ...) are
`RootModel`s, so every method's params and result is a model class with `model_validate`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, RootModel
from typing_extensions import TypeAliasType

from codex_lsp.protocol.v2_common import Opt, PlanType, V2Model

AuthMode = TypeAliasType(
    "AuthMode",
    Literal[
        "apikey",
        "chatgpt",
        "chatgptAuthTokens",
        "headers",
        "agentIdentity",
        "personalAccessToken",
        "bedrockApiKey",
        "bedrockAccessKeys",
    ],
)


class ApiKeyAccount(V2Model):
    type: Literal["apiKey"] = "apiKey"


class ChatgptAccount(V2Model):
    type: Literal["chatgpt"] = "chatgpt"
    # Required but nullable: a ChatGPT login may carry no email claim.
    email: str | None = None
    plan_type: PlanType = "unknown"
    workspace_name: Opt[str] = None


class AmazonBedrockAccount(V2Model):
    type: Literal["amazonBedrock"] = "amazonBedrock"


Account = TypeAliasType(
    "Account",
    Annotated[ApiKeyAccount | ChatgptAccount | AmazonBedrockAccount, Field(discriminator="type")],
)


class GetAccountParams(V2Model):
    refresh_token: Opt[bool] = None


class GetAccountResponse(V2Model):
    account: Opt[Account] = None
    requires_openai_auth: bool


class ApiKeyLoginAccountParams(V2Model):
    type: Literal["apiKey"] = "apiKey"
    api_key: str


class ChatgptLoginAccountParams(V2Model):
    type: Literal["chatgpt"] = "chatgpt"


class ChatgptDeviceCodeLoginAccountParams(V2Model):
    type: Literal["chatgptDeviceCode"] = "chatgptDeviceCode"


class ChatgptAuthTokensLoginAccountParams(V2Model):
    type: Literal["chatgptAuthTokens"] = "chatgptAuthTokens"
    access_token: str
    chatgpt_account_id: str
    chatgpt_plan_type: Opt[str] = None


_LoginAccountParamsUnion = Annotated[
    ApiKeyLoginAccountParams
    | ChatgptLoginAccountParams
    | ChatgptDeviceCodeLoginAccountParams
    | ChatgptAuthTokensLoginAccountParams,
    Field(discriminator="type"),
]


class LoginAccountParams(RootModel[_LoginAccountParamsUnion]):
    root: _LoginAccountParamsUnion


class ApiKeyLoginAccountResponse(V2Model):
    type: Literal["apiKey"] = "apiKey"


class ChatgptLoginAccountResponse(V2Model):
    """A browser login began; `account/login/completed` with the same `loginId` ends it."""

    type: Literal["chatgpt"] = "chatgpt"
    login_id: str
    auth_url: str


class ChatgptDeviceCodeLoginAccountResponse(V2Model):
    type: Literal["chatgptDeviceCode"] = "chatgptDeviceCode"
    login_id: str
    verification_url: str
    user_code: str


class ChatgptAuthTokensLoginAccountResponse(V2Model):
    type: Literal["chatgptAuthTokens"] = "chatgptAuthTokens"


_LoginAccountResponseUnion = Annotated[
    ApiKeyLoginAccountResponse
    | ChatgptLoginAccountResponse
    | ChatgptDeviceCodeLoginAccountResponse
    | ChatgptAuthTokensLoginAccountResponse,
    Field(discriminator="type"),
]


class LoginAccountResponse(RootModel[_LoginAccountResponseUnion]):
    root: _LoginAccountResponseUnion


class CancelLoginAccountParams(V2Model):
    login_id: str


class CancelLoginAccountResponse(V2Model):
    status: Literal["canceled", "notFound"]


class LogoutAccountParams(V2Model):
    """`account/logout` takes no params; the client sends none or `null`."""


class LogoutAccountResponse(V2Model):
    """Empty; `account/updated` follows."""


class RateLimitWindow(V2Model):
    used_percent: int
    window_duration_mins: Opt[int] = None
    resets_at: Opt[int] = None


class CreditsSnapshot(V2Model):
    has_credits: bool
    unlimited: bool
    balance: Opt[str] = None


class RateLimitSnapshot(V2Model):
    limit_id: Opt[str] = None
    limit_name: Opt[str] = None
    primary: Opt[RateLimitWindow] = None
    secondary: Opt[RateLimitWindow] = None
    credits: Opt[CreditsSnapshot] = None
    plan_type: Opt[PlanType] = None


class GetAccountRateLimitsParams(V2Model):
    """Optional params (the client may send none) with switches we do not act on."""

    exclude_reset_credit_details: Opt[bool] = None


class GetAccountRateLimitsResponse(V2Model):
    rate_limits: RateLimitSnapshot
    rate_limits_by_limit_id: Opt[dict[str, RateLimitSnapshot]] = None
