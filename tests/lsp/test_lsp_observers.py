"""The language server's features receive v2 notifications as their models."""

from __future__ import annotations

import logging

import pytest

from codex_lsp.lsp.observers import NotificationObservers
from codex_lsp.protocol.threads.notifications import (
    ItemCompletedNotification,
    ItemStartedNotification,
    TurnStartedNotification,
    WarningNotification,
)
from codex_lsp.protocol.turns.items import FileChangeThreadItem

FILE_CHANGE = {
    "type": "fileChange",
    "id": "call_1",
    "status": "completed",
    "changes": [{"path": "/ws/a.py", "kind": {"type": "update", "move_path": None}, "diff": ""}],
}


def test_a_watched_notification_arrives_as_its_model() -> None:
    observers = NotificationObservers()
    seen: list[ItemCompletedNotification] = []
    observers.on(ItemCompletedNotification, seen.append)
    params = {"item": FILE_CHANGE, "threadId": "t", "turnId": "u", "completedAtMs": 5}
    observers.deliver("item/completed", ItemCompletedNotification.model_validate(params))
    assert len(seen) == 1
    item = seen[0].item
    assert isinstance(item, FileChangeThreadItem)
    assert [change.path for change in item.changes] == ["/ws/a.py"]
    assert (seen[0].thread_id, seen[0].turn_id) == ("t", "u")


def test_only_the_watched_methods_reach_a_feature() -> None:
    observers = NotificationObservers()
    started: list[ItemStartedNotification] = []
    observers.on(ItemStartedNotification, started.append)
    params = {"item": FILE_CHANGE, "threadId": "t", "turnId": "u", "completedAtMs": 5}
    observers.deliver("item/completed", ItemCompletedNotification.model_validate(params))
    observers.deliver("warning", WarningNotification(message="hello"))
    assert started == []


def test_a_notification_sent_as_another_model_is_dropped_for_features_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    observers = NotificationObservers()
    seen: list[TurnStartedNotification] = []
    observers.on(TurnStartedNotification, seen.append)
    with caplog.at_level(logging.WARNING):
        observers.deliver("turn/started", WarningNotification(thread_id="t", message="hi"))
    assert seen == []
    assert "turn/started came as WarningNotification, not its TurnStartedNotification" in (
        caplog.text
    )


def test_one_failing_feature_does_not_keep_a_notification_from_the_others() -> None:
    observers = NotificationObservers()
    seen: list[str] = []

    def broken(_notice: WarningNotification) -> None:
        raise RuntimeError("broken feature")

    observers.on(WarningNotification, broken)
    observers.on(WarningNotification, lambda notice: seen.append(notice.message))
    observers.deliver("warning", WarningNotification(message="disk full"))
    assert seen == ["disk full"]


def test_subscribing_to_a_model_that_is_no_notification_fails_at_once() -> None:
    with pytest.raises(ValueError, match="FileChangeThreadItem"):
        NotificationObservers().on(FileChangeThreadItem, lambda _item: None)
