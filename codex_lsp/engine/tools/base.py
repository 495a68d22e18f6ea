"""What every tool handler receives and returns."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codex_lsp.engine.session import RunningTask, Session
    from codex_lsp.engine.tools.config import TurnTools
    from codex_lsp.engine.turn_context import TurnContext


@dataclass(slots=True)
class ToolCall:
    """One call the model made, with the turn it belongs to."""

    session: Session
    task: RunningTask
    ctx: TurnContext
    call_id: str
    name: str
    # `function` calls carry JSON arguments; `custom` (freeform) calls carry raw input.
    kind: str
    payload: str
    # The built-in tools this turn offered; None where a caller offers none of its own.
    tools: TurnTools | None = None

    @property
    def sub_id(self) -> str:
        return self.task.sub_id


@dataclass(slots=True)
class ToolOutput:
    text: str
    success: bool = True
    # Content items (`input_image`, `input_text`) the model reads instead of `text`.
    content: list[dict[str, Any]] | None = None


class ToolError(Exception):
    """A failure the model should read and recover from; never fatal to the turn."""


def object_arguments(payload: str | None) -> dict[str, Any]:
    """A function call's arguments, which must be one JSON object, as the model sent them."""
    try:
        raw = json.loads(payload or "{}")
    except json.JSONDecodeError as err:
        raise ToolError(f"failed to parse function arguments: {err}") from err
    if not isinstance(raw, dict):
        raise ToolError("failed to parse function arguments: expected an object")
    return raw
