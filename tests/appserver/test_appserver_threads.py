"""Thread management through `codex-lsp app-server`: list, read, name, fork, archive, unarchive,
and resume in a new server process."""

from __future__ import annotations

import json

from codex_lsp.api.port import INVALID_REQUEST
from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import text_response


def _texts(request_body: dict) -> str:
    return json.dumps(request_body["input"])


def test_list_read_name_fork_archive_unarchive_then_resume_after_restart(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Hello from A", response_id="resp_a"))
    scripted_model.enqueue(text_response("Reply in B", response_id="resp_b"))
    scripted_model.enqueue(text_response("Fork reply", response_id="resp_f"))
    scripted_model.enqueue(text_response("Resumed reply", response_id="resp_r"))

    with app_server(home, ws) as client:
        a = client.start_thread()
        client.run_turn(a["id"], "Say hello.")
        b = client.start_thread()
        client.run_turn(b["id"], "Second thread.")

        listing = client.result("thread/list", {})
        assert [t["id"] for t in listing["data"]] == [b["id"], a["id"]]
        assert [t["preview"] for t in listing["data"]] == ["Second thread.", "Say hello."]
        assert all(t["status"] == {"type": "idle"} for t in listing["data"])
        first = client.result("thread/list", {"limit": 1})
        assert [t["id"] for t in first["data"]] == [b["id"]] and first["nextCursor"]
        second = client.result("thread/list", {"limit": 1, "cursor": first["nextCursor"]})
        assert [t["id"] for t in second["data"]] == [a["id"]]

        read = client.result("thread/read", {"threadId": a["id"], "includeTurns": True})["thread"]
        assert len(read["turns"]) == 1 and read["turns"][0]["status"] == "completed"
        kinds = [(i["type"], i.get("text")) for i in read["turns"][0]["items"]]
        assert kinds == [("userMessage", None), ("agentMessage", "Hello from A")]
        assert client.result("thread/read", {"threadId": a["id"]})["thread"]["turns"] == []

        assert client.result("thread/name/set", {"threadId": a["id"], "name": "Greeting"}) == {}
        renamed = client.wait_method("thread/name/updated", threadId=a["id"])
        assert renamed["params"]["threadName"] == "Greeting"
        named = {t["id"]: t.get("name") for t in client.result("thread/list", {})["data"]}
        assert named[a["id"]] == "Greeting"

        fork = client.result("thread/fork", {"threadId": a["id"]})["thread"]
        assert fork["id"] not in (a["id"], b["id"]) and fork["forkedFromId"] == a["id"]
        assert [i["type"] for i in fork["turns"][0]["items"]] == ["userMessage", "agentMessage"]
        assert client.wait_method("thread/started")["params"]["thread"]["id"] == fork["id"]
        client.run_turn(fork["id"], "Continue the fork.")
        assert "Hello from A" in _texts(scripted_model.requests[2].body)

        assert client.result("thread/archive", {"threadId": b["id"]}) == {}
        client.wait_method("thread/archived", threadId=b["id"])
        active = [t["id"] for t in client.result("thread/list", {})["data"]]
        assert b["id"] not in active and a["id"] in active
        archived = client.result("thread/list", {"archived": True})["data"]
        assert [t["id"] for t in archived] == [b["id"]]
        restored = client.result("thread/unarchive", {"threadId": b["id"]})["thread"]
        assert restored["id"] == b["id"] and "archived_sessions" not in restored["path"]
        client.wait_method("thread/unarchived", threadId=b["id"])
        assert b["id"] in [t["id"] for t in client.result("thread/list", {})["data"]]

    with app_server(home, ws) as client:
        listing = {t["id"]: t for t in client.result("thread/list", {})["data"]}
        assert listing[a["id"]]["status"] == {"type": "notLoaded"}
        assert listing[a["id"]]["name"] == "Greeting"
        stray = client.call(
            "turn/start", {"threadId": a["id"], "input": [{"type": "text", "text": "x"}]}
        )
        assert stray["error"]["code"] == INVALID_REQUEST

        resumed = client.result("thread/resume", {"threadId": a["id"]})
        thread = resumed["thread"]
        assert thread["id"] == a["id"] and thread["status"] == {"type": "idle"}
        assert thread["name"] == "Greeting" and thread["preview"] == "Say hello."
        assert [i["type"] for i in thread["turns"][0]["items"]] == ["userMessage", "agentMessage"]
        assert resumed["cwd"] == str(ws)
        _, done = client.run_turn(a["id"], "And after the restart?")
        assert done["params"]["turn"]["items"][0]["text"] == "Resumed reply"
        body = _texts(scripted_model.requests[3].body)
        assert "Say hello." in body and "Hello from A" in body

        # Naming a thread this server has not loaded works from the store.
        client.result("thread/name/set", {"threadId": b["id"], "name": "Second"})
        assert (
            client.wait_method("thread/name/updated", threadId=b["id"])["params"]["threadName"]
            == "Second"
        )
        again = client.result("thread/read", {"threadId": b["id"]})["thread"]
        assert again["name"] == "Second"

        missing = client.call("thread/read", {"threadId": "01a201a5-0000-7000-8000-000000000000"})
        assert missing["error"]["code"] == INVALID_REQUEST
        empty = client.call("thread/name/set", {"threadId": a["id"], "name": "   "})
        assert "name" in empty["error"]["message"]


def test_ephemeral_threads_leave_no_rollout(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Nothing kept."))
    with app_server(home, ws) as client:
        thread = client.start_thread(ephemeral=True)
        assert thread["ephemeral"] is True and thread.get("path") is None
        client.run_turn(thread["id"], "Forget me.")
        assert client.result("thread/list", {})["data"] == []
        read = client.result("thread/read", {"threadId": thread["id"]})["thread"]
        assert read["id"] == thread["id"] and read["ephemeral"] is True
    assert not (home / "sessions").exists() or not any((home / "sessions").rglob("*.jsonl"))
