"""Thread history, files and search through `codex-lsp serve` as `codex/*` requests: the
language server routes every v2 method to the API, and its notifications come back as
`codex/<method>`."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import created, text_response


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path / "ws", {"app.py": "print('hi')\n"})


def _home(tmp_path: Path, base_url: str) -> Path:
    home = tmp_path / "home"
    write_config(home, base_url, sandbox_mode="danger-full-access", approval_policy="never")
    return home


async def test_thread_history_methods_through_the_language_server(tmp_path, ws, scripted_model):
    home = _home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("first answer", response_id="r1"))
    scripted_model.enqueue([created("r_slow"), {"stall_s": 20}])
    scripted_model.enqueue(text_response("steered answer", response_id="r3"))
    scripted_model.enqueue(text_response("a summary", response_id="r4"))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "one")
        turn_id = await client.start_turn(thread_id, "two")
        await asyncio.to_thread(scripted_model.wait_for_requests, 2, 30)
        steered = await client.codex(
            "turn/steer",
            {
                "threadId": thread_id,
                "input": [{"type": "text", "text": "and also"}],
                "expectedTurnId": turn_id,
            },
        )
        assert steered == {"turnId": turn_id}
        await client.turn_completed(thread_id, turn_id)
        assert "and also" in json.dumps(scripted_model.requests[-1].body["input"])

        page = await client.codex("thread/turns/list", {"threadId": thread_id, "limit": 1})
        assert [t["id"] for t in page["data"]] == [turn_id] and page["nextCursor"]
        older = await client.codex(
            "thread/turns/list", {"threadId": thread_id, "cursor": page["nextCursor"]}
        )
        assert len(older["data"]) == 1
        items = await client.codex("thread/items/list", {"threadId": thread_id, "turnId": turn_id})
        users = [e["item"] for e in items["data"] if e["item"]["type"] == "userMessage"]
        assert [u["content"][0]["text"] for u in users] == ["two", "and also"]

        assert await client.codex("thread/loaded/list", {}) == {
            "data": [thread_id],
            "nextCursor": None,
        }
        await client.codex("thread/compact/start", {"threadId": thread_id})
        await client.wait_for("thread/compacted", lambda p: p["threadId"] == thread_id)
        await client.wait_for(
            "turn/completed", lambda p: p["threadId"] == thread_id and p["turn"]["id"] != turn_id
        )
        reverted = await client.codex(
            "thread/revert", {"threadId": thread_id, "beforeTurnId": turn_id}
        )
        assert reverted["thread"]["id"] == thread_id
        await client.wait_for("thread/reverted", lambda p: p["threadId"] == thread_id)
        left = await client.codex("thread/turns/list", {"threadId": thread_id})
        assert len(left["data"]) == 1

        with pytest.raises(JsonRpcException) as refused:
            await client.codex("thread/items/list", {"threadId": thread_id, "cursor": "junk"})
        assert "invalid cursor: junk" in str(refused.value)
        await client.codex("thread/delete", {"threadId": thread_id})
        await client.wait_for("thread/deleted", lambda p: p["threadId"] == thread_id)


async def test_files_and_watches_through_the_language_server(tmp_path, ws, scripted_model):
    home = _home(tmp_path, scripted_model.base_url)
    async with EditorSession(home, ws) as client:
        target = ws / "notes" / "todo.md"
        await client.codex("fs/createDirectory", {"path": str(target.parent)})
        await client.codex("fs/watch", {"watchId": "notes", "path": str(target.parent)})
        data = base64.b64encode(b"- write tests\n").decode()
        await client.codex("fs/writeFile", {"path": str(target), "dataBase64": data})
        changed = await client.wait_for("fs/changed", lambda p: p["watchId"] == "notes")
        assert str(target) in changed["changedPaths"]
        read = await client.codex("fs/readFile", {"path": str(target)})
        assert base64.b64decode(read["dataBase64"]) == b"- write tests\n"
        listing = await client.codex("fs/readDirectory", {"path": str(target.parent)})
        assert listing["entries"] == [{"fileName": "todo.md", "isDirectory": False, "isFile": True}]
        meta = await client.codex("fs/getMetadata", {"path": str(target)})
        assert meta["isFile"]
        await client.codex(
            "fs/copy", {"sourcePath": str(target), "destinationPath": str(ws / "copy.md")}
        )
        assert (ws / "copy.md").read_text() == "- write tests\n"
        await client.codex("fs/unwatch", {"watchId": "notes"})
        await client.codex("fs/remove", {"path": str(target.parent)})
        assert not target.parent.exists()
        with pytest.raises(JsonRpcException) as missing:
            await client.codex("fs/readFile", {"path": str(target)})
        assert str(target) in str(missing.value)


async def test_fuzzy_search_through_the_language_server(tmp_path, ws, scripted_model):
    home = _home(tmp_path, scripted_model.base_url)
    for relative in ("src/config.py", "dist/config.js", "src/server.py"):
        path = ws / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    (ws / ".gitignore").write_text("dist/\n")
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    async with EditorSession(home, ws) as client:
        found = await client.codex("fuzzyFileSearch", {"query": "conf", "roots": [str(ws)]})
        assert [f["path"] for f in found["files"]] == ["src/config.py"]
        await client.codex("fuzzyFileSearch/sessionStart", {"sessionId": "p", "roots": [str(ws)]})
        await client.codex("fuzzyFileSearch/sessionUpdate", {"sessionId": "p", "query": "srv"})
        await client.wait_for("fuzzyFileSearch/sessionCompleted", lambda p: p["sessionId"] == "p")
        updated = [
            p for p in client.notifications("fuzzyFileSearch/sessionUpdated") if p["query"] == "srv"
        ]
        assert updated[-1]["files"][0]["path"] == "src/server.py"
        await client.codex("fuzzyFileSearch/sessionStop", {"sessionId": "p"})
