"""One writer per thread: a second process cannot resume a thread another live process holds,
so two servers never interleave their turns in one rollout."""

from __future__ import annotations

import json
from pathlib import Path

from tests.robustness.clients import AppServerDoor
from tests.support.scripted_builders import text_response
from tests.support.scripted_model import ScriptedModelServer


def _text(text: str) -> dict[str, object]:
    return {"type": "text", "text": text, "text_elements": []}


def _run_turn(door: AppServerDoor, thread_id: str, prompt: str) -> None:
    door.result("turn/start", {"threadId": thread_id, "input": [_text(prompt)]})
    while True:
        message = door.notification("turn/completed")
        if message["params"]["threadId"] == thread_id:
            return


def _user_prompts(rollout: Path) -> list[str]:
    prompts = []
    for line in rollout.read_text().splitlines():
        record = json.loads(line)
        payload = record["payload"]
        if record["type"] == "event_msg" and payload.get("type") == "user_message":
            prompts.append(payload["message"])
    return prompts


def test_a_thread_held_by_another_process_cannot_be_resumed(
    home: Path, ws: Path, scripted_model: ScriptedModelServer
) -> None:
    first = AppServerDoor(home, ws)
    second = AppServerDoor(home, ws)
    try:
        for door in (first, second):
            door.initialize()
        started = first.result("thread/start", {"cwd": str(ws), "sandbox": "danger-full-access"})
        thread = started["thread"]
        scripted_model.enqueue(text_response("first answer"))
        _run_turn(first, thread["id"], "from the first server")

        refused = second.call("thread/resume", {"threadId": thread["id"]})
        assert "error" in refused, refused
        message = refused["error"]["message"]
        assert thread["id"] in message
        assert f"process {first.process.pid}" in message

        # The first server carries on writing; the file holds its turns only.
        scripted_model.enqueue(text_response("second answer"))
        _run_turn(first, thread["id"], "again from the first server")
        rollout = Path(thread["path"])
        assert _user_prompts(rollout) == ["from the first server", "again from the first server"]

        # Once the holder is gone, the thread can be resumed (and written) elsewhere.
        assert first.close() == 0
        resumed = second.result("thread/resume", {"threadId": thread["id"]})
        assert resumed["thread"]["id"] == thread["id"]
        scripted_model.enqueue(text_response("third answer"))
        _run_turn(second, thread["id"], "from the second server")
        assert _user_prompts(rollout)[-1] == "from the second server"
    finally:
        first.close()
        second.close()
