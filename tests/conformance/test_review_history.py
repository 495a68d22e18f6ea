"""What an inline review leaves in the thread, side by side with the real `codex app-server`.

0.171's `review/start` has no `appendToOriginalThread`: an inline review's results always join
the thread (whatever its README says of a default), and the next turn's model request carries
them; the real server ignores the field when a client sends it. codex-lsp keeps the field as
its extension (absent means true, as the real server behaves): `false` keeps a review out of
the thread, which the real server cannot do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.scenarios import review_answer
from tests.conformance.servers import Side, run_on
from tests.conformance.steps import committed_repo, run_turn, start_thread
from tests.support.scripted_builders import text_response


def _next_turn_sees_the_review(side: Side, tmp_path: Path, **extra: object) -> bool:
    with run_on(side, tmp_path) as run:
        committed_repo(run.ws, {"calc.py": "def add(a, b):\n    return a + b\n"})
        (run.ws / "calc.py").write_text("def ratio(a, b):\n    return a / b\n")
        answer = review_answer(str(run.ws / "calc.py"))
        run.model.enqueue(text_response(json.dumps(answer)))
        run.model.enqueue(text_response("Noted.", response_id="resp_after"))
        thread_id = start_thread(run)
        params = {"threadId": thread_id, "target": {"type": "uncommittedChanges"}, **extra}
        run.client.call("review/start", params)
        run.client.wait_method("turn/completed", threadId=thread_id)
        run_turn(run, thread_id, "What next?")
        follow_up = json.dumps(run.model.requests[-1].body["input"])
        return "Division by zero" in follow_up


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_an_inline_review_joins_the_thread_as_the_real_server_does(
    side: Side, tmp_path: Path
) -> None:
    real = _next_turn_sees_the_review("real", tmp_path / "real")
    assert real is True
    assert _next_turn_sees_the_review(side, tmp_path / side) == real


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_append_false_is_an_extension_the_real_server_ignores(side: Side, tmp_path: Path) -> None:
    assert _next_turn_sees_the_review("real", tmp_path / "real", appendToOriginalThread=False)
    assert not _next_turn_sees_the_review(side, tmp_path / side, appendToOriginalThread=False)
