"""Whether the user has read a thread, side by side with the real `codex app-server` 0.171.

Two turns, then what a thread list with unread markers does: `thread/readState/changed` after
each turn (the thread unread from its first turn, a new revision each time), the state in
`thread/read` and `thread/list`, marking read and unread with the revision last seen, and a
stale revision refused with the current state. Ids and revisions are compared by what they
refer to, so the two servers' different uuids do not matter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response


def _journey(side: Side, tmp_path: Path) -> list[Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        run.model.enqueue(text_response("one", response_id="r1"))
        run.model.enqueue(text_response("two", response_id="r2"))
        thread_id = start_thread(run)
        turns = [run_turn(run, thread_id, word)["turn"]["id"] for word in ("first", "second")]
        revisions: list[str] = []

        def named(value: Any) -> Any:
            """`value` with ids and revisions replaced by what they stand for."""
            if isinstance(value, dict):
                return {named(k): named(v) for k, v in value.items()}
            if isinstance(value, list):
                return [named(v) for v in value]
            if value == thread_id:
                return "<thread>"
            if value in turns:
                return f"<turn {turns.index(value) + 1}>"
            if isinstance(value, str) and key_is_revision(value):
                if value not in revisions:
                    revisions.append(value)
                return f"<revision {revisions.index(value) + 1}>"
            return value

        def key_is_revision(value: str) -> bool:
            return value.startswith("initial:") or (len(value) == 36 and value.count("-") == 4)

        def update(operation: str, revision: str) -> Any:
            answer = run.client.response(
                run.client.request(
                    "thread/readState/update",
                    {
                        "threadId": thread_id,
                        "operation": {"type": operation},
                        "expectedRevision": revision,
                    },
                )
            )
            answer.pop("id", None)
            if "error" in answer:
                answer["error"].pop("message", None)
            return answer

        seen: list[Any] = []
        changed = [
            m["params"]
            for m in (entry.message for entry in run.client.seen())
            if m.get("method") == "thread/readState/changed"
        ]
        seen.append(("changed after turns", named(changed)))
        state = run.client.call("thread/read", {"threadId": thread_id})["readState"]
        seen.append(("read", named(state)))
        seen.append(("list", named(run.client.call("thread/list", {})["readStates"])))
        seen.append(("stale", named(update("read", "not-a-revision"))))
        marked = update("read", state["revision"])
        seen.append(("mark read", named(marked)))
        seen.append(("stale unread", named(update("unread", state["revision"]))))
        revision = marked["result"]["readState"]["revision"]
        seen.append(("mark unread", named(update("unread", revision))))
        return seen


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_read_state_as_the_real_server_keeps_it(side: Side, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real")
    assert real[0] == (
        "changed after turns",
        [
            {
                "threadId": "<thread>",
                "readState": {
                    "firstUnread": {"type": "turn", "turnId": "<turn 1>"},
                    "revision": "<revision 1>",
                },
            },
            {
                "threadId": "<thread>",
                "readState": {
                    "firstUnread": {"type": "turn", "turnId": "<turn 1>"},
                    "revision": "<revision 2>",
                },
            },
        ],
    )
    assert _journey(side, tmp_path / side) == real
