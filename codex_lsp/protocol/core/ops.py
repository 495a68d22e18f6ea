"""Submission Queue: the `Op`s a UI sends to `Codex`, and their `Submission` envelope."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, model_validator

from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.editor_tasks import Attachment, EditorTask
from codex_lsp.protocol.core.goals import ClearThreadGoal, ContinueThreadGoal, SetThreadGoal
from codex_lsp.protocol.core.inputs import (
    CollaborationModeKind,
    Personality,
    ReasoningEffort,
    ReasoningSummary,
    ReviewRequest,
    UserInput,
    WireModel,
)
from codex_lsp.protocol.core.policy import AskForApproval, SandboxPolicy


class ConfigureSession(WireModel):
    """First op of every session; sending it again reconfigures and aborts running work."""

    type: Literal["configure_session"] = "configure_session"
    model: str | None = None
    model_provider: str | None = None
    effort: ReasoningEffort | None = None
    summary: ReasoningSummary | None = None
    approval_policy: AskForApproval | None = None
    sandbox_policy: SandboxPolicy | None = None
    cwd: str | None = None
    base_instructions: str | None = None
    developer_instructions: str | None = None
    user_instructions: str | None = None
    personality: Personality | None = None
    # Resume continues an existing rollout; fork copies one into a new thread.
    resume_path: str | None = None
    fork_path: str | None = None
    fork_up_to_turn: str | None = None
    fork_up_to_response_id: str | None = None
    ephemeral: bool = False
    source: str | None = None


class UserInputOp(WireModel):
    """Legacy user input: uses the persisted turn context."""

    type: Literal["user_input"] = "user_input"
    items: list[UserInput]
    final_output_json_schema: dict[str, Any] | None = None
    previous_response_id: str | None = None


class UserTurn(WireModel):
    """User input together with the full turn context it should run under."""

    type: Literal["user_turn"] = "user_turn"
    items: list[UserInput]
    cwd: str
    approval_policy: AskForApproval
    sandbox_policy: SandboxPolicy
    model: str
    effort: ReasoningEffort | None = None
    summary: ReasoningSummary | None = None
    final_output_json_schema: dict[str, Any] | None = None
    personality: Personality | None = None
    # A response id from an earlier `turn_complete`: the task starts from that bookmark.
    previous_response_id: str | None = None
    # Context the editor attached and a task it asks for: the model reads them as instructions
    # next to `items`, which stay what the user said.
    attachments: list[Attachment] = Field(default_factory=list)
    task: EditorTask | None = None
    # "plan": the turn explores read-only and ends with a plan; None keeps the thread's mode.
    collaboration_mode: CollaborationModeKind | None = None


class OverrideTurnContext(WireModel):
    type: Literal["override_turn_context"] = "override_turn_context"
    cwd: str | None = None
    approval_policy: AskForApproval | None = None
    sandbox_policy: SandboxPolicy | None = None
    model: str | None = None
    effort: ReasoningEffort | None = None
    summary: ReasoningSummary | None = None
    personality: Personality | None = None
    collaboration_mode: CollaborationModeKind | None = None


class Interrupt(WireModel):
    type: Literal["interrupt"] = "interrupt"


class ExecApproval(WireModel):
    type: Literal["exec_approval"] = "exec_approval"
    id: str
    turn_id: str | None = None
    decision: ReviewDecision
    # With an approving decision: also allow commands starting with these words from now on.
    execpolicy_amendment: list[str] | None = None


class HunkRef(WireModel):
    """One hunk of a proposed change: the file's absolute path as the change names it, and the
    hunk's 0-based place among the `@@` hunks of that file's diff (0 for a whole-file change)."""

    path: str
    index: int = Field(ge=0)


class PatchApproval(WireModel):
    type: Literal["patch_approval"] = "patch_approval"
    id: str
    decision: ReviewDecision
    # With an approval: the hunks the user declined; the rest of the change is applied.
    declined_hunks: list[HunkRef] = Field(default_factory=list)


class UserInputAnswerEntry(WireModel):
    """One question's answer: chosen option values, plus free text typed as "other"."""

    selected: list[str] = Field(default_factory=list)
    other: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_codex(cls, data: Any) -> Any:
        # Codex clients send `{answers: [...]}`: chosen labels or typed text, mixed.
        if isinstance(data, dict) and "selected" not in data and "answers" in data:
            return {"selected": data["answers"], "other": data.get("other")}
        return data


