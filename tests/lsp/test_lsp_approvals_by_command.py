"""Approvals in an editor that cannot show a prompt (no `window.showMessage` capability).

The user is told with a `window/showMessage` how to answer, and answers with a code action
(offered in any file) or the `codex.approve` / `codex.deny` / `codex.answer` commands. Decisions
made for the session are listed and taken back with commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.support.lsp_client import Editor, EditorClient, EditorSession, uri
from tests.support.scripted_builders import function_call_response, text_response


def _escalated(ws: Path, command: str, call_id: str, response_id: str) -> list[Any]:
    return function_call_response(
        "exec_command",
        {
            "cmd": command,
            "workdir": str(ws),
            "sandbox_permissions": "require_escalated",
            "justification": "to write a file",
        },
        call_id=call_id,
        response_id=response_id,
    )


async def _code_actions(client: EditorClient, ws: Path) -> list[types.CodeAction]:
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri(ws / "app.py")),
        range=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[]),
    )
    actions = await client.text_document_code_action_async(params)
    return [a for a in actions or [] if isinstance(a, types.CodeAction)]


async def _waiting_notice(client: EditorClient, count: int) -> types.ShowMessageParams:
    def notices() -> list[types.ShowMessageParams]:
        return [m for m in client.messages if "This editor shows no prompts" in m.message]

    return (await client.wait_until(lambda: len(notices()) >= count and notices()))[count - 1]


async def test_a_code_action_approves_the_command(home, ws, scripted_model):
    scripted_model.enqueue(_escalated(ws, "printf yes > made.txt", "c1", "r1"))
    scripted_model.enqueue(text_response("Made it.", response_id="r2"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor, message_requests=False) as client:
        client.open(ws / "app.py", 'print("hi")\n')
        thread_id = await client.start_thread(ws)
        turn_id = await client.start_turn(thread_id, "make a file")

        notice = await _waiting_notice(client, 1)
        assert notice.message.startswith("Codex wants to run a command OUTSIDE the sandbox:\n$ ")
        assert "printf yes > made.txt" in notice.message
        assert 'codex.approve or codex.deny with {"id": "1"}' in notice.message
        actions = await _code_actions(client, ws)
        titles = [a.title for a in actions]
        assert titles == [
            "Codex: approve: run `printf yes > made.txt`",
            "Codex: approve for this session: run `printf yes > made.txt`",
            "Codex: deny: run `printf yes > made.txt`",
            "Codex: deny and stop the turn: run `printf yes > made.txt`",
        ]
        approve = actions[0].command
        assert approve is not None
        result = await client.command(approve.command, *(approve.arguments or []))
        assert result == {"id": "1", "decision": "accept"}

        completed = await client.turn_completed(thread_id, turn_id)
        assert completed["turn"]["status"] == "completed"
        assert (ws / "made.txt").read_text() == "yes"
        assert editor.prompts == []  # never a showMessageRequest
        assert await _code_actions(client, ws) == []  # nothing waits any more


async def test_approved_for_the_session_is_listed_and_revoked(home, ws, scripted_model):
    command = "printf again >> log.txt"
    for n in range(3):
        scripted_model.enqueue(_escalated(ws, command, f"c{n}", f"r{n}a"))
        scripted_model.enqueue(text_response("ok", response_id=f"r{n}b"))
    async with EditorSession(home, ws, message_requests=False) as client:
        thread_id = await client.start_thread(ws)

        turn_id = await client.start_turn(thread_id, "once")
        await _waiting_notice(client, 1)
        answer = await client.command("codex.approve", {"forSession": True})  # the only one
        assert answer == {"id": "1", "decision": "acceptForSession"}
        await client.turn_completed(thread_id, turn_id)

        await client.run_turn(thread_id, "twice")  # remembered: runs without asking
        assert (ws / "log.txt").read_text() == "againagain"

        listed = await client.command("codex.sessionApprovals", {})
        [approval] = listed["approvals"]
        assert approval["threadId"] == thread_id and approval["kind"] == "command"
        assert approval["description"] == f"{command} (in {ws})"
        assert any(approval["id"] in m.message for m in client.messages)

        revoked = await client.command("codex.revokeApproval", {"id": approval["id"]})
        assert revoked["revoked"]["description"] == approval["description"]
        assert (await client.command("codex.sessionApprovals", {}))["approvals"] == []

        turn_id = await client.start_turn(thread_id, "thrice")
        await _waiting_notice(client, 2)  # asked again
        assert await client.command("codex.deny", {"id": "2"}) == {"id": "2", "decision": "decline"}
        completed = await client.turn_completed(thread_id, turn_id)
        assert completed["turn"]["status"] == "completed"
        assert (ws / "log.txt").read_text() == "againagain"


async def test_a_wrong_id_is_a_clear_error_and_the_approval_still_waits(home, ws, scripted_model):
    scripted_model.enqueue(_escalated(ws, "printf x > x.txt", "c1", "r1"))
    scripted_model.enqueue(text_response("done", response_id="r2"))
    async with EditorSession(home, ws, message_requests=False) as client:
        thread_id = await client.start_thread(ws)
        turn_id = await client.start_turn(thread_id, "go")
        await _waiting_notice(client, 1)

        with pytest.raises(JsonRpcException) as raised:
            await client.command("codex.approve", {"id": "7"})
        assert "no pending approval has the id '7'" in str(raised.value)
        assert "1 (run `printf x > x.txt`)" in str(raised.value)

        await client.command("codex.deny", {"id": "1", "stopTurn": True})
        completed = await client.turn_completed(thread_id, turn_id)
        assert completed["turn"]["status"] == "interrupted"
        assert not (ws / "x.txt").exists()


async def test_an_editor_with_message_requests_keeps_the_prompt(home, ws, scripted_model):
    scripted_model.enqueue(_escalated(ws, "printf p > p.txt", "c1", "r1"))
    scripted_model.enqueue(text_response("done", response_id="r2"))
    editor = Editor(choose=lambda params: "Approve")
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "go")
        assert len(editor.prompts) == 1
        assert not [m for m in client.messages if "This editor shows no prompts" in m.message]
