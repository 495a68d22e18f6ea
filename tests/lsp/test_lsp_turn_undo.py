"""Undo this turn: every file the turn's patches changed goes back, on disk and in buffers."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.support.engine import make_git_repo
from tests.support.lsp_client import Editor, EditorSession
from tests.support.scripted_builders import custom_tool_call_response, text_response

ON_DISK = "value = 1\n"
UNSAVED = "# mine, not saved\nvalue = 1\n"
PATCH = """*** Begin Patch
*** Update File: app.py
@@
-value = 1
+value = 2
*** Update File: lib.py
@@
-LIB = 1
+LIB = 2
*** Add File: notes.txt
+new notes
*** End Patch"""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path / "ws", {"app.py": ON_DISK, "lib.py": "LIB = 1\n"})


def _enqueue_turn(scripted_model) -> None:
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_p"))
    scripted_model.enqueue(text_response("Changed three files.", response_id="resp_done"))


async def test_undo_this_turn_puts_back_disk_and_buffers(home, ws, scripted_model):
    _enqueue_turn(scripted_model)
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", UNSAVED, version=3)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "change things")
        assert (ws / "app.py").read_text() == "# mine, not saved\nvalue = 2\n"
        assert (ws / "lib.py").read_text() == "LIB = 2\n"

        result = await client.codex("turn/undo", {"threadId": thread_id})
        assert sorted(Path(p).name for p in result["restored"]) == [
            "app.py",
            "lib.py",
            "notes.txt",
        ]
        assert result["skipped"] == []
        # The buffer is as the user left it, their unsaved line too, which stays saved.
        assert editor.buffers[doc].text == UNSAVED
        assert (ws / "app.py").read_text() == UNSAVED
        assert (ws / "lib.py").read_text() == "LIB = 1\n"
        assert not (ws / "notes.txt").exists()
        with pytest.raises(JsonRpcException, match="no finished Codex turn"):
            await client.codex("turn/undo", {"threadId": thread_id})


async def test_a_file_changed_since_the_turn_is_left_alone(home, ws, scripted_model):
    _enqueue_turn(scripted_model)
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "change things")
        (ws / "lib.py").write_text("LIB = 3  # the user's later work\n")
        result = await client.codex("turn/undo", {})
        assert [Path(s["path"]).name for s in result["skipped"]] == ["lib.py"]
        assert "changed since" in result["skipped"][0]["reason"]
    assert (ws / "lib.py").read_text() == "LIB = 3  # the user's later work\n"
    assert (ws / "app.py").read_text() == ON_DISK
    assert not (ws / "notes.txt").exists()


async def test_a_plain_client_undoes_the_turn_with_a_code_action(home, ws, scripted_model):
    _enqueue_turn(scripted_model)
    async with EditorSession(home, ws, plain=True) as client:
        doc = client.open(ws / "app.py", ON_DISK)
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc),
            range=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
        before = await client.text_document_code_action_async(params) or []
        assert "Undo the last Codex turn" not in [a.title for a in before]

        await client.command("codex.ask", {"prompt": "change things", "uri": doc})
        await client.wait_until(lambda: any("Changed three" in m.message for m in client.messages))
        actions = await client.text_document_code_action_async(params) or []
        [undo] = [a for a in actions if a.title == "Undo the last Codex turn"]
        assert isinstance(undo, types.CodeAction) and undo.command is not None
        await client.command(undo.command.command, *(undo.command.arguments or []))
        await client.wait_until(lambda: any("undid the turn" in m.message for m in client.messages))
        assert client.editor.buffers[doc].text == ON_DISK
        assert client.protocol.codex_notifications == []
    assert (ws / "app.py").read_text() == ON_DISK
    assert (ws / "lib.py").read_text() == "LIB = 1\n"
    assert not (ws / "notes.txt").exists()
