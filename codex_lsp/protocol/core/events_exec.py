"""Events of the tools that act on the machine: commands, the processes the model types into,
and patches, each with the approval request that may come before it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.inputs import WireModel

# Who started a command: the model's one-shot tool, the user, or the model's unified exec
# (the call that started a process, or one that typed into it).
ExecCommandSource = Literal[
    "agent", "user_shell", "unified_exec_startup", "unified_exec_interaction"
]


class ExecCommandBeginEvent(WireModel):
    type: Literal["exec_command_begin"] = "exec_command_begin"
    call_id: str
    turn_id: str
    command: list[str]
    cwd: str
    parsed_cmd: list[dict[str, Any]] = Field(default_factory=list)
    source: ExecCommandSource = "agent"
    # The unified exec session id of a process the model may come back to.
    process_id: str | None = None


class ExecCommandOutputDeltaEvent(WireModel):
    type: Literal["exec_command_output_delta"] = "exec_command_output_delta"
    call_id: str
    stream: Literal["stdout", "stderr"]
    # Base64 of the raw bytes, as the core protocol sends them.
    chunk: str


class Duration(WireModel):
    secs: int
    nanos: int


class ExecCommandEndEvent(WireModel):
    type: Literal["exec_command_end"] = "exec_command_end"
    call_id: str
    turn_id: str
    command: list[str]
    cwd: str
    parsed_cmd: list[dict[str, Any]] = Field(default_factory=list)
    source: ExecCommandSource = "agent"
    process_id: str | None = None
    stdout: str = ""
    stderr: str = ""
    aggregated_output: str = ""
    exit_code: int
    duration: Duration
    formatted_output: str = ""
    status: Literal["completed", "failed", "declined"]


class TerminalInteractionEvent(WireModel):
    """The model typed `stdin` into the process `process_id` started by call `call_id`."""

    type: Literal["terminal_interaction"] = "terminal_interaction"
    call_id: str
    process_id: str
    stdin: str


class ExecApprovalRequestEvent(WireModel):
    type: Literal["exec_approval_request"] = "exec_approval_request"
    call_id: str
    approval_id: str | None = None
    turn_id: str
    command: list[str]
    cwd: str
    reason: str | None = None
    parsed_cmd: list[dict[str, Any]] = Field(default_factory=list)
    available_decisions: list[ReviewDecision] | None = None
    # codex-lsp: true when approving runs the command outside the sandbox (the model asked for
    # escalation, a rerun after a sandbox denial, or no sandbox at all), so a prompt can say so.
    run_unsandboxed: bool | None = None


class ApplyPatchApprovalRequestEvent(WireModel):
    type: Literal["apply_patch_approval_request"] = "apply_patch_approval_request"
    call_id: str
    turn_id: str
    changes: dict[str, dict[str, Any]]
    reason: str | None = None
    grant_root: str | None = None


class PatchApplyBeginEvent(WireModel):
    type: Literal["patch_apply_begin"] = "patch_apply_begin"
    call_id: str
    turn_id: str
    auto_approved: bool
    changes: dict[str, dict[str, Any]]


class PatchApplyEndEvent(WireModel):
    type: Literal["patch_apply_end"] = "patch_apply_end"
    call_id: str
    turn_id: str
    stdout: str = ""
    stderr: str = ""
    success: bool
    changes: dict[str, dict[str, Any]] = Field(default_factory=dict)
    status: Literal["completed", "failed", "declined"]
