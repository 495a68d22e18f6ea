"""The thread family side by side with the real `codex app-server` 0.171.0 on the same scripted
model: paging a thread's turns and items, the loaded list, metadata, unsubscribing, renaming,
archiving and deleting, as a client sees them (ids, cursors' contents and times aside)."""

from __future__ import annotations

import itertools
from typing import Any

from tests.exec.peer import Server, Side, session
from tests.support.scripted_builders import text_response
from tests.support.scripted_model import ScriptedModelServer

SIDES: tuple[Side, Side] = ("real", "ours")
QUESTIONS = ("question 0", "question 1", "question 2")


def _texts(turn: dict[str, Any]) -> list[str]:
    """A turn as the words in it: the user's, then the answer."""
    words = []
    for item in turn["items"]:
        if item["type"] == "userMessage":
            words += [part["text"] for part in item["content"] if part["type"] == "text"]
        elif item["type"] == "agentMessage":
            words.append(item["text"])
    return words


def _turn_page(server: Server, params: dict[str, Any]) -> dict[str, Any]:
    page = server.result("thread/turns/list", params)
    return {
        "turns": [_texts(turn) for turn in page["data"]],
        "more": page.get("nextCursor") is not None,
        "back": page.get("backwardsCursor") is not None,
        "cursor": page.get("nextCursor"),
    }


def _item_page(server: Server, params: dict[str, Any], turn_ids: list[str]) -> dict[str, Any]:
    page = server.result("thread/items/list", params)
    return {
        # Which turn (by position) each item is of, and what kind it is.
        "items": [(turn_ids.index(e["turnId"]), e["item"]["type"]) for e in page["data"]],
        "more": page.get("nextCursor") is not None,
        "back": page.get("backwardsCursor") is not None,
    }


def _error_code(answer: dict[str, Any]) -> int | None:
    return answer["error"]["code"] if "error" in answer else None


def _thread_family(side: Side) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with ScriptedModelServer() as model_server:
        for n in range(len(QUESTIONS)):
            model_server.enqueue(text_response(f"answer {n}"))
        with session(side, model_server.base_url) as (home, server):
            thread_id = server.start_thread(cwd=str(home / "ws"))
            for question in QUESTIONS:
                server.run_turn(thread_id, question)
            by_thread = {"threadId": thread_id}

            newest = _turn_page(server, {**by_thread, "limit": 2})
            seen["newest two"] = {k: v for k, v in newest.items() if k != "cursor"}
            rest = _turn_page(server, {**by_thread, "cursor": newest["cursor"]})
            seen["the rest"] = {k: v for k, v in rest.items() if k != "cursor"}
            oldest = _turn_page(server, {**by_thread, "limit": 2, "sortDirection": "asc"})
            seen["oldest two"] = {k: v for k, v in oldest.items() if k != "cursor"}
            seen["limit 0"] = len(_turn_page(server, {**by_thread, "limit": 0})["turns"])
            bad = server.call("thread/turns/list", {**by_thread, "cursor": "garbage"})
            seen["bad cursor"] = bad.get("error")

            everything = server.result("thread/turns/list", {**by_thread, "sortDirection": "asc"})
            turn_ids = [turn["id"] for turn in everything["data"]]
            seen["first items"] = _item_page(server, {**by_thread, "limit": 3}, turn_ids)
            seen["last items"] = _item_page(
                server, {**by_thread, "limit": 2, "sortDirection": "desc"}, turn_ids
            )

            seen["items limit 0"] = _item_page(server, {**by_thread, "limit": 0}, turn_ids)
            loaded = server.result("thread/loaded/list", {})
            seen["loaded"] = loaded["data"] == [thread_id]
            updated = server.result(
                "thread/metadata/update", {**by_thread, "gitInfo": {"branch": "topic"}}
            )
            seen["git branch"] = updated["thread"]["gitInfo"]["branch"]

            start = len(server.received)
            seen["rename"] = server.result("thread/name/set", {**by_thread, "name": "Renamed"})
            seen["archive"] = server.result("thread/archive", by_thread)
            seen["archived turns"] = len(server.result("thread/turns/list", by_thread)["data"])
            back = server.result("thread/unarchive", by_thread)["thread"]
            seen["unarchived"] = (back["name"], back["status"], back["preview"])
            seen["unsubscribe"] = [
                server.result("thread/unsubscribe", by_thread)["status"] for _ in range(2)
            ]
            seen["delete"] = server.result("thread/delete", by_thread)
            gone = server.call("thread/turns/list", by_thread)
            seen["turns of a deleted thread"] = _error_code(gone)
            seen["loaded after delete"] = server.result("thread/loaded/list", {})["data"]
            sent = [
                (m["method"], sorted(m["params"]))
                for m in server.received[start:]
                if m.get("method", "").startswith("thread/") and "id" not in m
            ]
            # A status repeated back to back says nothing new, and how many times a thread
            # being unloaded reports it depends on when its session's last events land.
            seen["notifications"] = [kind for kind, _ in itertools.groupby(sent)]
    return seen


def test_the_thread_family_answers_alike() -> None:
    real, ours = (_thread_family(side) for side in SIDES)
    assert real["newest two"]["turns"] == [["question 2", "answer 2"], ["question 1", "answer 1"]]
    for key in real:
        assert ours[key] == real[key], key
