"""Ops that change a thread's model-visible history outside a turn's own flow: steering input
into the running turn, injecting raw items, and reverting to before an earlier turn."""

from __future__ import annotations

from typing import Any

from codex_lsp.engine.session import Session
from codex_lsp.protocol.core.events import ErrorEvent
from codex_lsp.protocol.core.events_history import (
    ItemsInjectedEvent,
    SteerAcceptedEvent,
    ThreadRolledBackEvent,
)
from codex_lsp.protocol.core.inputs import TokenUsage
from codex_lsp.protocol.core.ops import InjectItems, RevertToTurn, SteerInput
from codex_lsp.protocol.core.response_items import ResponseItem, response_item
from codex_lsp.store.history import history_before_turn
from codex_lsp.store.rollout import COMPACTED, read_rollout


def steer_input(session: Session, sub_id: str, op: SteerInput) -> None:
    task = session.running_task
    if task is None or task.steering.closed:
        _refuse(session, sub_id, "no active turn to steer")
        return
    if task.sub_id != op.expected_turn_id:
        _refuse(
            session,
            sub_id,
            f"expected active turn id `{op.expected_turn_id}` but found `{task.sub_id}`",
        )
        return
    if task.kind != "regular":
        session.reply(
            sub_id,
            ErrorEvent(
                message=f"cannot steer a {task.kind} turn",
                codex_error_info={"active_turn_not_steerable": {"turn_kind": task.kind}},
            ),
        )
        return
    if not op.items:
        _refuse(session, sub_id, "input must not be empty")
        return
    task.steering.add(list(op.items))
    session.reply(sub_id, SteerAcceptedEvent(turn_id=task.sub_id))


def inject_items(session: Session, sub_id: str, op: InjectItems) -> None:
    for index, item in enumerate(op.items):
        if not isinstance(item.get("type"), str):
            _refuse(
                session,
                sub_id,
                f"items[{index}] is not a valid response item: missing field `type`",
            )
            return
    # Recorded like the model's own items: the next request carries them, a resume keeps them.
    session.record_items([response_item(dict(item)) for item in op.items])
    session.sync_rollout()
    session.reply(sub_id, ItemsInjectedEvent(count=len(op.items)))


def revert_to_turn(session: Session, sub_id: str, op: RevertToTurn) -> None:
    """Rebuild the history from the rollout as it was just before `op.turn_id` started."""
    if session.running_task is not None:
        session.reply(
            sub_id,
            ErrorEvent(message="a turn is running; interrupt it before reverting"),
        )
        return
    path = session.rollout_path
    if path is None:
        session.reply(sub_id, ErrorEvent(message="an ephemeral thread has no stored history"))
        return
    session.sync_rollout()
    history = history_before_turn(read_rollout(path).lines, op.turn_id)
    if history is None:
        session.reply(sub_id, ErrorEvent(message=f"no turn {op.turn_id!r} in this thread"))
        return
    session.history.replace(history)
    # The usage of the dropped turns no longer says how full the context window is.
    session.last_usage = TokenUsage()
    # The event first: a reader replaying the rollout drops the turns from what it shows, and
    # the replacement that follows is the history it continues from.
    session.emit(sub_id, ThreadRolledBackEvent(num_turns=op.num_turns))
    session.record_line(COMPACTED, replacement(history))
    session.sync_rollout()


def replacement(history: list[ResponseItem]) -> dict[str, Any]:
    """A `compacted` line's payload that sets the history outright (no summary)."""
    return {"message": "", "replacement_history": history}


def _refuse(session: Session, sub_id: str, message: str) -> None:
    session.reply(sub_id, ErrorEvent(message=message, codex_error_info="bad_request"))
