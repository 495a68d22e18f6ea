"""Patches land through the editor: one `workspace/applyEdit` against its unsaved buffers.

The test editor holds buffers the way an editor does (versions, unsaved text) and applies the
server's edits to them without saving; the server then writes what the editor left unsaved.
Files no buffer shows are written to disk only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.support.engine import make_git_repo
from tests.support.lsp_client import Editor, EditorSession, uri
from tests.support.scripted_builders import custom_tool_call_response, text_response

ON_DISK = 'print("hi")\n'
UNSAVED = '# edited in the editor, not saved\nprint("hi")\n'
PATCH = """*** Begin Patch
*** Update File: app.py
@@
-print("hi")
+print("hello")
*** Add File: notes.txt
+written by the agent
*** End Patch"""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path / "ws", {"app.py": ON_DISK, "old.py": "x = 1\n"})


def _patch_output(scripted_model) -> str:
    body = scripted_model.requests[-1].body
    outputs = [i["output"] for i in body["input"] if i.get("type") == "custom_tool_call_output"]
    return outputs[-1]


async def test_patch_goes_into_the_open_unsaved_buffer(home, ws, scripted_model):
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    scripted_model.enqueue(text_response("Edited.", response_id="resp_2"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", UNSAVED, version=7)
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "say hello instead")
        assert completed["turn"]["status"] == "completed"

        [request] = editor.edits  # one patch, one workspace edit
        changes = request.edit.document_changes
        app_edit = next(
            c
            for c in changes
            if isinstance(c, types.TextDocumentEdit) and c.text_document.uri == doc
        )
        assert app_edit.text_document.version == 7, "the edit targets the buffer as the user has it"
        assert not any(
            isinstance(c, types.CreateFile) and c.uri == uri(ws / "notes.txt") for c in changes
        ), "a file no buffer shows is written to disk, not opened in the editor"
        # The agent read the unsaved text and the editor's buffer now has the change on top.
        assert editor.buffers[doc].text == '# edited in the editor, not saved\nprint("hello")\n'
        assert editor.buffers[doc].version == 8
        item = next(
            p["item"]
            for p in client.notifications("item/completed")
            if p["item"]["type"] == "fileChange"
        )
        assert item["status"] == "completed"

    # The unsaved text the agent read is saved with its change: the disk is what commands see.
    assert (ws / "app.py").read_text() == '# edited in the editor, not saved\nprint("hello")\n'
    assert (ws / "notes.txt").read_text() == "written by the agent\n"
    assert "Success. Updated the following files:" in _patch_output(scripted_model)


async def test_a_refused_edit_is_a_failed_patch(home, ws, scripted_model):
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    scripted_model.enqueue(text_response("I could not edit.", response_id="resp_2"))
    editor = Editor(refuse_edits="the user rejected the change")
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", UNSAVED, version=3)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "say hello instead")
        item = next(
            p["item"]
            for p in client.notifications("item/completed")
            if p["item"]["type"] == "fileChange"
        )
        assert item["status"] == "failed"
        assert editor.buffers[doc].text == UNSAVED

    output = _patch_output(scripted_model)
    assert "the user rejected the change" in output
    assert (ws / "app.py").read_text() == ON_DISK
    assert not (ws / "notes.txt").exists()


async def test_a_buffer_changed_after_planning_is_not_clobbered(home, ws, scripted_model):
    # The user types between the agent reading the file and the edit arriving: the versioned
    # edit no longer matches and the editor refuses it.
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    scripted_model.enqueue(text_response("retry later", response_id="resp_2"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", UNSAVED, version=1)
        original = client.apply_workspace_edit

        def type_then_apply(params):
            client.editor.buffers[doc].version += 1  # a keystroke the server has not seen yet
            return original(params)

        client.apply_workspace_edit = type_then_apply
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "say hello instead")
        assert editor.buffers[doc].text == UNSAVED
    assert "version" in _patch_output(scripted_model)


async def test_moves_and_deletes_are_resource_operations(home, ws, scripted_model):
    patch = """*** Begin Patch
*** Update File: old.py
*** Move to: pkg/new.py
@@
-x = 1
+x = 2
*** Delete File: app.py
*** End Patch"""
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_patch"))
    scripted_model.enqueue(text_response("moved", response_id="resp_2"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        client.open(ws / "old.py", "x = 1\n")
        client.open(ws / "app.py", ON_DISK)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "move it")
        [request] = editor.edits
        kinds = [type(c).__name__ for c in request.edit.document_changes]
        assert kinds == ["RenameFile", "TextDocumentEdit", "DeleteFile"]
    assert (ws / "pkg" / "new.py").read_text() == "x = 2\n"
    assert not (ws / "old.py").exists() and not (ws / "app.py").exists()


async def test_without_apply_edit_the_server_writes_to_disk(home, ws, scripted_model):
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    scripted_model.enqueue(text_response("Edited.", response_id="resp_2"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor, apply_edit=False) as client:
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "say hello instead")
        assert completed["turn"]["status"] == "completed"
        assert editor.edits == [], "a client without applyEdit is never sent one"
    assert (ws / "app.py").read_text() == 'print("hello")\n'
    assert (ws / "notes.txt").read_text() == "written by the agent\n"
