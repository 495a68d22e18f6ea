"""A patch to a very long file is planned and diffed off the event loop: a request sent while
the patch is in progress is answered before the patch's work is done."""

from __future__ import annotations

from pathlib import Path

from tests.robustness.clients import Door
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import custom_tool_call_response, text_response
from tests.support.scripted_model import ScriptedModelServer

LINES = 80_000
EVERY = 8  # one chunk per this many lines: 10,000 chunks


def _big_file_and_patch(ws: Path) -> tuple[str, str]:
    lines = [f"value_{n} = {n}" for n in range(LINES)]
    (ws / "big.py").write_text("\n".join(lines) + "\n")
    body = []
    for n in range(0, LINES, EVERY):
        body += ["@@", f"-{lines[n]}", f"+{lines[n]}  # checked"]
        lines[n] += "  # checked"
    patch = "*** Begin Patch\n*** Update File: big.py\n" + "\n".join(body) + "\n*** End Patch"
    return patch, "\n".join(lines) + "\n"


def _is_file_change(message: dict, method: str) -> bool:
    params = message.get("params") or {}
    item = params.get("item") or {}
    return message.get("method") == method and item.get("type") == "fileChange"


def test_requests_are_answered_while_a_big_patch_is_applied(
    door: Door, scripted_model: ScriptedModelServer, ws: Path
) -> None:
    patch, expected = _big_file_and_patch(ws)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_big"))
    scripted_model.enqueue(text_response("Marked every eighth line.", response_id="resp_2"))
    started = door.result("thread/start", {"cwd": str(ws), "sandbox": "danger-full-access"})
    thread_id = started["thread"]["id"]
    door.result(
        "turn/start",
        {
            "threadId": thread_id,
            "input": [{"type": "text", "text": "mark them", "text_elements": []}],
            "approvalPolicy": "never",
        },
    )
    while not _is_file_change(door.read(), door.method("item/started")):
        pass
    # The patch is under way: its file is written and the turn's diff still to be computed.
    probe = door.request("model/list", {})
    order: list[str] = []
    while True:
        message = door.read()
        if message.get("id") == probe and "method" not in message:
            assert "result" in message, message
            order.append("probe answered")
        elif message.get("method") == door.method("turn/diff/updated"):
            order.append("turn diff")
        elif message.get("method") == door.method("turn/completed"):
            assert message["params"]["turn"]["status"] == "completed"
            break
    assert order[0] == "probe answered", order
    assert "turn diff" in order
    assert (ws / "big.py").read_text() == expected


async def test_an_editor_is_answered_while_a_big_patch_is_applied(
    home: Path, scripted_model: ScriptedModelServer, ws: Path
) -> None:
    patch, expected = _big_file_and_patch(ws)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_big"))
    scripted_model.enqueue(text_response("Marked every eighth line.", response_id="resp_2"))
    # An editor without workspace/applyEdit: the server writes the file itself.
    async with EditorSession(home, ws, apply_edit=False) as editor:
        thread_id = await editor.start_thread(ws, sandbox="danger-full-access")
        turn_id = await editor.start_turn(thread_id, "mark them", approvalPolicy="never")
        await editor.wait_for("item/started", lambda p: p["item"]["type"] == "fileChange")
        models = await editor.codex("model/list", {})
        answered_at = next(
            index
            for index, (kind, value) in enumerate(editor.protocol.arrivals)
            if kind == "response" and value is models
        )
        await editor.turn_completed(thread_id, turn_id)
        diffs = [
            index
            for index, (kind, _) in enumerate(editor.protocol.arrivals)
            if kind == "codex/turn/diff/updated"
        ]
        assert diffs and answered_at < diffs[0]
    assert (ws / "big.py").read_text() == expected
