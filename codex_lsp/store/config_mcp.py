"""`[mcp_servers.<name>]` of config.toml: how to reach each MCP server, and when its tools ask
for approval."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

McpApprovalMode = Literal["auto", "prompt", "approve"]


class McpToolConfig(BaseModel):
    """`[mcp_servers.<name>.tools.<tool>]`: settings for one of the server's tools."""

    model_config = ConfigDict(extra="ignore")

    approval_mode: McpApprovalMode | None = None


class McpServerConfig(BaseModel):
    """`[mcp_servers.<name>]`: a stdio server (`command`) or a streamable HTTP one (`url`)."""

    model_config = ConfigDict(extra="ignore")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    bearer_token_env_var: str | None = None
    enabled: bool = True
    startup_timeout_sec: float | None = Field(default=None, gt=0)
    tool_timeout_sec: float | None = Field(default=None, gt=0)
    # Codex's keys: `auto` follows the session's approval policy, `prompt` always asks,
    # `approve` never asks; a tool's own `approval_mode` wins over the server default.
    default_tools_approval_mode: McpApprovalMode = "auto"
    tools: dict[str, McpToolConfig] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _has_transport(self) -> McpServerConfig:
        if not self.command and not self.url:
            raise ValueError("expected a `command` (stdio server) or a `url` (HTTP server)")
        return self
