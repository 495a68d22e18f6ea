"""The disk is the truth for commands: a patch the editor applied is on disk before the next
tool call runs, and the server's copy of a document follows its own edits.

The test editor applies `workspace/applyEdit` to its buffers without saving them, as editors
do; with `lag_changes` it also holds back the `didChange` of an applied edit, as editors that
sync on an idle timer do (eglot, Neovim's debounce).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.support.engine import make_git_repo
from tests.support.lsp_client import Editor, EditorSession
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

ON_DISK = "def greet():\n    return 'hi'\n"
UNSAVED = "# typed by the user, not saved\ndef greet():\n    return 'hi'\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path / "ws", {"app.py": ON_DISK})


def _tool_outputs(scripted_model) -> list[str]:
    body = scripted_model.requests[-1].body
    return [
        str(i["output"])
        for i in body["input"]
        if i.get("type") in ("custom_tool_call_output", "function_call_output")
    ]


def _cat(ws: Path, *names: str, call_id: str = "call_cat") -> list:
    return function_call_response(
        "exec_command",
        {"cmd": "cat " + " ".join(names), "workdir": str(ws)},
        call_id=call_id,
        response_id=f"resp_{call_id}",
    )


def _replace(path: str, old: str, new: str, n: int) -> list:
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch"
    return custom_tool_call_response(
        "apply_patch", patch, call_id=f"call_patch_{n}", response_id=f"resp_patch_{n}"
    )


async def test_a_command_after_a_patch_reads_the_new_text(home, ws, scripted_model):
    patch = """*** Begin Patch
