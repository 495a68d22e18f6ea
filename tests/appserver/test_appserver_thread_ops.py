"""Thread history and housekeeping through `codex-lsp app-server`: paging turns and items,
steering a running turn, compaction, injected items, revert, delete, metadata, loaded threads
and subscriptions."""

from __future__ import annotations

import json
from pathlib import Path

from codex_lsp.api.port import INVALID_REQUEST
from tests.support.appserver import app_server, make_home, text_input
from tests.support.scripted_builders import created, text_response


def _three_turns(client, scripted_model) -> str:
    for n in range(3):
        scripted_model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))
    thread = client.start_thread()
    for n in range(3):
        client.run_turn(thread["id"], f"question {n}")
    return thread["id"]


def _texts(request) -> str:
    return json.dumps(request.body["input"])


def test_turns_and_items_page_newest_and_oldest_first(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        tid = _three_turns(client, scripted_model)

        everything = client.result("thread/turns/list", {"threadId": tid})
        questions = [t["items"][0]["content"][0]["text"] for t in everything["data"]]
        assert questions == ["question 2", "question 1", "question 0"]
        assert everything["nextCursor"] is None and everything["backwardsCursor"]
        assert all(t["itemsView"] == "summary" for t in everything["data"])

        seen, cursor = [], None
        while True:
            page = client.result(
                "thread/turns/list",
                {"threadId": tid, "limit": 1, "sortDirection": "asc", "cursor": cursor},
            )
            seen += [t["id"] for t in page["data"]]
            cursor = page["nextCursor"]
            if cursor is None:
                break
        assert seen == [t["id"] for t in reversed(everything["data"])]

        # The backwards cursor of a page re-reads its first turn in the other direction.
        newest = client.result("thread/turns/list", {"threadId": tid, "limit": 1})
        back = client.result(
            "thread/turns/list",
            {"threadId": tid, "sortDirection": "asc", "cursor": newest["backwardsCursor"]},
        )
        assert [t["id"] for t in back["data"]] == [newest["data"][0]["id"]]

        bare = client.result("thread/turns/list", {"threadId": tid, "itemsView": "notLoaded"})
        assert all(t["items"] == [] and t["itemsView"] == "notLoaded" for t in bare["data"])

        first = client.result("thread/items/list", {"threadId": tid, "limit": 2})
        assert [(e["item"]["type"]) for e in first["data"]] == ["userMessage", "agentMessage"]
        assert first["data"][1]["item"]["text"] == "answer 0"
        second = client.result(
            "thread/items/list", {"threadId": tid, "limit": 2, "cursor": first["nextCursor"]}
        )
        assert second["data"][0]["item"]["content"][0]["text"] == "question 1"
        assert second["data"][0]["turnId"] == everything["data"][1]["id"]

        last_turn = everything["data"][0]["id"]
        answer_id = everything["data"][0]["items"][-1]["id"]
        before = client.result(
            "thread/items/list",
            {
                "threadId": tid,
                "turnId": last_turn,
                "sortDirection": "desc",
                "cursor": {"type": "item", "itemId": answer_id},
            },
        )
        assert [e["item"]["content"][0]["text"] for e in before["data"]] == ["question 2"]

        bad = client.call("thread/items/list", {"threadId": tid, "cursor": "garbage"})
        assert bad["error"]["code"] == INVALID_REQUEST
        assert bad["error"]["message"] == "invalid cursor: garbage"
        # A cursor nested past the JSON decoder's recursion is just as invalid.
        deep = client.call("thread/turns/list", {"threadId": tid, "cursor": "[" * 5000})
        assert deep["error"]["code"] == INVALID_REQUEST
        assert deep["error"]["message"].startswith("invalid cursor: [[[")
        unknown = client.call(
            "thread/turns/list", {"threadId": "0198f0e0-0000-7000-8000-000000000000"}
        )
        assert unknown["error"]["code"] == INVALID_REQUEST


def test_steering_adds_input_to_the_running_turn(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    # The first request hangs before any output; steering abandons it and asks again.
    scripted_model.enqueue([created("resp_slow"), {"stall_s": 20}])
    scripted_model.enqueue(text_response("I see both", response_id="resp_2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        turn = client.result(
            "turn/start", {"threadId": thread["id"], "input": [text_input("first")]}
        )["turn"]
        scripted_model.wait_for_requests(1, timeout=30)

        wrong = client.call(
            "turn/steer",
            {"threadId": thread["id"], "input": [text_input("x")], "expectedTurnId": "nope"},
        )
        assert wrong["error"]["code"] == INVALID_REQUEST
        assert wrong["error"]["message"] == (
            f"expected active turn id `nope` but found `{turn['id']}`"
        )
        steered = client.result(
            "turn/steer",
            {
                "threadId": thread["id"],
                "input": [text_input("also this")],
                "expectedTurnId": turn["id"],
            },
        )
        assert steered == {"turnId": turn["id"]}
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["id"] == turn["id"]
        assert done["params"]["turn"]["status"] == "completed"

        users = [
            m["params"]
            for m in client.notifications("item/completed", threadId=thread["id"])
            if m["params"]["item"]["type"] == "userMessage"
        ]
        assert [u["item"]["content"][0]["text"] for u in users] == ["first", "also this"]
        assert {u["turnId"] for u in users} == {turn["id"]}
        assert len(scripted_model.requests) == 2
        assert "also this" in _texts(scripted_model.requests[1])
        assert not client.notifications("turn/started", threadId=thread["id"])[1:]

        late = client.call(
            "turn/steer",
            {"threadId": thread["id"], "input": [text_input("late")], "expectedTurnId": turn["id"]},
        )
        assert late["error"] == {"code": INVALID_REQUEST, "message": "no active turn to steer"}

        turns = client.result("thread/turns/list", {"threadId": thread["id"], "itemsView": "full"})
        texts = [
            i["content"][0]["text"] for i in turns["data"][0]["items"] if i["type"] == "userMessage"
        ]
        assert texts == ["first", "also this"]


def test_compaction_runs_as_a_turn_and_the_next_request_carries_the_summary(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("hello", response_id="resp_1"))
    scripted_model.enqueue(text_response("SUMMARY OF WORK", response_id="resp_c"))
    scripted_model.enqueue(text_response("after", response_id="resp_2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.run_turn(thread["id"], "say hello")
        assert client.result("thread/compact/start", {"threadId": thread["id"]}) == {}
        started = client.wait_method("turn/started", threadId=thread["id"])
        item = client.wait(
            lambda m: (
                m.get("method") == "item/completed"
                and m["params"]["item"]["type"] == "contextCompaction"
            )
        )
        compacted = client.wait_method("thread/compacted", threadId=thread["id"])
        assert compacted["params"]["turnId"] == started["params"]["turn"]["id"]
        assert item["params"]["turnId"] == started["params"]["turn"]["id"]
        client.wait_method("turn/completed", threadId=thread["id"])
        client.run_turn(thread["id"], "go on")
        assert "SUMMARY OF WORK" in _texts(scripted_model.requests[2])


def test_injected_items_reach_the_model_and_bad_ones_are_refused(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("ok", response_id="resp_1"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        note = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "INJECTED NOTE"}],
        }
        assert (
            client.result("thread/inject_items", {"threadId": thread["id"], "items": [note]}) == {}
        )
        bad = client.call(
            "thread/inject_items", {"threadId": thread["id"], "items": [{"bogus": 1}]}
        )
        assert bad["error"]["code"] == INVALID_REQUEST
        assert "items[0]" in bad["error"]["message"] and "type" in bad["error"]["message"]
        client.run_turn(thread["id"], "next")
        assert "INJECTED NOTE" in _texts(scripted_model.requests[0])
        assert "bogus" not in _texts(scripted_model.requests[0])


def test_revert_drops_later_turns_from_history_but_not_files(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "kept.txt").write_text("edited by turn 2\n")
    with app_server(home, ws) as client:
        tid = _three_turns(client, scripted_model)
        turns = client.result("thread/turns/list", {"threadId": tid, "sortDirection": "asc"})
        second = turns["data"][1]["id"]
        reverted = client.result("thread/revert", {"threadId": tid, "beforeTurnId": second})
        assert reverted["thread"]["id"] == tid and reverted["thread"]["turns"] == []
        client.wait_method("thread/reverted", threadId=tid)
        left = client.result("thread/turns/list", {"threadId": tid})
        assert [t["id"] for t in left["data"]] == [turns["data"][0]["id"]]
        back = client.result(
            "thread/turns/list",
            {"threadId": tid, "sortDirection": "desc", "cursor": reverted["turnsBackwardsCursor"]},
        )
        assert [t["id"] for t in back["data"]] == [turns["data"][0]["id"]]

        scripted_model.enqueue(text_response("fresh", response_id="resp_x"))
        client.run_turn(tid, "question again")
        sent = _texts(scripted_model.requests[-1])
        assert "question 0" in sent and "answer 0" in sent
        assert "question 1" not in sent and "answer 2" not in sent
        assert (ws / "kept.txt").read_text() == "edited by turn 2\n"
        missing = client.call("thread/revert", {"threadId": tid, "beforeTurnId": second})
        assert missing["error"]["code"] == INVALID_REQUEST

    # A thread no server has loaded reverts on disk, and a resume continues from there.
    with app_server(home, ws) as client:
        turns = client.result("thread/turns/list", {"threadId": tid, "sortDirection": "asc"})
        assert len(turns["data"]) == 2
        client.result("thread/revert", {"threadId": tid, "beforeTurnId": turns["data"][1]["id"]})
        client.result("thread/resume", {"threadId": tid})
        scripted_model.enqueue(text_response("resumed", response_id="resp_y"))
        client.run_turn(tid, "after restart")
        sent = _texts(scripted_model.requests[-1])
        assert "question 0" in sent and "question again" not in sent


def test_delete_removes_the_rollout_of_loaded_and_archived_threads(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("a", response_id="resp_a"))
    scripted_model.enqueue(text_response("b", response_id="resp_b"))
    with app_server(home, ws) as client:
        a = client.start_thread()
        client.run_turn(a["id"], "first")
        b = client.start_thread()
        client.run_turn(b["id"], "second")
        path_a = Path(client.result("thread/read", {"threadId": a["id"]})["thread"]["path"])

        assert client.result("thread/delete", {"threadId": a["id"]}) == {}
        client.wait_method("thread/deleted", threadId=a["id"])
        assert client.first("thread/status/changed", threadId=a["id"], status={"type": "notLoaded"})
        assert not path_a.exists()
        assert a["id"] not in client.result("thread/loaded/list", {})["data"]

        client.result("thread/archive", {"threadId": b["id"]})
        assert client.result("thread/delete", {"threadId": b["id"]}) == {}
        client.wait_method("thread/deleted", threadId=b["id"])
        assert client.result("thread/list", {})["data"] == []
        assert client.result("thread/list", {"archived": True})["data"] == []

        again = client.call("thread/delete", {"threadId": a["id"]})
        assert again["error"] == {
            "code": INVALID_REQUEST,
            "message": f"no rollout found for thread id {a['id']}",
        }


def test_metadata_update_patches_git_info_and_it_persists(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("a", response_id="resp_a"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.run_turn(thread["id"], "hi")
        updated = client.result(
            "thread/metadata/update", {"threadId": thread["id"], "gitInfo": {"branch": "feat"}}
        )["thread"]
        assert updated["gitInfo"]["branch"] == "feat"
        client.result(
            "thread/metadata/update", {"threadId": thread["id"], "gitInfo": {"sha": "abc123"}}
        )
        listed = client.result("thread/list", {})["data"][0]
        assert listed["gitInfo"]["branch"] == "feat" and listed["gitInfo"]["sha"] == "abc123"
        empty = client.call(
            "thread/metadata/update", {"threadId": thread["id"], "gitInfo": {"branch": " "}}
        )
        assert empty["error"]["message"].startswith("Invalid params: gitInfo.branch")
    with app_server(home, ws) as client:
        read = client.result("thread/read", {"threadId": thread["id"]})["thread"]
        assert read["gitInfo"]["sha"] == "abc123"
        cleared = client.result(
            "thread/metadata/update",
            {"threadId": thread["id"], "gitInfo": {"branch": None, "sha": None}},
        )["thread"]
        assert cleared.get("gitInfo") is None


def test_unsubscribed_idle_thread_is_closed_and_unloaded(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    env = {"CODEX_LSP_THREAD_IDLE_UNLOAD_S": "0"}
    with app_server(home, ws, env=env) as client:
        thread = client.start_thread()
        assert client.result("thread/loaded/list", {}) == {
            "data": [thread["id"]],
            "nextCursor": None,
        }
        status = client.result("thread/unsubscribe", {"threadId": thread["id"]})
        assert status == {"status": "unsubscribed"}
        client.wait_method("thread/closed", threadId=thread["id"])
        assert client.result("thread/loaded/list", {})["data"] == []
        gone = client.result("thread/unsubscribe", {"threadId": thread["id"]})
        assert gone == {"status": "notLoaded"}


def test_a_second_unsubscribe_says_not_subscribed_and_resume_resubscribes(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("heard", response_id="resp_1"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.result("thread/unsubscribe", {"threadId": thread["id"]})
        again = client.result("thread/unsubscribe", {"threadId": thread["id"]})
        assert again == {"status": "notSubscribed"}
        client.result("thread/resume", {"threadId": thread["id"]})
        client.run_turn(thread["id"], "are you there")


def test_changed_turn_settings_are_announced(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("one", response_id="resp_1"))
    scripted_model.enqueue(text_response("two", response_id="resp_2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.run_turn(thread["id"], "same settings")
        assert client.notifications("thread/settings/updated") == []
        client.run_turn(thread["id"], "other model", model="gpt-5.4-mini")
        updated = client.first("thread/settings/updated", threadId=thread["id"])
        settings = updated["params"]["threadSettings"]
        assert settings["model"] == "gpt-5.4-mini"
        assert settings["collaborationMode"]["settings"]["model"] == "gpt-5.4-mini"
        # Announced before the turn that runs with them begins.
        order = [m.get("method") for m in client.received]
        second_turn = [i for i, method in enumerate(order) if method == "turn/started"][1]
        assert order.index("thread/settings/updated") < second_turn


def test_thread_settings_update_changes_the_next_turn_without_starting_one(
    scripted_model, tmp_path
):
    """What the ACP adapter does for a session's model and mode picker: settings between turns."""
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("ran on the new model", response_id="resp_1"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        update = {
            "threadId": thread["id"],
            "model": "gpt-5.4-mini",
            "approvalPolicy": "never",
            "sandboxPolicy": {"type": "readOnly"},
        }
        assert client.result("thread/settings/update", update) == {}
        announced = client.first("thread/settings/updated", threadId=thread["id"])
        settings = announced["params"]["threadSettings"]
        assert (settings["model"], settings["approvalPolicy"]) == ("gpt-5.4-mini", "never")
        assert settings["sandboxPolicy"]["type"] == "readOnly"
        assert client.notifications("turn/started") == []
        client.run_turn(thread["id"], "which model")
        assert scripted_model.requests[-1].body["model"] == "gpt-5.4-mini"
        # The same settings again change nothing, so nothing is announced.
        before = len(client.notifications("thread/settings/updated"))
        client.result("thread/settings/update", update)
        client.result("thread/read", {"threadId": thread["id"]})
        assert len(client.notifications("thread/settings/updated")) == before

        answer = client.call(
            "thread/settings/update", {"threadId": thread["id"], "permissions": "workspace"}
        )
        assert answer["error"]["code"] == -32602
        assert "named permission profiles" in answer["error"]["message"]
