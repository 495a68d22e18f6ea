"""Approval and sandbox policies as they travel on the core wire.

`AskForApproval` is a kebab-case string; `SandboxPolicy` is tagged by `type` in kebab-case,
with snake_case fields, exactly as the Codex core protocol serialises them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class AskForApproval(StrEnum):
    """When the engine stops to ask the user before running a command or applying a patch."""

    UNTRUSTED = "untrusted"
    ON_FAILURE = "on-failure"
    ON_REQUEST = "on-request"
    NEVER = "never"


class _Policy(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class DangerFullAccess(_Policy):
    type: Literal["danger-full-access"] = "danger-full-access"


class ReadOnly(_Policy):
    type: Literal["read-only"] = "read-only"
    network_access: bool = False


class WorkspaceWrite(_Policy):
    type: Literal["workspace-write"] = "workspace-write"
    writable_roots: tuple[str, ...] = ()
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False


SandboxPolicy = Annotated[DangerFullAccess | ReadOnly | WorkspaceWrite, Field(discriminator="type")]

SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]


def sandbox_policy_for_mode(
    mode: SandboxMode, *, writable_roots: tuple[str, ...] = (), network_access: bool = False
) -> DangerFullAccess | ReadOnly | WorkspaceWrite:
    """The policy a `sandbox_mode` config value (or a v2 `SandboxMode`) stands for."""
    if mode == "danger-full-access":
        return DangerFullAccess()
    if mode == "read-only":
        return ReadOnly(network_access=network_access)
    return WorkspaceWrite(writable_roots=writable_roots, network_access=network_access)


def has_network_access(policy: DangerFullAccess | ReadOnly | WorkspaceWrite) -> bool:
    """Whether commands under `policy` may open network sockets."""
    if isinstance(policy, DangerFullAccess):
        return True
    return policy.network_access
