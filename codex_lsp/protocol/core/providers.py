"""A model provider: where requests go, which wire they speak, and how hard to retry.

The shape of one `[model_providers.<id>]` table of a Codex user's `config.toml`; the store
loads it, the model client speaks to it.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

WireApi = Literal["responses", "chat"]

# Upper bounds Codex applies to user-provided retry budgets.
MAX_REQUEST_RETRIES = 100
MAX_STREAM_RETRIES = 100


class ProviderAuth(BaseModel):
    """`[model_providers.<id>.auth]`: a command that prints the bearer token on stdout."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str
    args: tuple[str, ...] = ()
    timeout_ms: int = Field(default=5_000, gt=0)
    # How long a token is reused before the command runs again; 0 keeps it for the process.
    refresh_interval_ms: int = Field(default=300_000, ge=0)
    cwd: str | None = None


class ModelProviderInfo(BaseModel):
    """One `[model_providers.<id>]` table."""

    model_config = ConfigDict(extra="ignore")

    name: str
    base_url: str | None = None
    env_key: str | None = None
    env_key_instructions: str | None = None
    wire_api: WireApi = "responses"
    query_params: dict[str, str] | None = None
    http_headers: dict[str, str] = Field(default_factory=dict)
    env_http_headers: dict[str, str] = Field(default_factory=dict)
    request_max_retries: int = Field(default=4, ge=0)
    stream_max_retries: int = Field(default=5, ge=0)
    stream_idle_timeout_ms: int = Field(default=300_000, gt=0)
    requires_openai_auth: bool = False
    auth: ProviderAuth | None = None

    def effective_request_retries(self) -> int:
        return min(self.request_max_retries, MAX_REQUEST_RETRIES)

    def effective_stream_retries(self) -> int:
        return min(self.stream_max_retries, MAX_STREAM_RETRIES)

    def env_api_key(self) -> str | None:
        """The key named by `env_key`, if that variable is set and non-empty."""
        if not self.env_key:
            return None
        value = os.environ.get(self.env_key, "").strip()
        return value or None

    def resolved_headers(self) -> dict[str, str]:
        """Static headers plus those whose values come from environment variables."""
        headers = dict(self.http_headers)
        for header, var in self.env_http_headers.items():
            value = os.environ.get(var, "").strip()
            if value:
                headers[header] = value
        return headers