*** Update File: app.py
@@
-    return 'hi'
+    return 'hello'
*** Add File: notes.txt
+written by the agent
*** End Patch"""
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_patch"))
    scripted_model.enqueue(_cat(ws, "app.py", "notes.txt"))
    scripted_model.enqueue(text_response("Done.", response_id="resp_done"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", ON_DISK, version=1)
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "say hello")
        assert completed["turn"]["status"] == "completed"
        assert editor.buffers[doc].text == "def greet():\n    return 'hello'\n"
        [request] = editor.edits
        uris = {
            c.text_document.uri if hasattr(c, "text_document") else c.uri
            for c in request.edit.document_changes
        }
        assert uris == {doc}, "a file no buffer shows is not sent to the editor"

    cat_output = _tool_outputs(scripted_model)[-1]
    assert "return 'hello'" in cat_output and "return 'hi'" not in cat_output
    assert "written by the agent" in cat_output
    assert (ws / "app.py").read_text() == "def greet():\n    return 'hello'\n"
    assert (ws / "notes.txt").read_text() == "written by the agent\n"


async def test_the_users_unsaved_text_is_saved_with_the_change(home, ws, scripted_model):
    # The agent read the buffer, unsaved lines included, and patched that text: the disk gets
    # exactly what the buffer shows.
    scripted_model.enqueue(_replace("app.py", "    return 'hi'", "    return 'hello'", 1))
    scripted_model.enqueue(text_response("Done.", response_id="resp_done"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", UNSAVED, version=4)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "say hello")
        expected = "# typed by the user, not saved\ndef greet():\n    return 'hello'\n"
        assert editor.buffers[doc].text == expected
    assert (ws / "app.py").read_text() == expected


async def test_a_refused_edit_writes_nothing(home, ws, scripted_model):
    scripted_model.enqueue(_replace("app.py", "    return 'hi'", "    return 'hello'", 1))
    scripted_model.enqueue(text_response("Could not.", response_id="resp_done"))
    editor = Editor(refuse_edits="the user said no")
    async with EditorSession(home, ws, editor=editor) as client:
        client.open(ws / "app.py", UNSAVED, version=4)
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "say hello")
    assert (ws / "app.py").read_text() == ON_DISK
    assert "the user said no" in _tool_outputs(scripted_model)[-1]


@pytest.mark.parametrize("patches", [2, 5])
async def test_patches_in_a_row_land_while_the_editor_lags(home, ws, scripted_model, patches):
    lines = [f"x{n} = {n}\n" for n in range(patches)]
    (ws / "app.py").write_text("".join(lines))
    for n in range(patches):
        scripted_model.enqueue(_replace("app.py", f"x{n} = {n}", f"x{n} = {n * 10 + 1}", n))
    scripted_model.enqueue(_cat(ws, "app.py"))
    scripted_model.enqueue(text_response("All done.", response_id="resp_done"))
    editor = Editor(lag_changes=True)
    expected = "".join(f"x{n} = {n * 10 + 1}\n" for n in range(patches))
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", "".join(lines), version=0)
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "change them all")
        assert completed["turn"]["status"] == "completed"
        assert len(editor.edits) == patches
        assert editor.buffers[doc].text == expected
        outputs = _tool_outputs(scripted_model)
        assert all("Success" in out for out in outputs[:patches]), outputs
        # The editor catches up late; the next patch still fits.
        client.flush_changes()
        scripted_model.enqueue(_replace("app.py", "x0 = 1", "x0 = 100", 99))
        scripted_model.enqueue(text_response("One more.", response_id="resp_more"))
        await client.run_turn(thread_id, "one more")
        assert editor.buffers[doc].text.startswith("x0 = 100\n")
    assert outputs[patches].count("= ") == patches and expected.strip() in outputs[patches]
    assert (ws / "app.py").read_text().startswith("x0 = 100\n")


def _escalated_cat(ws: Path, name: str) -> list:
    return function_call_response(
        "exec_command",
        {
            "cmd": f"cat {name}",
            "workdir": str(ws),
            "sandbox_permissions": "require_escalated",
            "justification": "to check the file",
        },
        call_id="call_cat",
        response_id="resp_cat",
    )


@pytest.mark.parametrize("patches", [2, 5])
async def test_a_plain_client_gets_the_answer_prompts_and_the_files(
    home, ws, scripted_model, patches
):
    # No experimental.codex, no window.showMessage capability, a lagging didChange: eglot.
    lines = [f"x{n} = {n}\n" for n in range(patches)]
    (ws / "app.py").write_text("".join(lines))
    for n in range(patches):
        scripted_model.enqueue(_replace("app.py", f"x{n} = {n}", f"x{n} = {n * 10 + 1}", n))
    scripted_model.enqueue(_escalated_cat(ws, "app.py"))
    scripted_model.enqueue(text_response("All numbers changed.", response_id="resp_done"))
    editor = Editor(lag_changes=True)
    expected = "".join(f"x{n} = {n * 10 + 1}\n" for n in range(patches))
    async with EditorSession(home, ws, editor=editor, plain=True) as client:
        doc = client.open(ws / "app.py", "".join(lines), version=0)
        await client.command("codex.ask", {"prompt": "change them all", "uri": doc})
        answer = await client.wait_until(
            lambda: next((m for m in client.messages if "All numbers" in m.message), None)
        )
        assert answer.message == "Codex: All numbers changed."
        assert answer.type == types.MessageType.Info
        assert any("All numbers changed." in m.message for m in client.log_messages)

        [prompt] = editor.prompts  # the command's approval, as a message prompt
        assert "cat app.py" in prompt.message
        assert editor.buffers[doc].text == expected
        outputs = _tool_outputs(scripted_model)
        assert all("Success" in out for out in outputs[:patches]), outputs
        assert expected.strip() in outputs[patches], "the command read the patched file"
        assert client.protocol.codex_notifications == []
        # The turn's progress, as `$/progress` of a token the server created.
        assert any(
            isinstance(r, types.WorkDoneProgressBegin)
            for reports in client.progress_reports.values()
            for r in reports
        )
    assert (ws / "app.py").read_text() == expected


async def test_a_plain_client_is_told_why_a_turn_failed(home, ws, scripted_model):
    from tests.support.scripted_builders import response_failed

    for _ in range(3):
        scripted_model.enqueue(response_failed("server_error", "the model is down"))
    async with EditorSession(home, ws, plain=True) as client:
        doc = client.open(ws / "app.py", ON_DISK)
        await client.command("codex.ask", {"prompt": "hello?", "uri": doc})
        failed = await client.wait_until(
            lambda: next((m for m in client.messages if "turn failed" in m.message), None)
        )
        assert failed.type == types.MessageType.Error
        assert "the model is down" in failed.message
        assert client.protocol.codex_notifications == []


async def test_a_plain_client_starts_work_from_code_actions(home, ws, scripted_model):
    scripted_model.enqueue(text_response("It greets.", response_id="resp_done"))
    async with EditorSession(home, ws, plain=True) as client:
        doc = client.open(ws / "app.py", ON_DISK)
        selection = types.Range(start=types.Position(0, 0), end=types.Position(2, 0))
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc),
            range=selection,
            context=types.CodeActionContext(diagnostics=[]),
        )
        actions = await client.text_document_code_action_async(params) or []
        titles = [a.title for a in actions]
        assert titles == ["Ask Codex", "Edit selection with Codex", "Review this file"]
        by_title = {a.title: a for a in actions if isinstance(a, types.CodeAction)}
        assert by_title["Review this file"].command.command == "codex.review"
        assert by_title["Edit selection with Codex"].command.command == "codex.edit"

        ask = by_title["Ask Codex"].command
        await client.command(ask.command, *(ask.arguments or []))
        answer = await client.wait_until(
            lambda: next((m for m in client.messages if "It greets" in m.message), None)
        )
        assert answer.message == "Codex: It greets."
        sent = str(scripted_model.requests[-1].body["input"])
        assert "Explain this code" in sent and "return 'hi'" in sent


NO_TMP = "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"


@pytest.mark.parametrize("target", ["a folder", ".git"])
async def test_the_write_after_the_editor_stays_in_the_roots(tmp_path, scripted_model, target):
    # While the editor applies the edit, a process swaps the file's folder for a symlink
    # (out of the roots, or into the protected .git): the server's own write of the change
    # then refuses to follow it, and the patch fails instead of landing there.
    from tests.support.engine import write_config

    home = tmp_path / "home"
    # The test's folders live under /tmp: keep it out of the roots, as for a real project.
    write_config(home, scripted_model.base_url, extra=NO_TMP)
    ws = make_git_repo(tmp_path / "ws", {"sub/app.py": ON_DISK})
    outside = tmp_path / "outside" if target == "a folder" else ws / ".git"
    outside.mkdir(exist_ok=True)
    (outside / "app.py").write_text(ON_DISK)
    scripted_model.enqueue(_replace("sub/app.py", "    return 'hi'", "    return 'hello'", 1))
    scripted_model.enqueue(text_response("Tried.", response_id="resp_done"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        client.open(ws / "sub" / "app.py", ON_DISK)
        applying = client.apply_workspace_edit

        def swap_then_apply(params):
            (ws / "sub").rename(ws / "sub.checked")
            (ws / "sub").symlink_to(outside)
            return applying(params)

        client.apply_workspace_edit = swap_then_apply
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "say hello")
    assert (outside / "app.py").read_text() == ON_DISK
    output = _tool_outputs(scripted_model)[-1]
    assert "writing it to disk failed" in output, output
