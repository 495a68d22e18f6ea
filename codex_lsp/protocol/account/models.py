"""Accounts on the v2 wire: who is signed in, logging in and out, and rate limits.

The tagged unions that are a whole params or result object (`LoginAccountParams`, ...) are
`RootModel`s, so every method's params and result is a model class with `model_validate`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, RootModel
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, PlanType, V2Model
from codex_lsp.protocol.methods import MethodTable

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
    workspace_name: str | None = None


class AmazonBedrockAccount(V2Model):
    type: Literal["amazonBedrock"] = "amazonBedrock"
    # Credentials here always come from the user's own AWS setup.
    uses_codex_managed_credentials: bool = False


Account = TypeAliasType(
    "Account",
    Annotated[ApiKeyAccount | ChatgptAccount | AmazonBedrockAccount, Field(discriminator="type")],
)


class GetAccountParams(V2Model):
    refresh_token: Opt[bool] = None


class GetAccountResponse(V2Model):
    account: Account | None = None
    user_id: str | None = None
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
    window_duration_mins: int | None = None
    resets_at: int | None = None


class CreditsSnapshot(V2Model):
    has_credits: bool
    unlimited: bool
    balance: str | None = None


class RateLimitSnapshot(V2Model):
    limit_id: str | None = None
    limit_name: str | None = None
    normal_model_slug: str | None = None
    primary: RateLimitWindow | None = None
    secondary: RateLimitWindow | None = None
    credits: CreditsSnapshot | None = None
    # Spending controls of ChatGPT workspaces: never reported by an API provider.
    individual_limit: Any = None
    spend_control_reached: bool | None = None
    plan_type: PlanType | None = None
    rate_limit_reached_type: str | None = None


class GetAccountRateLimitsParams(V2Model):
    """Optional params (the client may send none) with switches we do not act on."""

    exclude_reset_credit_details: Opt[bool] = None


class GetAccountRateLimitsResponse(V2Model):
    rate_limits: RateLimitSnapshot
    rate_limits_by_limit_id: dict[str, RateLimitSnapshot] | None = None
    # ChatGPT plan details the reference server reads from its backend; unknown here.
    ordinary_usage_allowed: bool | None = None
    rate_limit_reset_credits: Any = None
    account_id: str | None = None
    rate_limit_upsell: Any = None


AccountUpdateReason = TypeAliasType(
    "AccountUpdateReason", Literal["workspaceRoutingReady", "unknown"]
)


class AccountUpdatedNotification(V2Model):
    auth_mode: AuthMode | None = None
    plan_type: PlanType | None = None
    # Set by hosted workspace routing, which a local sign-in never goes through.
    reason: AccountUpdateReason | None = None


class AccountRateLimitsUpdatedNotification(V2Model):
    rate_limits: RateLimitSnapshot


class AccountLoginCompletedNotification(V2Model):
    login_id: str | None = None
    success: bool
    error: str | None = None
    onboarding_entrypoint: str | None = None


METHODS = MethodTable()
ACCOUNT_READ = METHODS.request("account/read", GetAccountParams, GetAccountResponse)
ACCOUNT_LOGIN_START = METHODS.request(
    "account/login/start", LoginAccountParams, LoginAccountResponse
)
ACCOUNT_LOGIN_CANCEL = METHODS.request(
    "account/login/cancel", CancelLoginAccountParams, CancelLoginAccountResponse
)
ACCOUNT_LOGOUT = METHODS.request(
    "account/logout", LogoutAccountParams, LogoutAccountResponse, no_params=True
)
ACCOUNT_RATE_LIMITS_READ = METHODS.request(
    "account/rateLimits/read",
    GetAccountRateLimitsParams,
    GetAccountRateLimitsResponse,
    no_params=True,
)
METHODS.notification("account/updated", AccountUpdatedNotification)
METHODS.notification("account/rateLimits/updated", AccountRateLimitsUpdatedNotification)
METHODS.notification("account/login/completed", AccountLoginCompletedNotification)
