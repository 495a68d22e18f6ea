"""Responses-API items: what the model sends and what the history sends back to it.

TypedDicts rather than models: an item stays the plain JSON dict it is on the wire and in a
rollout, byte for byte; these types only let the checker see which keys each kind carries.
Items of a kind not listed here (a newer API's) still pass through as `OtherItem`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast


class InputTextContent(TypedDict):
    type: Literal["input_text"]
    text: str


class InputImageContent(TypedDict):
    type: Literal["input_image"]
    image_url: str
    detail: NotRequired[str]


class OutputTextContent(TypedDict):
    type: Literal["output_text"]
    text: str


ContentItem = InputTextContent | InputImageContent | OutputTextContent


class MessageItem(TypedDict):
    type: Literal["message"]
    role: str
    content: list[ContentItem]
    id: NotRequired[str]


class SummaryText(TypedDict):
    type: Literal["summary_text"]
    text: str


class ReasoningContent(TypedDict):
    type: Literal["reasoning_text", "text"]
    text: str


class ReasoningItem(TypedDict):
    type: Literal["reasoning"]
    summary: list[SummaryText]
    id: NotRequired[str]
    content: NotRequired[list[ReasoningContent] | None]
    encrypted_content: NotRequired[str | None]


class FunctionCallItem(TypedDict):
    type: Literal["function_call"]
    name: str
    arguments: str
    call_id: str
    id: NotRequired[str]


class FunctionCallOutputItem(TypedDict):
    """`output` is text, or a list of content items when the tool answers with images."""

    type: Literal["function_call_output"]
    call_id: str
    output: str | list[ContentItem]


class CustomToolCallItem(TypedDict):
    type: Literal["custom_tool_call"]
    name: str
    input: str
    call_id: str
    id: NotRequired[str]
    status: NotRequired[str]


class CustomToolCallOutputItem(TypedDict):
    type: Literal["custom_tool_call_output"]
    call_id: str
    output: str | list[ContentItem]


class LocalShellExecAction(TypedDict):
    type: Literal["exec"]
    command: list[str]
    timeout_ms: NotRequired[int | None]
    working_directory: NotRequired[str | None]
    env: NotRequired[dict[str, str] | None]
    user: NotRequired[str | None]


class LocalShellCallItem(TypedDict):
    type: Literal["local_shell_call"]
    status: str
    action: LocalShellExecAction
    call_id: NotRequired[str | None]
    id: NotRequired[str]


class WebSearchCallItem(TypedDict):
    """`action` says what was searched or opened (`search`, `open_page`, `find_in_page`)."""

    type: Literal["web_search_call"]
    id: NotRequired[str]
    status: NotRequired[str]
    action: NotRequired[dict[str, Any]]


class CompactionItem(TypedDict):
    """A server-side compaction's opaque summary, sent back as it came."""

    type: Literal["compaction"]
    encrypted_content: str
    id: NotRequired[str]


class OtherItem(TypedDict):
    """An item of a kind this engine does not interpret; kept and resent unchanged."""

    type: str


ResponseItem = (
    MessageItem
    | ReasoningItem
    | FunctionCallItem
    | FunctionCallOutputItem
    | CustomToolCallItem
    | CustomToolCallOutputItem
    | LocalShellCallItem
    | WebSearchCallItem
    | CompactionItem
    | OtherItem
)

ToolCallItem = FunctionCallItem | CustomToolCallItem | LocalShellCallItem
ToolOutputItem = FunctionCallOutputItem | CustomToolCallOutputItem


def response_item(item: Mapping[str, object]) -> ResponseItem:
    """A parsed JSON object (a stream's or a rollout's item) seen as the item it holds.

    No check and no copy: the engine keeps and resends whatever the JSON says.
    """
    return cast("ResponseItem", item)
