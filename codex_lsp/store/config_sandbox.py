"""Config tables about what commands get: `[shell_environment_policy]` and `[sandbox_linux]`.

`[shell_environment_policy]` has Codex's keys and meaning (see `engine/env_policy.py`); its
one deliberate difference is the default of `ignore_default_excludes`, false here: the
default excludes (credential-looking names and credential-bearing URLs) apply unless a user
turns them off. `[sandbox_linux]` is this project's own: the resource limits of a sandboxed
command, the Landlock-only fallback's opt-in, and the unix sockets commands may reach
(`allow_unix_sockets`, the name Codex's network proxy gives its own list).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The sandbox's own defaults (`codex_lsp.sandbox.options`), repeated here because the store
# sits below the engine and its sandbox.
DEFAULT_MAX_PROCESSES = 1024
DEFAULT_MAX_MEMORY_MB = 2048


class ShellEnvironmentPolicy(BaseModel):
    """How the environment of the commands the model runs is built from the engine's."""

    model_config = ConfigDict(extra="ignore")

    inherit: Literal["all", "core", "none"] = "all"
    ignore_default_excludes: bool = False
    exclude: list[str] = Field(default_factory=list)
    include_only: list[str] = Field(default_factory=list)
    set: dict[str, str] = Field(default_factory=dict)
    # Accepted for Codex compatibility; commands run in a login shell either way.
    experimental_use_profile: bool = False


class SandboxLinux(BaseModel):
    """Limits on each sandboxed command, and what the Landlock-only fallback allows."""

    model_config = ConfigDict(extra="ignore")

    max_processes: int = Field(default=DEFAULT_MAX_PROCESSES, ge=0)
    max_memory_mb: int = Field(default=DEFAULT_MAX_MEMORY_MB, ge=0)
    fallback_metadata_changes: bool = False
    allow_unix_sockets: list[str] = Field(default_factory=list)

    @field_validator("allow_unix_sockets")
    @classmethod
    def _absolute(cls, paths: list[str]) -> list[str]:
        for path in paths:
            if not path.startswith("/"):
                raise ValueError(f"{path!r} is not an absolute path")
        return paths
