"""Approvals through the language server: message prompts by default, v2 requests when asked.

The test editor answers `window/showMessageRequest` by picking an action, or the rich
`codex/item/*/requestApproval` requests with a v2 decision, as a chat panel would.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.engine import write_config
from tests.support.lsp_client import Editor, EditorSession
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)


def _escalated_command(ws: Path, command: str, *, reason: str = "to greet") -> list:
    return function_call_response(
        "exec_command",
        {
            "cmd": command,
            "workdir": str(ws),
            "sandbox_permissions": "require_escalated",
            "justification": reason,
        },
        call_id="call_exec",
        response_id="resp_1",
    )


def _command_item(client, thread_id: str) -> dict:
    return next(
        p["item"]
        for p in client.notifications("item/completed")
        if p["threadId"] == thread_id and p["item"]["type"] == "commandExecution"
    )


@pytest.mark.parametrize(
    ("action", "status", "ran", "turn_status"),
    [
        ("Approve", "completed", True, "completed"),
        ("Approve for session", "completed", True, "completed"),
        ("Deny", "declined", False, "completed"),
        (None, "declined", False, "completed"),  # the user dismissed the prompt
        ("Abort turn", "declined", False, "interrupted"),
    ],
)
async def test_command_approval_through_show_message_request(
    home, ws, scripted_model, action, status, ran, turn_status
):
    scripted_model.enqueue(_escalated_command(ws, "echo approved > out.txt"))
    scripted_model.enqueue(text_response("finished", response_id="resp_2"))
    editor = Editor(choose=lambda params: action)
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "greet")

        assert len(editor.prompts) == 1
        prompt = editor.prompts[0]
        assert "echo approved > out.txt" in prompt.message
        assert str(ws) in prompt.message
        assert "Reason: to greet" in prompt.message
        assert [a.title for a in prompt.actions] == [
            "Approve",
            "Approve for session",
            "Deny",
            "Abort turn",
        ]
        assert completed["turn"]["status"] == turn_status
        if turn_status == "completed":
            assert _command_item(client, thread_id)["status"] == status
        assert (ws / "out.txt").exists() is ran


async def test_command_approval_through_the_rich_request(home, ws, scripted_model):
    scripted_model.enqueue(_escalated_command(ws, "echo rich > out.txt"))
    scripted_model.enqueue(text_response("finished", response_id="resp_2"))
    editor = Editor(rich_answer=lambda method, params: {"decision": "accept"})
    async with EditorSession(home, ws, editor=editor, rich=True) as client:
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "greet")

        assert completed["turn"]["status"] == "completed"
        assert editor.prompts == [], "a rich client gets no message prompts"
        [(method, params)] = editor.rich_requests
        assert method == "item/commandExecution/requestApproval"
        assert params["threadId"] == thread_id
        assert (
            params["command"].endswith("echo rich > out.txt'") or "echo rich" in params["command"]
        )
        assert params["cwd"] == str(ws)
        assert params["reason"] == "to greet"
        assert (ws / "out.txt").read_text() == "rich\n"
        # Once answered, the request is announced as resolved, before the command's end.
        seen = [
            (name, p)
            for name, p in client.protocol.codex_notifications
            if name == "serverRequest/resolved"
            or (name == "item/completed" and p["item"]["type"] == "commandExecution")
        ]
        assert [name for name, _ in seen] == ["serverRequest/resolved", "item/completed"]
        assert seen[0][1]["threadId"] == thread_id
        assert isinstance(seen[0][1]["requestId"], str)


async def test_rich_decline_keeps_the_command_from_running(home, ws, scripted_model):
    scripted_model.enqueue(_escalated_command(ws, "echo no > out.txt"))
    scripted_model.enqueue(text_response("ok", response_id="resp_2"))
    editor = Editor(rich_answer=lambda method, params: {"decision": "decline"})
    async with EditorSession(home, ws, editor=editor, rich=True) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "greet")
        assert _command_item(client, thread_id)["status"] == "declined"
    assert not (ws / "out.txt").exists()


async def test_patch_approval_prompt_lists_files_and_diff(ws, tmp_path, scripted_model):
    home = tmp_path / "home"
    # /tmp is writable by default; without it a file next to the workspace needs approval.
    write_config(
        home,
        scripted_model.base_url,
        extra="[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true",
    )
    outside = tmp_path / "outside" / "notes.txt"
    patch = f"*** Begin Patch\n*** Add File: {outside}\n+a note from the agent\n*** End Patch"
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_patch"))
    scripted_model.enqueue(text_response("noted", response_id="resp_2"))
    editor = Editor(choose=lambda params: "Approve")
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "write a note outside")
        assert completed["turn"]["status"] == "completed"

        [prompt] = editor.prompts
        assert "change 1 file" in prompt.message
        assert f"A {outside}" in prompt.message
        assert "+a note from the agent" in prompt.message
        # Approved, the patch went to disk: no buffer shows that file.
        assert editor.edits == [], "a file no buffer shows is written to disk only"
    assert outside.read_text() == "a note from the agent\n"


async def test_unanswered_approval_does_not_stall_another_thread(home, ws, scripted_model):
    scripted_model.enqueue(_escalated_command(ws, "echo waiting > out.txt"), when="needs approval")
    scripted_model.enqueue(text_response("independent answer"), when="independent")
    never = asyncio.Event()

    async def ignore_forever(params):
        await never.wait()  # the user walked away from the prompt

    editor = Editor(choose=ignore_forever)
    async with EditorSession(home, ws, editor=editor) as client:
        blocked, free = await client.start_thread(ws), await client.start_thread(ws)
        blocked_turn = await client.start_turn(blocked, "needs approval")
        await client.wait_until(lambda: editor.prompts)

        done = await client.run_turn(free, "independent")
        assert done["turn"]["status"] == "completed"
        assert not [p for p in client.notifications("turn/completed") if p["threadId"] == blocked]

        # The waiting turn can still be interrupted; its prompt is withdrawn from the editor.
        await client.codex("turn/interrupt", {"threadId": blocked, "turnId": blocked_turn})
        interrupted = await client.turn_completed(blocked, blocked_turn)
        assert interrupted["turn"]["status"] == "interrupted"
    assert not (ws / "out.txt").exists()


async def test_always_allow_in_the_prompt_saves_a_rule_that_later_commands_honour(
    ws, tmp_path, scripted_model
):
    home = tmp_path / "untrusted-home"
    write_config(home, scripted_model.base_url, approval_policy="untrusted")
    for n, command in enumerate(["touch one.flag", "touch one.flag two.flag"]):
        scripted_model.enqueue(
            function_call_response(
                "exec_command", {"cmd": command, "workdir": str(ws)}, call_id=f"c{n}"
            ),
            when=f"turn {n}",
        )
        scripted_model.enqueue(text_response("done"), when=f"turn {n}")
    editor = Editor(choose=lambda params: "Always allow")
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "turn 0")
        [prompt] = editor.prompts
        assert [a.title for a in prompt.actions] == [
            "Approve",
            "Approve for session",
            "Always allow",
            "Deny",
            "Abort turn",
        ]
        assert "Always allow: run commands starting with `touch one.flag`" in prompt.message
        await client.run_turn(thread_id, "turn 1")
        assert len(editor.prompts) == 1
    assert (home / "rules" / "default.rules").read_text() == (
        'prefix_rule(pattern=["touch", "one.flag"], decision="allow")\n'
    )
    assert (ws / "two.flag").exists()
