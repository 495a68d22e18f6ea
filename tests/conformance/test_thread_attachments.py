"""Thread attachments side by side with the real `codex app-server` 0.171: add (created, then
the existing one kept for the same identity), list in pages, find the owners of an identity,
remove (twice: the second says nothing), `thread/attachment/updated` after each change, and an
unknown thread refused. Ids, cursors and times are compared by what they refer to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response

_NO_THREAD = "00000000-0000-0000-0000-000000000000"


def _journey(side: Side, tmp_path: Path) -> list[Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        client = run.client
        run.model.enqueue(text_response("one", response_id="r1"))
        thread_id = start_thread(run)
        run_turn(run, thread_id, "first")
        ids: list[str] = []

        def named(value: Any, key: str = "") -> Any:
            if isinstance(value, dict):
                return {k: named(v, k) for k, v in value.items()}
            if isinstance(value, list):
                return [named(v) for v in value]
            if key == "createdAt":
                return isinstance(value, int)
            if key == "nextCursor":
                return value is not None
            if value == thread_id:
                return "<thread>"
            if key in ("id", "attachmentId"):
                if value not in ids:
                    ids.append(value)
                return f"<attachment {ids.index(value) + 1}>"
            return value

        seen: list[Any] = []

        def call(method: str, params: dict[str, Any]) -> None:
            answer = client.response(client.request(method, params))
            answer.pop("id", None)
            if "error" in answer:
                answer["error"].pop("message", None)
            seen.append((method, named(answer)))

        def identity(key: str, thread: str = thread_id) -> dict[str, Any]:
            return {"threadId": thread, "attachmentType": "pr", "identityKey": key}

        call("thread/attachment/add", {**identity("k1"), "payload": {"n": 1}})
        call("thread/attachment/add", {**identity("k1"), "payload": {"n": 2}})
        call("thread/attachment/add", {**identity("k2"), "payload": [1]})
        call("thread/attachment/add", {**identity("k1", _NO_THREAD), "payload": 1})
        call("thread/attachment/list", {"threadId": thread_id})
        call("thread/attachment/list", {"threadId": thread_id, "limit": 1})
        call("thread/attachmentOwner/list", {"attachmentType": "pr", "identityKey": "k1"})
        call("thread/attachmentOwner/list", {"attachmentType": "pr", "identityKey": "none"})
        call("thread/attachment/remove", identity("k1"))
        call("thread/attachment/remove", identity("k1"))
        call("thread/attachment/remove", identity("k1", _NO_THREAD))
        call("thread/attachment/list", {"threadId": thread_id})
        updated = [
            m["params"]
            for m in (entry.message for entry in client.seen())
            if m.get("method") == "thread/attachment/updated"
        ]
        seen.append(("updated", named(updated)))
        return seen


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_attachments_as_the_real_server_keeps_them(side: Side, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real")
    assert real[0][1]["result"]["outcome"] == "created"
    assert _journey(side, tmp_path / side) == real
