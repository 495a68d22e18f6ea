"""`thread/list` narrowed by thread ids: the real `codex app-server` and ours, side by side.

Two threads with one turn each, then `thread/list` with `includedThreadIds`, with
`excludedThreadIds`, with both, and with an empty inclusion list. What each server returns is
compared by which of its own threads it lists, so the two sides' different ids do not matter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response

SIDES: tuple[Side, ...] = ("real", "ours", "ours-lsp")


def _listings(side: Side, tmp_path: Path) -> dict[str, list[str]]:
    with run_on(side, tmp_path) as run:
        ids = []
        for n, word in enumerate(("first", "second")):
            run.model.enqueue(text_response(f"answer {word}", response_id=f"resp_{n}"))
            thread_id = start_thread(run)
            run_turn(run, thread_id, f"{word} question")
            ids.append(thread_id)
        names = {thread_id: word for thread_id, word in zip(ids, ("first", "second"), strict=True)}

        def listed(**filters: Any) -> list[str]:
            result = run.client.call("thread/list", {"limit": 10, **filters})
            return sorted(names.get(t["id"], "other") for t in result["data"])

        return {
            "all": listed(),
            "included-first": listed(includedThreadIds=[ids[0]]),
            "excluded-first": listed(excludedThreadIds=[ids[0]]),
            "included-both-excluded-second": listed(
                includedThreadIds=ids, excludedThreadIds=[ids[1]]
            ),
            "included-none": listed(includedThreadIds=[]),
        }


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_list_filters_by_id_as_the_real_server_does(side: Side, tmp_path: Path) -> None:
    real = _listings("real", tmp_path / "real")
    ours = _listings(side, tmp_path / side)
    assert real == {
        "all": ["first", "second"],
        "included-first": ["first"],
        "excluded-first": ["second"],
        "included-both-excluded-second": ["first"],
        "included-none": [],
    }
    assert ours == real
