"""Hunk-level approval: the user keeps some hunks of a patch and declines others.

An editor with change annotations gets a patch that needs approval as one `workspace/applyEdit`
with an annotation per hunk needing confirmation; an editor that renders approvals itself
answers with the hunks it declined. Either way only the kept hunks land and the model is told
which were left out. Editors without either keep the prompt and the whole-patch answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import Editor, EditorSession
from tests.support.scripted_builders import custom_tool_call_response, text_response

CALC = (
    "def first():\n    return 1\n\n\n"
    + "".join(f"# filler {i}\n" for i in range(6))
    + "\ndef second():\n    return 2\n"
)
TWO_HUNKS = (
    "*** Begin Patch\n"
    "*** Update File: calc.py\n"
    "@@ def first():\n"
    "-    return 1\n"
    "+    return 10\n"
    "@@ def second():\n"
    "-    return 2\n"
    "+    return 20\n"
    "*** End Patch"
)
ONLY_FIRST = CALC.replace("return 1\n", "return 10\n")
BOTH = ONLY_FIRST.replace("return 2\n", "return 20\n")


def _workspace(tmp_path: Path, scripted_model: Any) -> tuple[Path, Path]:
    home = tmp_path / "home"
    # `untrusted` asks before every patch, inside the workspace too.
    write_config(home, scripted_model.base_url, approval_policy="untrusted")
    return home, make_git_repo(tmp_path / "ws", {"calc.py": CALC})


def _tool_output(scripted_model: Any, call_id: str) -> str:
    body = scripted_model.requests[-1].body
    return next(
        item["output"]
        for item in body["input"]
        if item.get("type") == "custom_tool_call_output" and item.get("call_id") == call_id
    )


def _enqueue_patch(scripted_model: Any) -> None:
    scripted_model.enqueue(custom_tool_call_response("apply_patch", TWO_HUNKS, call_id="p1"))
    scripted_model.enqueue(text_response("Done.", response_id="r2"))


async def test_a_declined_annotation_leaves_its_hunk_out_and_the_model_is_told(
    tmp_path, scripted_model
):
    home, ws = _workspace(tmp_path, scripted_model)
    _enqueue_patch(scripted_model)
    asked: list[types.ChangeAnnotation] = []

    def confirm(annotation_id: str, annotation: types.ChangeAnnotation) -> bool:
        asked.append(annotation)
        return "hunk 1 of 2" in annotation.label  # the user unticks the second hunk

    editor = Editor(confirm=confirm)
    async with EditorSession(home, ws, editor=editor, annotations=True) as client:
        doc = client.open(ws / "calc.py", CALC)
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "make both numbers bigger")
        assert completed["turn"]["status"] == "completed"

        assert editor.prompts == []  # the edit preview was the approval: no message prompt
        [request] = editor.edits
        annotations = request.edit.change_annotations or {}
        assert len(annotations) == 2
        assert all(a.needs_confirmation for a in annotations.values())
        assert [a.label for a in asked] == ["calc.py: hunk 1 of 2", "calc.py: hunk 2 of 2"]
        assert "+    return 20" in (asked[1].description or "")
        assert editor.buffers[doc].text == ONLY_FIRST
        assert (ws / "calc.py").read_text() == ONLY_FIRST, "what the user kept is on disk"

        output = _tool_output(scripted_model, "p1")
        assert "M calc.py" in output
        assert "The user declined 1 of 2 hunks; it was not applied:" in output
        assert "+    return 20" in output and "+    return 10" not in output
        [item] = [
            p["item"]
            for p in client.notifications("item/completed")
            if p["item"]["type"] == "fileChange"
        ]
        assert item["status"] == "completed"
        assert "return 20" not in item["changes"][0]["diff"]


async def test_declining_every_hunk_declines_the_patch(tmp_path, scripted_model):
    home, ws = _workspace(tmp_path, scripted_model)
    _enqueue_patch(scripted_model)
    editor = Editor(confirm=lambda annotation_id, annotation: False)
    async with EditorSession(home, ws, editor=editor, annotations=True) as client:
        doc = client.open(ws / "calc.py", CALC)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "make both numbers bigger")

        assert editor.buffers[doc].text == CALC
        output = _tool_output(scripted_model, "p1")
        assert output.startswith("patch rejected by user")
        assert "The user declined 2 of 2 hunks" in output
        [item] = [
            p["item"]
            for p in client.notifications("item/completed")
            if p["item"]["type"] == "fileChange"
        ]
        assert item["status"] == "declined"


async def test_a_client_answering_approvals_itself_names_the_hunks_it_declined(
    tmp_path, scripted_model
):
    home, ws = _workspace(tmp_path, scripted_model)
    _enqueue_patch(scripted_model)

    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        [change] = params["codexLsp"]["changes"]
        assert change["diff"].count("\n@@ ") + change["diff"].startswith("@@ ") == 2
        return {"decision": "accept", "declinedHunks": [{"path": change["path"], "index": 1}]}

    editor = Editor(rich_answer=answer)
    async with EditorSession(home, ws, editor=editor, rich=True) as client:
        doc = client.open(ws / "calc.py", CALC)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "make both numbers bigger")

        assert [m for m, _ in editor.rich_requests] == ["item/fileChange/requestApproval"]
        [request] = editor.edits
        assert not request.edit.change_annotations  # already approved: nothing to confirm
        assert editor.buffers[doc].text == ONLY_FIRST
        output = _tool_output(scripted_model, "p1")
        assert "The user declined 1 of 2 hunks; it was not applied:" in output
        assert "calc.py @@ -13 +13 @@" in output


async def test_an_editor_without_annotations_keeps_the_prompt(tmp_path, scripted_model):
    home, ws = _workspace(tmp_path, scripted_model)
    _enqueue_patch(scripted_model)
    editor = Editor(choose=lambda params: "Approve")
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "calc.py", CALC)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "make both numbers bigger")

        assert len(editor.prompts) == 1
        [request] = editor.edits
        assert not request.edit.change_annotations
        assert editor.buffers[doc].text == BOTH
        assert "declined" not in _tool_output(scripted_model, "p1")
