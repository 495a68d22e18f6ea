"""`thread/search` and `thread/search/stream` side by side with the real `codex app-server`:
two stored threads, searched for words one of them holds (in another case, in a later message,
in the agent's answer), for a word neither holds, and with an empty term. Threads are compared by
their previews and snippets. Then pages of matches among threads most of which do not match:
each page holds `limit` matches (fewer only on the last), in every order, and its cursors lead
on and back without skipping or repeating one."""

from __future__ import annotations

import time
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
            # 64 KiB of UTF-8 once trimmed, and one byte more.
            for term in ("  " + "a" * 65536 + "  ", "é" * 32768 + "a"):
                answer = run.client.response(run.client.request(method, {"searchTerm": term}))
                found[f"{method} {len(term.strip().encode())} bytes"] = (
                    answer.get("error") or (answer["result"]["data"])
                )
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
    assert real["thread/search/stream 65536 bytes"] == []
    assert real["thread/search/stream 65537 bytes"] == {
        "code": -32602,
        "message": "thread/search/stream searchTerm exceeds 65536 UTF-8 bytes",
    }
    assert real["thread/search 65537 bytes"] == []
    assert _searches(side, tmp_path / side) == real


_THREADS = 30
_TRIES = 20


def _streamed(side: Side, tmp_path: Path) -> dict[str, Any]:
    """What a client sees of partial batches and of cancellations, with many matching threads."""
    with run_on(side, tmp_path, experimental_api=True) as run:
        client = run.client
        for n in range(_THREADS):
            run.model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))
            run_turn(run, start_thread(run), f"question {n} about the zebra")
        seen: dict[str, Any] = {}

        def searched(method: str, term: str) -> dict[str, Any]:
            request_id = client.request(method, {"searchTerm": term, "limit": 50})
            answer = client.response(request_id)
            found = {(r["thread"]["id"], r["snippet"]) for r in answer["result"]["data"]}
            order = [entry.message for entry in client.seen() if entry.direction == "s2c"]
            end = next(i for i, m in enumerate(order) if m.get("id") == request_id)
            partials = [
                (i, m["params"])
                for i, m in enumerate(order)
                if m.get("method") == "thread/search/partial"
                and m["params"]["requestId"] == request_id
            ]
            rows = [(r["thread"]["id"], r["snippet"]) for _, p in partials for r in p["data"]]
            return {
                "found": len(found),
                "some partials": bool(partials),
                "partials before the response": all(i < end for i, _ in partials),
                "partials hold requestId and data": all(
                    sorted(p) == ["data", "requestId"] and p["data"] for _, p in partials
                ),
                "partial rows are matches": set(rows) <= found,
                "partial rows unique": len(rows) == len(set(rows)),
            }

        # The real server sends partial batches only when its scan outruns its index, which
        # some searches do and some do not: it is asked again until one does.
        for _ in range(_TRIES):
            seen["thread/search/stream zebra"] = searched("thread/search/stream", "zebra")
            if seen["thread/search/stream zebra"]["some partials"]:
                break
        seen["thread/search zebra"] = searched("thread/search", "zebra")
        seen["thread/search/stream giraffe"] = searched("thread/search/stream", "giraffe")
        for method, cancel in (
            ("thread/search/stream", "thread/search/stream/cancel"),
            ("thread/search", "thread/search/cancel"),
            ("thread/search/stream", "thread/search/cancel"),
            ("thread/search", "thread/search/stream/cancel"),
        ):
            request_id = client.request(method, {"searchTerm": "zebra", "limit": 50})
            cancelled = client.request(cancel, {"requestId": request_id})
            answer = client.response(request_id)
            outcome = answer.get("error") or len(answer["result"]["data"])
            seen[f"{cancel} of {method}"] = (outcome, client.response(cancelled)["result"])
        for request_id in (9999, "nine"):
            answer = client.response(
                client.request("thread/search/cancel", {"requestId": request_id})
            )
            seen[f"cancel of unknown {request_id!r}"] = answer["result"]
        return seen


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_search_streams_partials_and_cancels_as_the_real_server(
    side: Side, tmp_path: Path
) -> None:
    real = _streamed("real", tmp_path / "real")
    assert real["thread/search/stream zebra"] == {
        "found": _THREADS,
        "some partials": True,
        "partials before the response": True,
        "partials hold requestId and data": True,
        "partial rows are matches": True,
        "partial rows unique": True,
    }
    assert real["thread/search zebra"]["some partials"] is False
    assert real["thread/search/stream/cancel of thread/search/stream"] == (
        {"code": -32600, "message": "thread search cancelled"},
        {},
    )
    assert real["thread/search/cancel of thread/search/stream"] == (_THREADS, {})
    assert _streamed(side, tmp_path / side) == real


