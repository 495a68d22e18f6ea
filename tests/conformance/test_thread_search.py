"""`thread/search` and `thread/search/stream` side by side with the real `codex app-server`:
two stored threads, searched for a word one of them holds (in another case), for a word neither
holds, and with an empty term. Threads are compared by their previews and snippets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response


def _searches(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        for n, text in enumerate(("find the Zebra please", "count the apples")):
            run.model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))
            run_turn(run, start_thread(run), text)
        found: dict[str, Any] = {}
        for method in ("thread/search", "thread/search/stream"):
            for term in ("zebra", "giraffe"):
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
    assert real["thread/search/stream giraffe"] == ([], None)
    assert _searches(side, tmp_path / side) == real
