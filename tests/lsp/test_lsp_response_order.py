"""Over LSP, a `codex/*` response arrives before the notifications that follow it.

A client learns a thread's or a turn's id from the response; `codex/thread/started` or a
review's `codex/turn/started` arriving first would name something it has not heard of yet.
The order is the one of the real app-server transcripts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.engine import make_git_repo
from tests.support.lsp_client import EditorClient, EditorSession
from tests.support.scripted_builders import text_response


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    repo = make_git_repo(tmp_path / "ws", {"app.py": "x = 1\n"})
    (repo / "app.py").write_text("x = 2\n")
    return repo


def position(client: EditorClient, kind: str, match=lambda p: True) -> int:
    arrivals = client.protocol.arrivals
    return next(i for i, (name, params) in enumerate(arrivals) if name == kind and match(params))


def response_position(client: EditorClient, result: dict) -> int:
    return next(i for i, (name, params) in enumerate(client.protocol.arrivals) if params is result)


async def test_thread_start_fork_and_review_answer_before_their_notifications(
    home, ws, scripted_model
):
    scripted_model.enqueue(text_response("Noted."))
    scripted_model.enqueue(text_response('{"findings": [], "overall_correctness": "ok"}'))
    async with EditorSession(home, ws) as client:
        started = await client.codex("thread/start", {"cwd": str(ws)})
        thread_id = started["thread"]["id"]
        await client.wait_for("thread/started")
        await client.run_turn(thread_id, "Remember PARROT.")

        forked = await client.codex("thread/fork", {"threadId": thread_id})
        fork_id = forked["thread"]["id"]
        await client.wait_for("thread/started", lambda p: p["thread"]["id"] == fork_id)

        review = await client.codex(
            "review/start", {"threadId": thread_id, "target": {"type": "uncommittedChanges"}}
        )
        review_turn = review["turn"]["id"]
        await client.turn_completed(thread_id, review_turn)

    announced = position(client, "codex/thread/started", lambda p: p["thread"]["id"] == thread_id)
    assert response_position(client, started) < announced
    fork_announced = position(
        client, "codex/thread/started", lambda p: p["thread"]["id"] == fork_id
    )
    assert response_position(client, forked) < fork_announced
    review_started = position(
        client, "codex/turn/started", lambda p: p["turn"]["id"] == review_turn
    )
    assert response_position(client, review) < review_started
