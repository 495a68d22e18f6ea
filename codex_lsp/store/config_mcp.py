"""`[mcp_servers.<name>]` of config.toml: how to reach each MCP server, and when its tools ask
for approval."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

McpApprovalMode = Literal["auto", "prompt", "writes", "approve"]


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
    # Variables passed through from codex-lsp's own environment, by name.
    env_vars: list[str] = Field(default_factory=list)
    cwd: str | None = None
    url: str | None = None
    bearer_token_env_var: str | None = None
    http_headers: dict[str, str] | None = None
    # Header name -> the environment variable holding its value (left out when unset).
    env_http_headers: dict[str, str] | None = None
    enabled: bool = True
    startup_timeout_sec: float | None = Field(default=None, gt=0)
    tool_timeout_sec: float | None = Field(default=None, gt=0)
    # Only these tools (when set) are offered to the model, less `disabled_tools`.
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] | None = None
    # Codex's keys: `auto` follows the session's approval policy, `prompt` always asks,
    # `writes` asks for tools not marked read-only, `approve` never asks; a tool's own
    # `approval_mode` wins over the server default.
    default_tools_approval_mode: McpApprovalMode = "auto"
    tools: dict[str, McpToolConfig] = Field(default_factory=dict)

    def offers(self, tool: str) -> bool:
        """Whether the model is offered `tool`: `enabled_tools` (if set) less `disabled_tools`."""
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return not (self.disabled_tools and tool in self.disabled_tools)

    @model_validator(mode="after")
    def _has_transport(self) -> McpServerConfig:
        if not self.command and not self.url:
            raise ValueError("expected a `command` (stdio server) or a `url` (HTTP server)")
        return self
