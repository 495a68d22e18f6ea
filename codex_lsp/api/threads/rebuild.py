"""Rebuild a thread's `Turn`s from the events its rollout persisted.

Rollouts keep the end of each thing (a finished command, an applied patch, the final agent
message), never the live deltas, so rebuilt items are all completed. A turn runs from its
`task_started` to `task_complete` or `turn_aborted`; an `error` inside it marks it failed; a
`thread_rolled_back` drops the last turns. Events written before turns were marked (older
rollouts) open an implicit turn at each `user_message`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from codex_lsp.api.convert import turn_error, user_input_from_event
from codex_lsp.api.threads import items
from codex_lsp.api.threads.events.review import failed_review_message
from codex_lsp.protocol.core.events import ExecCommandEndEvent
from codex_lsp.protocol.turns.items import ImageViewThreadItem, PatchApplyStatus, PlanThreadItem
from codex_lsp.protocol.turns.models import Turn, TurnError, TurnStatus


@dataclass
class _TurnBuilder:
    id: str
    started_at: int | None = None
    items: list[Any] = field(default_factory=list)
    status: TurnStatus = "inProgress"
    error: TurnError | None = None
    completed_at: int | None = None
    duration_ms: int | None = None
    reasoning: list[str] | None = None  # the summary parts of the reasoning item being read
    # Opened by a user message in a rollout without turn markers; such a turn ends where the
    # next user message begins, and is complete (those rollouts predate interrupt markers).
    implicit: bool = False

    def add(self, item: Any) -> None:
        self.reasoning = None
        self.items.append(item)

    def next_id(self, prefix: str) -> str:
        return f"{prefix}-{self.id}-{len(self.items)}"

    def build(self, unfinished_status: TurnStatus) -> Turn:
        status = self.status
        if status == "inProgress":
            status = "completed" if self.implicit else unfinished_status
        if self.error is not None and status == "completed":
            status = "failed"
        return Turn(
            id=self.id,
            items=self.items,
            status=status,
            error=self.error if status == "failed" else None,
            started_at=self.started_at,
            completed_at=self.completed_at,
            duration_ms=self.duration_ms,
            items_view="full",
        )


def rebuild_turns(events: list[dict[str, Any]], *, running_turn: str | None = None) -> list[Turn]:
    """The turns of a thread. A turn left open is `interrupted` (the process that ran it is
    gone) unless it is `running_turn`, which is still `inProgress`."""
    turns: list[_TurnBuilder] = []
    current: _TurnBuilder | None = None
    # A review enters review mode just before its turn starts: the item belongs to that turn.
    early: list[dict[str, Any]] = []

    def open_turn(turn_id: str | None, started_at: int | None = None) -> _TurnBuilder:
        builder = _TurnBuilder(id=turn_id or f"turn-{len(turns) + 1}", started_at=started_at)
        turns.append(builder)
        return builder

    for event in events:
        kind = event.get("type")
        if kind in ("task_started", "turn_started"):
            current = open_turn(_str(event.get("turn_id")), _int(event.get("started_at")))
            for held in early:
                _apply(current, held.get("type"), held)
            early.clear()
            continue
        if kind == "entered_review_mode" and current is None:
            early.append(event)
            continue
        if kind in ("task_complete", "turn_complete", "turn_aborted"):
            if current is not None:
                current.status = "interrupted" if kind == "turn_aborted" else "completed"
                current.completed_at = _int(event.get("completed_at"))
                current.duration_ms = _int(event.get("duration_ms"))
            current = None
            continue
        if kind == "thread_rolled_back":
            drop = _int(event.get("num_turns")) or 0
            if drop > 0:
                del turns[-drop:]
            current = None
            continue
        if kind == "user_message" and current is not None and current.implicit:
            current.status = "completed"
            current = None
        if current is None:
            if kind != "user_message":
                continue  # bookkeeping between turns (token counts, names)
            current = open_turn(None)
            current.implicit = True
        _apply(current, kind, event)
    return [
        turn.build("inProgress" if turn.id == running_turn else "interrupted") for turn in turns
    ]


def _item_text(item: dict[str, Any]) -> str:
    parts = item.get("content")
    return "".join(
        part["text"]
        for part in (parts if isinstance(parts, list) else [])
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )


def _completed_item(turn: _TurnBuilder, item: Any) -> None:
    """Codex 0.171 and later persist a turn's messages as completed items, not as
    `user_message` / `agent_message` events: a thread the Codex CLI wrote shows them too."""
    if not isinstance(item, dict):
        return
    kind = item.get("type")
    item_id = _str(item.get("id"))
    if kind == "UserMessage":
        inputs = user_input_from_event({"message": _item_text(item)})
        turn.add(items.user_message(item_id or turn.next_id("user"), inputs))
    elif kind == "AgentMessage":
        if item_id is None or any(existing.id == item_id for existing in turn.items):
            item_id = turn.next_id("msg")
        turn.add(items.agent_message(item_id, _item_text(item), item.get("phase")))


def _apply(turn: _TurnBuilder, kind: Any, event: dict[str, Any]) -> None:
    if kind == "user_message":
        turn.add(items.user_message(turn.next_id("user"), user_input_from_event(event)))
    elif kind == "agent_message":
        item_id = _str(event.get("item_id")) or turn.next_id("msg")
        if any(existing.id == item_id for existing in turn.items):
            item_id = turn.next_id("msg")
        turn.add(items.agent_message(item_id, str(event.get("message") or ""), event.get("phase")))
    elif kind == "item_completed":
        _completed_item(turn, event.get("item"))
    elif kind == "proposed_plan":
        item_id = _str(event.get("item_id")) or turn.next_id("plan")
        turn.add(PlanThreadItem(id=item_id, text=str(event.get("text") or "")))
    elif kind in ("agent_reasoning", "agent_reasoning_raw_content"):
        _reasoning(turn, kind, str(event.get("text") or ""))
    elif kind == "exec_command_end":
        try:
            turn.add(items.command_finished(ExecCommandEndEvent.model_validate(event)))
        except ValidationError:
            return
    elif kind == "patch_apply_end":
        raw_changes = event.get("changes")
        changes: dict[str, dict[str, Any]] = raw_changes if isinstance(raw_changes, dict) else {}
        status: PatchApplyStatus = event.get("status") or (
            "completed" if event.get("success") else "failed"
        )
        turn.add(
            items.file_change(str(event.get("call_id") or turn.next_id("patch")), changes, status)
        )
    elif kind == "web_search_end":
        turn.add(
            items.web_search(
                str(event.get("call_id") or turn.next_id("ws")), str(event.get("query") or "")
            )
        )
    elif kind == "view_image_tool_call":
        call_id = str(event.get("call_id") or turn.next_id("image"))
        turn.add(ImageViewThreadItem(id=call_id, path=str(event.get("path") or "")))
    elif kind == "collab_agent_tool_call_end":
        turn.add(items.collab_agent_tool_call(event))
    elif kind == "sub_agent_activity":
        turn.add(items.sub_agent_activity(event))
    elif kind == "mcp_tool_call_end":
        raw_invocation = event.get("invocation")
        invocation: dict[str, Any] = raw_invocation if isinstance(raw_invocation, dict) else {}
        turn.add(
            items.mcp_tool_call(
                str(event.get("call_id") or turn.next_id("mcp")),
                invocation,
                result=event.get("result"),
                error=event.get("error"),
                duration=None,
            )
        )
    elif kind == "context_compacted":
        turn.add(items.context_compaction(turn.next_id("compaction")))
    elif kind == "entered_review_mode":
        turn.add(
            items.entered_review(turn.next_id("review"), str(event.get("user_facing_hint") or ""))
        )
    elif kind == "exited_review_mode":
        output = event.get("review_output")
        turn.add(items.exited_review(turn.next_id("review"), output))
        failure = failed_review_message(output)
        if failure is not None and turn.error is None:
            turn.error = turn_error(failure)  # as it streamed: see `events.review`
    elif kind == "error":
        turn.error = turn_error(str(event.get("message") or "error"), event.get("codex_error_info"))


def _reasoning(turn: _TurnBuilder, kind: str, text: str) -> None:
    """Consecutive reasoning events are one reasoning item: summaries, then raw content."""
    last = turn.items[-1] if turn.items else None
    if turn.reasoning is None or last is None or last.type != "reasoning":
        item = items.reasoning(turn.next_id("reasoning"), [], [])
        turn.add(item)
        turn.reasoning = item.summary
        last = item
    if kind == "agent_reasoning":
        last.summary.append(text)
    else:
        last.content.append(text)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
