"""Server -> client requests of the v2 API (approvals, questions) and `SERVER_REQUESTS`.

Each request is sent after the `item/started` of the item it concerns; the client's answer is
followed by `serverRequest/resolved` and, later, `item/completed` with the final status.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, SnakeModel, V2Model
from codex_lsp.protocol.turns.items import CommandAction, FileUpdateChange

NetworkApprovalProtocol = TypeAliasType(
    "NetworkApprovalProtocol", Literal["http", "https", "socks5Tcp", "socks5Udp"]
)


class NetworkApprovalContext(V2Model):
    """The command wants the network: which host, over what."""

    host: str
    protocol: NetworkApprovalProtocol


class NetworkPolicyAmendment(SnakeModel):
    host: str
    action: Literal["allow", "deny"]


class ExecpolicyAmendment(SnakeModel):
    execpolicy_amendment: list[str]


class AcceptWithExecpolicyAmendmentDecision(V2Model):
    accept_with_execpolicy_amendment: ExecpolicyAmendment


class NetworkPolicyAmendmentChoice(SnakeModel):
    network_policy_amendment: NetworkPolicyAmendment


class ApplyNetworkPolicyAmendmentDecision(V2Model):
    apply_network_policy_amendment: NetworkPolicyAmendmentChoice


CommandExecutionApprovalDecision = TypeAliasType(
    "CommandExecutionApprovalDecision",
    Literal["accept", "acceptForSession", "decline", "cancel"]
    | AcceptWithExecpolicyAmendmentDecision
    | ApplyNetworkPolicyAmendmentDecision,
)
"""`decline` lets the turn go on without the command; `cancel` interrupts the turn."""

CommandExecutionApprovalKind = TypeAliasType(
    "CommandExecutionApprovalKind", Literal["command", "humanCommand", "writeStdin"]
)
"""What is asked about: a command the model runs, one the user typed, or input to a running
process."""

LOCAL_ENVIRONMENT = "local"
"""The id of the one environment commands run in here: this machine."""


class CodexLspApprovalExtras(V2Model):
    """What codex-lsp adds to an approval request, beyond the protocol."""

    # The patch itself, one unified diff per file (as in the pending `fileChange` item), so a
    # client can preview the change from the request alone.
    changes: Opt[list[FileUpdateChange]] = None
    # True when approving runs the command outside the sandbox; a prompt must say so.
    run_unsandboxed: Opt[bool] = None


class CommandExecutionRequestApprovalParams(V2Model):
    kind: CommandExecutionApprovalKind = "command"
    thread_id: str
    turn_id: str
    # The call id, equal to the `id` of the pending `commandExecution` item.
    item_id: str
    started_at_ms: int
    environment_id: str | None = LOCAL_ENVIRONMENT
    approval_id: Opt[str] = None
    reason: Opt[str] = None
    network_approval_context: Opt[NetworkApprovalContext] = None
    command: Opt[str] = None
    cwd: Opt[str] = None
    command_actions: Opt[list[CommandAction]] = None
    # argv prefix the user may allow from now on (`acceptWithExecpolicyAmendment`).
    proposed_execpolicy_amendment: Opt[list[str]] = None
    proposed_network_policy_amendments: Opt[list[NetworkPolicyAmendment]] = None
    # The answers the client may give, in the order to offer them.
    available_decisions: Opt[list[CommandExecutionApprovalDecision]] = None
    # Our own additions, under one key of ours that no protocol field will take.
    codex_lsp: Opt[CodexLspApprovalExtras] = None


class CommandExecutionRequestApprovalResponse(V2Model):
    decision: CommandExecutionApprovalDecision


class FileChangeRequestApprovalParams(V2Model):
    """Asks to apply the patch of the pending `fileChange` item, whose `changes` hold it."""

    thread_id: str
    turn_id: str
    item_id: str
    started_at_ms: int
    # Optional in the bindings, yet the reference server always writes both, `null` when unset.
    reason: str | None = None
    # A root the patch wants write access to for the rest of the session.
    grant_root: str | None = None
    # Our own additions, under one key of ours that no protocol field will take.
    codex_lsp: Opt[CodexLspApprovalExtras] = None


FileChangeApprovalDecision = TypeAliasType(
    "FileChangeApprovalDecision",
    Literal["accept", "acceptForSession", "decline", "cancel"],
)


class FileChangeRequestApprovalResponse(V2Model):
    decision: FileChangeApprovalDecision


class ToolRequestUserInputOption(V2Model):
    label: str
    description: str


class ToolRequestUserInputQuestion(V2Model):
    id: str
    header: str
    question: str
    is_other: bool = False
    is_secret: bool = False
    options: list[ToolRequestUserInputOption] | None = None


class ToolRequestUserInputParams(V2Model):
    thread_id: str
    turn_id: str
    item_id: str
    questions: list[ToolRequestUserInputQuestion]
    is_blocking: bool = True
    auto_resolution_ms: int | None = None


class ToolRequestUserInputAnswer(V2Model):
    answers: list[str]


class ToolRequestUserInputResponse(V2Model):
    # Question id -> the chosen labels or typed text.
    answers: dict[str, ToolRequestUserInputAnswer] = Field(default_factory=dict)


ServerRequestParams = (
    CommandExecutionRequestApprovalParams
    | FileChangeRequestApprovalParams
    | ToolRequestUserInputParams
)
"""The params of any server request: each names the thread and the item it is about."""

SERVER_REQUESTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "item/commandExecution/requestApproval": (
        CommandExecutionRequestApprovalParams,
        CommandExecutionRequestApprovalResponse,
    ),
    "item/fileChange/requestApproval": (
        FileChangeRequestApprovalParams,
        FileChangeRequestApprovalResponse,
    ),
    "item/tool/requestUserInput": (ToolRequestUserInputParams, ToolRequestUserInputResponse),
}
"""Server request method -> (params model, model of the client's result)."""
