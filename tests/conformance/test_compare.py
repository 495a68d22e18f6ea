"""The comparison itself, on hand-made transcripts: what it flags and what it lets through."""

from __future__ import annotations

from typing import Any

from tests.conformance.compare import (
    key_paths,
    order_differences,
    render,
    server_kinds,
    shape_differences,
    shapes,
)
from tests.conformance.wire import Entry


def note(method: str, **params: Any) -> Entry:
    return Entry("s2c", {"method": method, "params": params})


def test_ours_may_add_but_not_drop_or_reorder() -> None:
    real = ["notification a", "notification b", "notification b", "notification c"]
    added = [
        "notification a",
        "notification x",
        "notification b",
        "notification b",
        "notification c",
    ]
    assert order_differences(real, added) == []
    dropped = order_differences(real, ["notification a", "notification b", "notification c"])
    assert [(d.kind, d.subject) for d in dropped] == [("order", "notification b")]
    swapped = ["notification a", "notification c", "notification b", "notification b"]
    assert [d.subject for d in order_differences(real, swapped)] == ["notification c"]
    missing = order_differences(real, ["notification a", "notification b", "notification b"])
    assert [(d.kind, d.subject) for d in missing] == [("method", "notification c")]


def test_answers_and_listed_kinds_are_counted_not_ordered() -> None:
    real = ["response turn/start", "notification turn/started", "notification w"]
    raced = ["notification turn/started", "response turn/start", "notification w"]
    assert order_differences(real, raced) == []
    late = ["notification turn/started", "notification w"]
    assert [d.subject for d in order_differences(real, late)] == ["response turn/start"]
    moved = ["notification w", "notification turn/started", "response turn/start"]
    assert order_differences(real, moved, unordered=frozenset({"notification w"})) == []


def test_key_paths_name_union_variants_and_normalise_ids_and_roots() -> None:
    value = {
        "item": {"type": "agentMessage", "id": "x", "phase": None},
        "changes": {"/run/ws/a.txt": 1, "0190a4b2-1111-7222-8333-444455556666": 2},
        "list": [{"k": 1}, {"j": 2}],
    }
    paths = {render(p) for p in key_paths(value, {"/run/ws": "<ws>"})}
    assert {"item<agentMessage>.phase", "changes.<ws>/a.txt", "changes.<uuid>"} <= paths
    assert {"list[].k", "list[].j"} <= paths


def test_only_the_outermost_missing_key_is_reported() -> None:
    real = shapes([note("n", thread={"env": {"a": 1, "b": 2}, "id": 1})], {})
    ours = shapes([note("n", thread={"id": 1})], {})
    (missing,) = shape_differences(real, ours)
    assert (missing.subject, missing.path) == ("notification n", "params.thread.env")
    assert shape_differences(real, real) == []


def test_a_notification_the_real_server_repeats_word_for_word_counts_once() -> None:
    gone = note("thread/status/changed", threadId="t", status={"type": "notLoaded"})
    idle = note("thread/status/changed", threadId="t", status={"type": "idle"})
    real = [idle, gone, gone, note("thread/archived", threadId="t")]
    folded = server_kinds(real, fold_repeats=True)
    assert folded.count("notification thread/status/changed") == 2
    assert order_differences(folded, server_kinds([idle, gone, real[3]])) == []
    # Unfolded, ours sending it once is a difference; two different ones are never folded.
    assert order_differences(server_kinds(real), server_kinds([idle, gone, real[3]])) != []
    assert server_kinds([idle, gone], fold_repeats=True) == server_kinds([idle, gone])
