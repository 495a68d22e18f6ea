"""What an editor's user reads in an approval prompt: the whole command, nothing hidden in it.

A command that hides behind a carriage return, ANSI escapes and a right-to-left override, and is
long enough that a popup would cut it, asks for escalation. The `window/showMessageRequest` (or,
for an editor without prompts, the `window/showMessage` and the code actions) carries every one
of those characters by name, the whole command, and the words "outside the sandbox".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.support.engine import write_config
from tests.support.lsp_client import Editor, EditorSession
from tests.support.scripted_builders import function_call_response, text_response

RAW = ("\x1b", "\r", "\u202e", "\x07", "\x9b", "\u2066")
FILLER = " ".join(f"--option-{n}=value" for n in range(20))
# 300+ characters: what a popup cuts is where a hidden part would sit.
SPOOF = f"ls -la\r\x1b[2K\x1b[8m {FILLER}; printf pwned > pwned.txt #\x1b[0m\u202e\u2066\x07"
SHOWN = (
    f"ls -la\\r\\x1b[2K\\x1b[8m {FILLER}; printf pwned > pwned.txt #\\x1b[0m<U+202E><U+2066>\\x07"
)


def _escalated(ws: Path, command: str) -> list[Any]:
    return function_call_response(
        "exec_command",
        {
            "cmd": command,
            "workdir": str(ws),
            "sandbox_permissions": "require_escalated",
            "justification": "list\x1b[1A\rfiles\u202e",
        },
        call_id="c1",
        response_id="r1",
    )


def _no_raw(text: str) -> None:
    for char in RAW:
        assert char not in text, (char, text)


async def test_the_prompt_shows_the_whole_escaped_command_and_says_outside_the_sandbox(
    home, ws, scripted_model
):
    assert len(SPOOF) > 300
    scripted_model.enqueue(_escalated(ws, SPOOF))
    scripted_model.enqueue(text_response("done", response_id="r2"))
    editor = Editor(choose=lambda params: "Approve")
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "list files")

    assert completed["turn"]["status"] == "completed"
    [prompt] = editor.prompts
    _no_raw(prompt.message)
    lines = prompt.message.split("\n")
    assert lines[0] == "Codex wants to run a command OUTSIDE the sandbox:"
    # The command as the shell gets it (`/bin/sh -lc '...'`), whole, on one line.
    assert lines[1].startswith("$ ") and lines[1].endswith(f" -lc '{SHOWN}'")
    assert "Reason: list\\x1b[1A\\rfiles<U+202E>" in lines
    assert any("outside the sandbox" in line and "Approving" in line for line in lines)
    for action in prompt.actions or []:
        _no_raw(action.title)
    # What was approved is what ran.
    assert (ws / "pwned.txt").read_text() == "pwned"


async def test_a_sandboxed_command_prompt_does_not_say_outside(tmp_path, ws, scripted_model):
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url, approval_policy="untrusted")
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": "touch a\nb", "workdir": str(ws)})
    )
    scripted_model.enqueue(text_response("left it", response_id="r2"))
    editor = Editor(choose=lambda params: "Deny")
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "touch")

    [prompt] = editor.prompts
    first, command = prompt.message.split("\n")[:2]
    assert first == "Codex wants to run a command:"
    assert command.startswith("$ ") and command.endswith(" -lc 'touch a\\nb'")
    assert "outside the sandbox" not in prompt.message.lower()


async def test_an_editor_without_prompts_gets_the_same_visible_text(home, ws, scripted_model):
    scripted_model.enqueue(_escalated(ws, SPOOF))
    scripted_model.enqueue(text_response("done", response_id="r2"))
    async with EditorSession(home, ws, message_requests=False) as client:
        client.open(ws / "app.py", 'print("hi")\n')
        thread_id = await client.start_thread(ws)
        turn_id = await client.start_turn(thread_id, "list files")

        def notices() -> list[types.ShowMessageParams]:
            return [m for m in client.messages if "This editor shows no prompts" in m.message]

        [notice] = await client.wait_until(lambda: notices())
        _no_raw(notice.message)
        assert f" -lc '{SHOWN}'\n" in notice.message
        assert "Approving runs this command outside the sandbox" in notice.message
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=(ws / "app.py").as_uri()),
                range=types.Range(
                    start=types.Position(line=0, character=0),
                    end=types.Position(line=0, character=0),
                ),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        titles = [a.title for a in actions or [] if isinstance(a, types.CodeAction)]
        assert titles and all(SHOWN.split(";")[0] in t for t in titles)
        for title in titles:
            _no_raw(title)
        await client.command("codex.deny", {"id": "1"})
        await client.turn_completed(thread_id, turn_id)
    assert not (ws / "pwned.txt").exists()


async def test_every_message_the_server_shows_names_control_characters(home, ws, scripted_model):
    command = "printf x\x1b[2K\r\u202e > log.txt"
    scripted_model.enqueue(_escalated(ws, command))
    scripted_model.enqueue(text_response("ok", response_id="r2"))
    editor = Editor(choose=lambda params: "Approve for session")
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "once")

        listed = await client.command("codex.sessionApprovals", {})
        [approval] = listed["approvals"]
        # The command's own text for a program; named characters for the person.
        assert approval["description"].startswith(command)
        [shown] = [m for m in client.messages if approval["id"] in m.message]
        _no_raw(shown.message)
        assert "printf x\\x1b[2K\\r<U+202E> > log.txt" in shown.message

        await client.command("codex.revokeApproval", {"id": approval["id"]})
        [revoked] = [m for m in client.messages if m.message.startswith("No longer approved")]
        _no_raw(revoked.message)
        assert "printf x\\x1b[2K\\r<U+202E> > log.txt" in revoked.message


async def test_a_question_shows_its_options_named_and_the_pick_reaches_the_model(
    home, ws, scripted_model
):
    question = {
        "id": "target",
        "header": "Deploy\x1b[2K",
        "question": "Where to?\r\u202e",
        "options": [
            {"value": "staging", "label": "staging\x1b[8m (safe)", "description": "a\u2066b"},
            {"value": "prod", "label": "production", "description": "live"},
        ],
    }
    scripted_model.enqueue(
        function_call_response(
            "request_user_input", {"questions": [question]}, call_id="q1", response_id="r1"
        )
    )
    scripted_model.enqueue(text_response("ok", response_id="r2"))
    editor = Editor(choose=lambda params: params.actions[0].title)
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "deploy")

    [prompt] = editor.prompts
    _no_raw(prompt.message)
    assert prompt.message.split("\n")[:2] == ["Deploy\\x1b[2K", "Where to?\\r<U+202E>"]
    assert [a.title for a in prompt.actions or []] == ["staging\\x1b[8m (safe)", "production"]
    # The model gets the option it wrote, not the text shown for it.
    output = next(
        item["output"]
        for item in scripted_model.requests[1].body["input"]
        if item.get("type") == "function_call_output" and item.get("call_id") == "q1"
    )
    assert '"staging"' in output
