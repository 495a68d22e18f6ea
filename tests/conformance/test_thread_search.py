"""`thread/search` and `thread/search/stream` side by side with the real `codex app-server`:
two stored threads, searched for words one of them holds (in another case, in a later message,
in the agent's answer), for a word neither holds, and with an empty term. Threads are compared by
their previews and snippets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response


def _searches(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        run.model.enqueue(text_response("the quokka answer", response_id="resp_0"))
        run.model.enqueue(text_response("second answer", response_id="resp_1"))
        run.model.enqueue(text_response("apples counted", response_id="resp_2"))
        first = start_thread(run)
        run_turn(run, first, "find the Zebra please")
        run_turn(run, first, "now the okapi")
        run_turn(run, start_thread(run), "count the apples")
        found: dict[str, Any] = {}
        for method in ("thread/search", "thread/search/stream"):
            for term in ("zebra", "OKAPI", "quokka", "giraffe"):
                result = run.client.call(method, {"searchTerm": term, "limit": 10})
                found[f"{method} {term}"] = (
                    [(hit["thread"]["preview"], hit["snippet"]) for hit in result["data"]],
                    result.get("nextCursor"),
                )
            answer = run.client.response(run.client.request(method, {"searchTerm": "  "}))
            found[f"{method} blank"] = "error" in answer
        return found


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_search_as_the_real_server_has_it(side: Side, tmp_path: Path) -> None:
    real = _searches("real", tmp_path / "real")
    assert real["thread/search zebra"] == (
        [("find the Zebra please", "find the Zebra please")],
        None,
    )
    assert real["thread/search OKAPI"] == ([("find the Zebra please", "now the okapi")], None)
    assert real["thread/search/stream quokka"] == (
        [("find the Zebra please", "the quokka answer")],
        None,
    )
    assert real["thread/search/stream giraffe"] == ([], None)
    assert _searches(side, tmp_path / side) == real
