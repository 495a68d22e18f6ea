"""`[hooks]` and `[projects]` of config.toml: commands run around tool calls, and which
folders the user trusts.

Hooks are grouped by event (`PreToolUse`, `PostToolUse`, ...); each group has a `matcher` (a
regular expression on the tool's name, every tool when absent) and the commands to run.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TrustLevel = Literal["trusted", "untrusted"]


class _Table(BaseModel):
    model_config = ConfigDict(extra="ignore")


class HookCommand(_Table):
    """One command of a hook group; the keys are camelCase, as in Codex's hooks.json."""

    model_config = ConfigDict(
        extra="ignore", validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )

    type: Literal["command"] = "command"
    command: str
    command_windows: str | None = Field(default=None, alias="commandWindows")
    timeout: float | None = Field(default=None, gt=0)
    run_async: bool = Field(default=False, alias="async")
    status_message: str | None = Field(default=None, alias="statusMessage")


class HookGroup(_Table):
    matcher: str | None = None
    hooks: list[HookCommand] = Field(default_factory=list)

    def matches(self, tool: str) -> bool:
        if not self.matcher or self.matcher == "*":
            return True
        try:
            return re.fullmatch(self.matcher, tool) is not None
        except re.error:
            return self.matcher == tool


class ProjectConfig(_Table):
    """`[projects."<path>"]`: whether the folder is trusted (its `.codex/config.toml` loads)."""

    trust_level: TrustLevel | None = None
