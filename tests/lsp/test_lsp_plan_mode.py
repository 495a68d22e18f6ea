"""Plan mode through the language server: `codex/thread/settings/update` switches a thread into
Plan mode, a patch the model sends there is refused and nothing lands in the editor or on disk,
the plan arrives as a `plan` item, and switching back lets the next patch land."""

from __future__ import annotations

from pathlib import Path

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import custom_tool_call_response, text_response

PATCH = "*** Begin Patch\n*** Add File: planned.txt\n+from the plan\n*** End Patch\n"
ANSWER = "Here it is.\n<proposed_plan>\n1. Add planned.txt\n</proposed_plan>"


async def test_plan_mode_through_the_language_server(tmp_path: Path, scripted_model) -> None:
    ws = make_git_repo(tmp_path / "ws", {"app.py": "print('hi')\n"})
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="p1"))
    scripted_model.enqueue(text_response(ANSWER, response_id="r2"))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="p2"))
    scripted_model.enqueue(text_response("Done.", response_id="r4"))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        plan = {"mode": "plan", "settings": {"model": "gpt-5.4"}}
        await client.codex(
            "thread/settings/update", {"threadId": thread_id, "collaborationMode": plan}
        )
        done = await client.run_turn(thread_id, "plan a file")
        assert done["turn"]["status"] == "completed"
        assert not (ws / "planned.txt").exists()
        refused = next(
            item["output"]
            for item in scripted_model.requests[1].body["input"]
            if item.get("call_id") == "p1" and "output" in item
        )
        assert "Plan mode is read-only" in str(refused)
        plans = [
            p["item"]["text"]
            for p in client.notifications("item/completed")
            if p["item"]["type"] == "plan"
        ]
        assert plans == ["1. Add planned.txt"]

        default = {"mode": "default", "settings": {"model": "gpt-5.4"}}
        await client.codex(
            "thread/settings/update", {"threadId": thread_id, "collaborationMode": default}
        )
        await client.run_turn(thread_id, "do it")
        assert (ws / "planned.txt").read_text() == "from the plan\n"