_SPARSE = 12
_OPPOSITE = {"asc": "desc", "desc": "asc"}
_ORDERS = [
    (key, direction) for key in ("created_at", "updated_at") for direction in ("desc", "asc")
]


def _sparse_pages(side: Side, tmp_path: Path) -> dict[str, Any]:
    """Every third of a dozen threads matches; each search order walked two matches a page,
    with what each page's backwards cursor lists both ways."""
    with run_on(side, tmp_path, experimental_api=True) as run:
        client = run.client
        names: dict[str, str] = {}
        for n in range(_SPARSE):
            run.model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))
            thread_id = start_thread(run)
            run_turn(run, thread_id, f"question {n} about the {'zebra' if n % 3 == 0 else 'horse'}")
            names[thread_id] = f"T{n}"
            # The reference orders threads, and places its cursors, by the second.
            time.sleep(1.1)

        def shown(method: str, params: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
            result = client.call(method, {"searchTerm": "zebra", **params})
            return [names[hit["thread"]["id"]] for hit in result["data"]], result

        walked: dict[str, Any] = {}
        for method in ("thread/search", "thread/search/stream"):
            for key, direction in _ORDERS:
                by = {"sortKey": key, "sortDirection": direction}
                pages: list[Any] = []
                cursor = None
                while len(pages) < _SPARSE:
                    page, result = shown(
                        method, {**by, "limit": 2, **({"cursor": cursor} if cursor else {})}
                    )
                    backwards = result["backwardsCursor"]
                    back = backwards and (
                        shown(
                            method,
                            {**by, "sortDirection": _OPPOSITE[direction], "cursor": backwards},
                        )[0],
                        shown(method, {**by, "cursor": backwards})[0],
                    )
                    cursor = result["nextCursor"]
                    pages.append((page, cursor is not None, back))
                    if cursor is None:
                        break
                walked[f"{method} {key} {direction}"] = pages
                walked[f"{method} {key} {direction}, whole"] = shown(method, by)[0]
        return walked


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_search_pages_hold_limit_matches_as_the_real_server(
    side: Side, tmp_path: Path
) -> None:
    real = _sparse_pages("real", tmp_path / "real")
    newest = ["T9", "T6", "T3", "T0"]
    assert real["thread/search created_at desc"] == [
        (["T9", "T6"], True, (["T9"], ["T6", "T3", "T0"])),
        (["T3", "T0"], False, (["T3", "T6", "T9"], ["T0"])),
    ]
    # The last match is followed by threads that do not match: no next page is offered.
    assert real["thread/search/stream updated_at asc"] == [
        (["T0", "T3"], True, (["T0"], ["T3", "T6", "T9"])),
        (["T6", "T9"], False, (["T6", "T3", "T0"], ["T9"])),
    ]
    # Oldest first by creation the reference's next page begins again at the last match;
    # codex-lsp's begins right after it, as in every other order.
    for method in ("thread/search", "thread/search/stream"):
        assert real[f"{method} created_at asc"][1][0] == ["T3", "T6"]
        assert real[f"{method} created_at asc, whole"] == newest[::-1]
    ours = _sparse_pages(side, tmp_path / side)
    for method in ("thread/search", "thread/search/stream"):
        for key, direction in _ORDERS:
            whole = newest if direction == "desc" else newest[::-1]
            pages = ours[f"{method} {key} {direction}"]
            assert [row for page, _, _ in pages for row in page] == whole
            assert [len(page) for page, _, _ in pages] == [2, 2]
        mine = ours[f"{method} created_at asc"]
        assert mine[0] == real[f"{method} created_at asc"][0]
        assert mine[1] == (["T6", "T9"], False, (["T3", "T0"], ["T6", "T9"]))
        del ours[f"{method} created_at asc"], real[f"{method} created_at asc"]
    assert ours == real