class UserInputAnswer(WireModel):
    """Answers to the questions a turn asked; `id` is the turn id."""

    type: Literal["user_input_answer"] = "user_input_answer"
    id: str
    answers: dict[str, UserInputAnswerEntry] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_codex(cls, data: Any) -> Any:
        # Codex wraps the answers: `{id, response: {answers: {...}}}`.
        if isinstance(data, dict) and "answers" not in data:
            response = data.get("response")
            if isinstance(response, dict):
                return {**data, "answers": response.get("answers") or {}}
        return data


class ListSkills(WireModel):
    type: Literal["list_skills"] = "list_skills"
    cwds: list[str] | None = None
    force_reload: bool = False


class Compact(WireModel):
    type: Literal["compact"] = "compact"


class SteerInput(WireModel):
    """More user input for the running regular turn, which must be `expected_turn_id`."""

    type: Literal["steer_input"] = "steer_input"
    items: list[UserInput]
    expected_turn_id: str


class InjectItems(WireModel):
    """Raw Responses-API items appended to the model-visible history as they are."""

    type: Literal["inject_items"] = "inject_items"
    items: list[dict[str, Any]]


class RevertToTurn(WireModel):
    """Make the history what it was before `turn_id` began; later turns are dropped.

    `num_turns` counts the turns dropped (`turn_id` and every later one) as a reader of the
    thread sees them, so a replay of the rollout drops the same ones.
    """

    type: Literal["revert_to_turn"] = "revert_to_turn"
    turn_id: str
    num_turns: int


class SetThreadName(WireModel):
    type: Literal["set_thread_name"] = "set_thread_name"
    name: str


class Review(WireModel):
    type: Literal["review"] = "review"
    review_request: ReviewRequest


class RefreshMcpServers(WireModel):
    """Restart the session's MCP servers from the config as it is on disk now."""

    type: Literal["refresh_mcp_servers"] = "refresh_mcp_servers"


class ReloadUserConfig(WireModel):
    """Re-read config.toml for what a running session takes from it between turns: feature
    flags, skills settings, MCP servers. The thread's model and policies stay as they are."""

    type: Literal["reload_user_config"] = "reload_user_config"


class Shutdown(WireModel):
    type: Literal["shutdown"] = "shutdown"


class RunUserShellCommand(WireModel):
    """A command line the user typed: run in the user's shell and recorded in the thread."""

    type: Literal["run_user_shell_command"] = "run_user_shell_command"
    command: str
    timeout_ms: int | None = Field(default=None, ge=0)


Op = Annotated[
    ConfigureSession
    | UserInputOp
    | UserTurn
    | OverrideTurnContext
    | Interrupt
    | ExecApproval
    | PatchApproval
    | UserInputAnswer
    | ListSkills
    | Compact
    | SteerInput
    | InjectItems
    | RevertToTurn
    | SetThreadName
    | SetThreadGoal
    | ClearThreadGoal
    | ContinueThreadGoal
    | Review
    | RefreshMcpServers
    | ReloadUserConfig
    | Shutdown
    | RunUserShellCommand,
    Field(discriminator="type"),
]

OP_ALIASES = {"request_user_input_response": "user_input_answer"}

_op_adapter: TypeAdapter[Op] = TypeAdapter(Op)


class Submission(WireModel):
    """One entry of the Submission Queue; `id` correlates the events it causes."""

    id: str
    op: Op


class UnknownOpError(ValueError):
    """An op whose `type` this engine does not implement."""

    def __init__(self, op_type: str) -> None:
        super().__init__(f"unknown op type {op_type!r}")
        self.op_type = op_type


def parse_op(data: Any) -> Op:
    """Validate one op, mapping legacy aliases; unknown types raise `UnknownOpError`."""
    if isinstance(data, dict):
        op_type = data.get("type")
        if op_type in OP_ALIASES:
            data = {**data, "type": OP_ALIASES[op_type]}
        elif not isinstance(op_type, str) or op_type not in _KNOWN_OP_TYPES:
            raise UnknownOpError(str(op_type))
    return _op_adapter.validate_python(data)


_KNOWN_OP_TYPES = frozenset(
    cls.model_fields["type"].default
    for cls in (
        ConfigureSession,
        UserInputOp,
        UserTurn,
        OverrideTurnContext,
        Interrupt,
        ExecApproval,
        PatchApproval,
        UserInputAnswer,
        ListSkills,
        Compact,
        SteerInput,
        InjectItems,
        RevertToTurn,
        SetThreadName,
        SetThreadGoal,
        ClearThreadGoal,
        ContinueThreadGoal,
        Review,
        RefreshMcpServers,
        ReloadUserConfig,
        Shutdown,
        RunUserShellCommand,
    )
)
