"""Paging through `thread/list` and `thread/search` both ways, side by side with the real
`codex app-server` 0.171: oldest first (`sortDirection: "asc"`) by creation and by update, with
and without a section filter, and `backwardsCursor`: given when a page holds a thread, and sent
as `cursor` with the opposite direction it lists the threads of the earlier pages (with the
page's first thread again or not, which the reference decides by order, direction and section
filter), in every order, `section_position` and search included; sent with the same direction,
it lists the rest. Threads are a second apart, as the reference orders and anchors its cursors
by timestamp; they are compared by which of a side's threads they are. Left out: a search
oldest first by creation, whose next cursor the reference does not follow (each page repeats
the first).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response

_THREADS = 4
_OPPOSITE = {"asc": "desc", "desc": "asc"}


def _paging(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        client = run.client
        ids = []
        for n in range(_THREADS):
            run.model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))
            thread_id = start_thread(run)
            run_turn(run, thread_id, f"question {n}")
            ids.append(thread_id)
            time.sleep(1.1)
        names = {thread_id: f"T{n}" for n, thread_id in enumerate(ids)}

        def called(method: str, params: dict[str, Any]) -> Any:
            answer = client.response(client.request(method, params))
            if "error" in answer:
                return ("error", answer["error"]["code"], answer["error"]["message"])
            return answer["result"]

        def shown(result: Any) -> Any:
            if isinstance(result, tuple):
                return result
            rows = [row.get("thread", row) for row in result["data"]]
            return [names.get(row["id"], "other") for row in rows]

        def empty(result: Any) -> Any:
            """An empty page's threads and backwards cursor (or the error instead)."""
            return (
                result if isinstance(result, tuple) else (result["data"], result["backwardsCursor"])
            )

        def walk(method: str, **params: Any) -> list[Any]:
            """Each page, one thread a page, with what its cursors lead to."""
            walked: list[Any] = []
            cursor = None
            while len(walked) < 2 * _THREADS:
                more = {"cursor": cursor} if cursor else {}
                result = called(method, {**params, "limit": 1, **more})
                if isinstance(result, tuple):
                    return [*walked, result]
                backwards = result.get("backwardsCursor")
                back: Any = None
                if backwards is not None:
                    direction = _OPPOSITE[params.get("sortDirection") or "desc"]
                    reversed_params = {**params, "sortDirection": direction, "limit": 10}
                    back = shown(called(method, {**reversed_params, "cursor": backwards}))
                    same = called(method, {**params, "limit": 10, "cursor": backwards})
                    back = (back, shown(same))
                cursor = result.get("nextCursor")
                walked.append((shown(result), cursor is not None, back))
                if cursor is None:
                    break
            return walked

        work = client.call("threadSection/create", {"name": "Work"})["section"]["id"]
        for thread in (2, 0, 3):
            client.call("thread/section/move", {"threadId": ids[thread], "sectionId": work})
        search = {"searchTerm": "question"}
        found: dict[str, Any] = {}
        for key in ("created_at", "updated_at"):
            for direction in ("desc", "asc"):
                by = {"sortKey": key, "sortDirection": direction}
                found[f"{key} {direction}"] = walk("thread/list", **by)
                found[f"{key} {direction}, whole"] = shown(called("thread/list", by))
                found[f"{key} {direction} in Work"] = walk("thread/list", sectionId=work, **by)
                found[f"{key} {direction} in none"] = walk("thread/list", sectionId=None, **by)
                if (key, direction) != ("created_at", "asc"):
                    found[f"search {key} {direction}"] = walk("thread/search", **search, **by)
        found["default direction"] = walk("thread/list")
        found["search default direction"] = walk("thread/search", **search)
        for direction in ("asc", "desc"):
            by_position = {"sortKey": "section_position", "sortDirection": direction}
            found[f"Work by position {direction}"] = walk(
                "thread/list", sectionId=work, **by_position
            )
        for params in (
            {"searchTerm": "nothing like it"},
            {"sectionId": "00000000-0000-0000-0000-000000000000"},
            {"archived": True, "sortDirection": "asc"},
        ):
            found[f"empty {sorted(params)}"] = empty(called("thread/list", params))
        giraffe = {"searchTerm": "giraffe", "sortDirection": "asc"}
        found["empty search"] = empty(called("thread/search", giraffe))
        return found


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_list_pages_both_ways_as_the_real_server(side: Side, tmp_path: Path) -> None:
    real = _paging("real", tmp_path / "real")
    newest = ["T3", "T2", "T1", "T0"]
    assert real["created_at asc, whole"] == newest[::-1]
    assert real["updated_at asc, whole"] == newest[::-1]
    assert real["created_at desc"][2] == (["T1"], True, (["T2", "T3"], ["T1", "T0"]))
    assert real["created_at asc"][2] == (["T2"], True, (["T2", "T1", "T0"], ["T3"]))
    assert real["search created_at desc"][1][2][0] == ["T2", "T3"]
    assert real["Work by position asc"][1][2][0] == ["T0", "T2"]
    assert real["empty ['searchTerm']"] == ([], None)
    assert _paging(side, tmp_path / side) == real
