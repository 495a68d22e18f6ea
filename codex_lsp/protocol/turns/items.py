"""User input and `ThreadItem`s: what a turn is made of on the v2 wire.

Every item is tagged by a camelCase `type`. Two spots keep snake_case keys because the reference
server writes them that way: `text_elements` on text input and `move_path` on an update change.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, ReasoningEffort, V2Model
from codex_lsp.protocol.core.events_collab import (
    CollabAgentStatus,
    CollabAgentTool,
    CollabAgentToolCallStatus,
    SubAgentActivityKind,
)

ImageDetail = TypeAliasType("ImageDetail", Literal["auto", "low", "high", "original"])


class ByteRange(V2Model):
    start: int
    end: int


class TextElement(V2Model):
    """A span of the text (a pasted image placeholder, a mention) the UI rendered specially."""

    byte_range: ByteRange
    placeholder: str | None = None


class TextUserInput(V2Model):
    type: Literal["text"] = "text"
    text: str
    text_elements: list[TextElement] = Field(default_factory=list, alias="text_elements")


class ImageUserInput(V2Model):
    """An image by URL (often a `data:` URL) or by uploaded file id."""

    type: Literal["image"] = "image"
    url: Opt[str] = None
    file_id: Opt[str] = None
    detail: Opt[ImageDetail] = None

    @model_validator(mode="after")
    def _needs_a_source(self) -> ImageUserInput:
        if self.url is None and self.file_id is None:
            raise ValueError("image input needs `url` or `fileId`")
        return self


class LocalImageUserInput(V2Model):
    type: Literal["localImage"] = "localImage"
    path: str
    detail: Opt[ImageDetail] = None


class SkillUserInput(V2Model):
    type: Literal["skill"] = "skill"
    name: str
    path: str


class MentionUserInput(V2Model):
    type: Literal["mention"] = "mention"
    name: str
    path: str


UserInput = TypeAliasType(
    "UserInput",
    Annotated[
        TextUserInput | ImageUserInput | LocalImageUserInput | SkillUserInput | MentionUserInput,
        Field(discriminator="type"),
    ],
)


class ReadCommandAction(V2Model):
    type: Literal["read"] = "read"
    command: str
    name: str
    path: str


class ListFilesCommandAction(V2Model):
    type: Literal["listFiles"] = "listFiles"
    command: str
    path: str | None = None


class SearchCommandAction(V2Model):
    type: Literal["search"] = "search"
    command: str
    query: str | None = None
    path: str | None = None


class UnknownCommandAction(V2Model):
    type: Literal["unknown"] = "unknown"
    command: str


CommandAction = TypeAliasType(
    "CommandAction",
    Annotated[
        ReadCommandAction | ListFilesCommandAction | SearchCommandAction | UnknownCommandAction,
        Field(discriminator="type"),
    ],
)
"""What a shell command does, as far as a parser can tell; lets a UI say "Read foo.py"."""

CommandExecutionStatus = TypeAliasType(
    "CommandExecutionStatus",
    Literal["inProgress", "completed", "failed", "declined"],
)
CommandExecutionSource = TypeAliasType(
    "CommandExecutionSource",
    Literal["agent", "userShell", "unifiedExecStartup", "unifiedExecInteraction"],
)
PatchApplyStatus = TypeAliasType(
    "PatchApplyStatus",
    Literal["inProgress", "completed", "failed", "declined"],
)
McpToolCallStatus = TypeAliasType("McpToolCallStatus", Literal["inProgress", "completed", "failed"])
MessagePhase = TypeAliasType(
    "MessagePhase",
    Literal["commentary", "partial_answer", "final_answer"],
)


class AddPatchChangeKind(V2Model):
    type: Literal["add"] = "add"


class DeletePatchChangeKind(V2Model):
    type: Literal["delete"] = "delete"


class UpdatePatchChangeKind(V2Model):
    type: Literal["update"] = "update"
    move_path: str | None = Field(default=None, alias="move_path")


PatchChangeKind = TypeAliasType(
    "PatchChangeKind",
    Annotated[
        AddPatchChangeKind | DeletePatchChangeKind | UpdatePatchChangeKind,
        Field(discriminator="type"),
    ],
)


class FileUpdateChange(V2Model):
    """One file of a patch. `diff` is a unified diff for updates and the whole text for adds."""

    path: str
    kind: PatchChangeKind
    diff: str


class McpToolCallResult(V2Model):
    content: list[Any]
    structured_content: Any = None
    meta: Any = Field(default=None, alias="_meta")


class McpToolCallError(V2Model):
    message: str


class SearchWebSearchAction(V2Model):
    type: Literal["search"] = "search"
    query: str | None = None
    queries: list[str] | None = None


class OpenPageWebSearchAction(V2Model):
    type: Literal["openPage"] = "openPage"
    url: str | None = None


class FindInPageWebSearchAction(V2Model):
    type: Literal["findInPage"] = "findInPage"
    url: str | None = None
    pattern: str | None = None


class OtherWebSearchAction(V2Model):
    type: Literal["other"] = "other"


WebSearchAction = TypeAliasType(
    "WebSearchAction",
    Annotated[
        SearchWebSearchAction
        | OpenPageWebSearchAction
        | FindInPageWebSearchAction
        | OtherWebSearchAction,
        Field(discriminator="type"),
    ],
)


class _ThreadItemBase(V2Model):
    # The bindings make the times optional, but the reference server writes both on every
    # item (`completedAtMs: null` while it runs), and clients read them that way.
    id: str
    started_at_ms: int | None = None
    completed_at_ms: int | None = None


class UserMessageThreadItem(_ThreadItemBase):
    type: Literal["userMessage"] = "userMessage"
    content: list[UserInput]
    client_id: str | None = None


class AgentMessageThreadItem(_ThreadItemBase):
    type: Literal["agentMessage"] = "agentMessage"
    text: str
    phase: MessagePhase | None = None
    # Features of the reference server this one does not have: always unset.
    moderation: Any = None
    memory_citation: Any = None
    delivery: Any = None
    questions: list[Any] | None = None


class PlanThreadItem(_ThreadItemBase):
    """The `<proposed_plan>` text of plan mode; `update_plan` checklists travel as notifications."""

    type: Literal["plan"] = "plan"
    text: str


class ReasoningThreadItem(_ThreadItemBase):
    type: Literal["reasoning"] = "reasoning"
    summary: list[str] = Field(default_factory=list)
    content: list[str] = Field(default_factory=list)


class CommandExecutionThreadItem(_ThreadItemBase):
    type: Literal["commandExecution"] = "commandExecution"
    command: str
    cwd: str
    status: CommandExecutionStatus
    command_actions: list[CommandAction] = Field(default_factory=list)
    source: CommandExecutionSource = "agent"
    process_id: str | None = None
    aggregated_output: str | None = None
    exit_code: int | None = None
    duration_ms: int | None = None
    # Set by the reference server for commands a plugin's script runs; never here.
    plugin_id: str | None = None
    script_path: str | None = None


class FileChangeThreadItem(_ThreadItemBase):
    type: Literal["fileChange"] = "fileChange"
    changes: list[FileUpdateChange]
    status: PatchApplyStatus


class McpToolCallThreadItem(_ThreadItemBase):
    type: Literal["mcpToolCall"] = "mcpToolCall"
    server: str
    tool: str
    status: McpToolCallStatus
    # Required on the wire but free-form: whatever JSON the model passed, `null` included.
    arguments: Any
    result: McpToolCallResult | None = None
    error: McpToolCallError | None = None
    duration_ms: int | None = None
    mcp_app_resource_uri: Opt[str] = None
    # App and plugin metadata of the reference server's connectors: unset here.
    app_context: Any = None
    mcp_app_ui: Any = None
    plugin_id: str | None = None
    read_only_hint: bool | None = None
    # The registration's environment, `null` for a thread-wide server (every server here).
    environment_id: str | None = None


class WebSearchThreadItem(_ThreadItemBase):
    type: Literal["webSearch"] = "webSearch"
    query: str
    action: Opt[WebSearchAction] = None


class ImageViewThreadItem(_ThreadItemBase):
    type: Literal["imageView"] = "imageView"
    path: str


class CollabAgentState(V2Model):
    status: CollabAgentStatus
    message: str | None = None


class CollabAgentToolCallThreadItem(_ThreadItemBase):
    """A call of a subagent tool: who called it, the children it reached and their states."""

    type: Literal["collabAgentToolCall"] = "collabAgentToolCall"
    tool: CollabAgentTool
    status: CollabAgentToolCallStatus
    sender_thread_id: str
    receiver_thread_ids: list[str]
    prompt: str | None = None
    model: str | None = None
    reasoning_effort: ReasoningEffort | None = None
    agents_states: dict[str, CollabAgentState]


class SubAgentActivityThreadItem(_ThreadItemBase):
    """A child agent was started, messaged, interrupted, or finished a task."""

    type: Literal["subAgentActivity"] = "subAgentActivity"
    # What the child was started with; unset on the other activities.
    model: str | None = None
    reasoning_effort: ReasoningEffort | None = None
    kind: SubAgentActivityKind
    agent_thread_id: str
    agent_path: str


class EnteredReviewModeThreadItem(_ThreadItemBase):
    """A review began; `review` is the short hint of what is being reviewed."""

    type: Literal["enteredReviewMode"] = "enteredReviewMode"
    review: str


class ExitedReviewModeThreadItem(_ThreadItemBase):
    """A review ended; `review` is the full rendered review text."""

    type: Literal["exitedReviewMode"] = "exitedReviewMode"
    review: str


class ContextCompactionThreadItem(_ThreadItemBase):
    type: Literal["contextCompaction"] = "contextCompaction"


ThreadItem = TypeAliasType(
    "ThreadItem",
    Annotated[
        UserMessageThreadItem
        | AgentMessageThreadItem
        | PlanThreadItem
        | ReasoningThreadItem
        | CommandExecutionThreadItem
        | FileChangeThreadItem
        | McpToolCallThreadItem
        | WebSearchThreadItem
        | ImageViewThreadItem
        | CollabAgentToolCallThreadItem
        | SubAgentActivityThreadItem
        | EnteredReviewModeThreadItem
        | ExitedReviewModeThreadItem
        | ContextCompactionThreadItem,
        Field(discriminator="type"),
    ],
)
