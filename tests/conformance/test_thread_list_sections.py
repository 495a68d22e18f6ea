"""`thread/list` by section, side by side with the real `codex app-server` 0.171: the
`sectionId` filter (a section, the built-in "Pinned", `null` for the threads in none, an empty or
unknown section), the `section_position` order both ways and in pages, with other filters, after
an archive and after the section is deleted, and the errors: `section_position` without a
section id, and a cursor of the other order. Threads are compared by which of a side's own
threads they are, so the two sides' ids and cursors do not matter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response


def _listings(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        client = run.client
        ids = []
        for n in range(6):
            run.model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))
            thread_id = start_thread(run)
            run_turn(run, thread_id, f"question {n}")
            ids.append(thread_id)
        names = {thread_id: f"T{n}" for n, thread_id in enumerate(ids)}
        pinned = client.call("threadSection/list", {})["data"][0]["id"]
        work = client.call("threadSection/create", {"name": "Work"})["section"]["id"]
        empty = client.call("threadSection/create", {"name": "Empty"})["section"]["id"]
        for thread, section, before in ((3, work, None), (1, work, None), (4, work, 1)):
            move = {"threadId": ids[thread], "sectionId": section}
            if before is not None:
                move["beforeThreadId"] = ids[before]
            client.call("thread/section/move", move)
        for thread in (0, 2):
            client.call("thread/section/move", {"threadId": ids[thread], "sectionId": pinned})

        def listed(**params: Any) -> Any:
            answer = client.response(client.request("thread/list", params))
            if "error" in answer:
                return ("error", answer["error"]["code"], answer["error"]["message"])
            result = answer["result"]
            shown = [
                (names.get(t["id"], "other"), (t.get("section") or {}).get("name"))
                for t in result["data"]
            ]
            return shown, result.get("nextCursor") is not None

        def pages(**params: Any) -> list[list[str]]:
            """Every page of a listing, one thread a page, by following its cursors."""
            walked: list[list[str]] = []
            cursor = None
            while len(walked) < 10:
                more = {"cursor": cursor} if cursor else {}
                result = client.call("thread/list", {**params, "limit": 1, **more})
                walked.append([names[t["id"]] for t in result["data"]])
                cursor = result.get("nextCursor")
                if cursor is None:
                    break
            return walked

        by_position = {"sectionId": work, "sortKey": "section_position"}
        found: dict[str, Any] = {
            "all": listed(),
            "work": listed(sectionId=work),
            "pinned": listed(sectionId=pinned),
            "in no section": listed(sectionId=None),
            "empty section": listed(sectionId=empty),
            "unknown section": listed(sectionId="00000000-0000-0000-0000-000000000000"),
            "blank section": listed(sectionId=""),
            "work by position": listed(**by_position),
            "work by position asc": listed(**by_position, sortDirection="asc"),
            "work by position desc": listed(**by_position, sortDirection="desc"),
            "pinned by position": listed(sectionId=pinned, sortKey="section_position"),
            "unknown by position": listed(sectionId="nope", sortKey="section_position"),
            "position without section": listed(sortKey="section_position"),
            "position in no section": listed(sectionId=None, sortKey="section_position"),
            "work by update": listed(sectionId=work, sortKey="updated_at"),
            "work excluding": listed(sectionId=work, excludedThreadIds=[ids[4]]),
            "work including": listed(sectionId=work, includedThreadIds=[ids[4], ids[0]]),
            "work by position, excluding": listed(**by_position, excludedThreadIds=[ids[4]]),
            "work searched": listed(sectionId=work, searchTerm="question 3"),
            "work archived": listed(sectionId=work, archived=True),
            "pages": pages(**by_position),
            "pages desc": pages(**by_position, sortDirection="desc"),
        }
        position_cursor = client.call("thread/list", {**by_position, "limit": 1})["nextCursor"]
        date_cursor = client.call("thread/list", {"limit": 1})["nextCursor"]
        found["position cursor by date"] = listed(sectionId=work, cursor=position_cursor)[:2]
        found["date cursor by position"] = listed(**by_position, cursor=date_cursor)[:2]
        client.call("thread/archive", {"threadId": ids[3]})
        found["work after archive"] = listed(**by_position)
        found["archived work"] = listed(**by_position, archived=True)
        client.call("threadSection/delete", {"sectionId": work})
        found["deleted section"] = listed(sectionId=work)
        return found


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_list_by_section_as_the_real_server_has_it(side: Side, tmp_path: Path) -> None:
    real = _listings("real", tmp_path / "real")
    work = [("T3", "Work"), ("T4", "Work"), ("T1", "Work")]
    assert real["work by position"] == (work, False)
    assert real["work by position desc"] == (work[::-1], False)
    assert real["in no section"] == ([("T5", None)], False)
    assert real["pinned by position"] == ([("T0", "Pinned"), ("T2", "Pinned")], False)
    assert real["pages"] == [["T3"], ["T4"], ["T1"]]
    assert real["position without section"] == (
        "error",
        -32600,
        "section-position sorting requires a section filter",
    )
    assert _listings(side, tmp_path / side) == real
