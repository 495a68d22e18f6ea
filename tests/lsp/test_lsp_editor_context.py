"""The editor as context: the model reads the editor's buffers, selection and diagnostics.

An editor that declares `experimental.codex.editorContext` answers `codex/editor/*` requests,
and the model gets four tools backed by them; any other editor gets none of the tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import Editor, EditorSession, uri
from tests.support.scripted_builders import function_call_response, text_response

ON_DISK = "def total(xs):\n    return sum(xs)\n"
UNSAVED = "def total(xs):\n    # not saved yet\n    return sum(x for x in xs)\n"
EDITOR_TOOLS = {"editor_open_buffers", "editor_read_buffer", "editor_selection"}
EDITOR_TOOLS |= {"editor_diagnostics"}


def _workspace(tmp_path: Path, scripted_model: Any) -> tuple[Path, Path]:
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    return home, make_git_repo(tmp_path / "ws", {"calc.py": ON_DISK, "other.py": "x = 1\n"})


def _output(scripted_model: Any, call_id: str) -> str:
    for request in scripted_model.requests:
        for item in request.body["input"]:
            if item.get("type") == "function_call_output" and item.get("call_id") == call_id:
                output = item["output"]
                return output if isinstance(output, str) else str(output)
    raise AssertionError(f"no output for {call_id}")


def _offered(scripted_model: Any) -> set[str]:
    return {tool.get("name") for tool in scripted_model.requests[0].body.get("tools") or []}


async def test_the_model_reads_unsaved_text_selection_and_other_servers_diagnostics(
    tmp_path, scripted_model
):
    home, ws = _workspace(tmp_path, scripted_model)
    calls = [
        ("c1", "editor_open_buffers", {}),
        ("c2", "editor_read_buffer", {"path": "calc.py", "start_line": 2, "end_line": 3}),
        ("c3", "editor_selection", {}),
        ("c4", "editor_diagnostics", {"path": "calc.py"}),
        ("c5", "editor_read_buffer", {"path": "other.py"}),
    ]
    for n, (call_id, name, arguments) in enumerate(calls):
        scripted_model.enqueue(
            function_call_response(name, arguments, call_id=call_id, response_id=f"r{n}")
        )
    scripted_model.enqueue(text_response("I see it.", response_id="r_end"))
    calc = uri(ws / "calc.py")
    editor = Editor(
        selection={
            "uri": calc,
            "languageId": "python",
            "selections": [
                {
                    "range": {
                        "start": {"line": 2, "character": 11},
                        "end": {"line": 2, "character": 29},
                    },
                    "text": "sum(x for x in xs)",
                }
            ],
            "cursor": {"line": 2, "character": 29},
        },
        diagnostics={
            calc: [
                {
                    "range": {
                        "start": {"line": 0, "character": 10},
                        "end": {"line": 0, "character": 12},
                    },
                    "severity": 2,
                    "source": "pyright",
                    "code": "reportMissingParameterType",
                    "message": 'Type annotation is missing for parameter "xs"',
                }
            ]
        },
    )
    async with EditorSession(home, ws, editor=editor, codex={"editorContext": True}) as client:
        client.open(ws / "calc.py", UNSAVED)
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "what am I looking at?")
        assert completed["turn"]["status"] == "completed"

    assert _offered(scripted_model) >= EDITOR_TOOLS
    assert _output(scripted_model, "c1") == (
        "Open in the editor (1):\ncalc.py  [python, unsaved changes]"
    )
    assert _output(scripted_model, "c2") == (
        "calc.py (python, unsaved changes), lines 2-3 of 3:\n"
        "L2:     # not saved yet\n"
        "L3:     return sum(x for x in xs)"
    )
    selection = _output(scripted_model, "c3")
    assert "Focused file: calc.py (python)" in selection
    assert "Cursor: line 3, column 30" in selection
    assert "from line 3, column 12 to line 3, column 30:\nsum(x for x in xs)" in selection
    assert _output(scripted_model, "c4") == (
        "Diagnostics in the editor (1 in 1 file):\n"
        'calc.py:1:11: warning [pyright] Type annotation is missing for parameter "xs" '
        "(reportMissingParameterType)"
    )
    assert "other.py is not open in the editor" in _output(scripted_model, "c5")
    asked = [method for method, _ in editor.context_requests]
    assert asked == [
        "editor/openBuffers",
        "editor/readBuffer",
        "editor/selection",
        "editor/diagnostics",
        "editor/readBuffer",
    ]
    assert editor.context_requests[1][1] == {"uri": calc}


async def test_without_the_capability_no_editor_tool_is_offered(tmp_path, scripted_model):
    home, ws = _workspace(tmp_path, scripted_model)
    scripted_model.enqueue(text_response("Hello."))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        await client.run_turn(thread_id, "hi")

    assert _offered(scripted_model)  # the usual tools are there
    assert not EDITOR_TOOLS & _offered(scripted_model)
    assert editor.context_requests == []


async def test_an_editor_error_is_a_failed_tool_call_and_the_turn_goes_on(tmp_path, scripted_model):
    home, ws = _workspace(tmp_path, scripted_model)
    scripted_model.enqueue(function_call_response("editor_selection", {}, call_id="c1"))
    scripted_model.enqueue(text_response("Never mind.", response_id="r2"))
    editor = Editor(selection={"uri": 42})  # not a selection at all
    async with EditorSession(home, ws, editor=editor, codex={"editorContext": True}) as client:
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "what is selected?")
        assert completed["turn"]["status"] == "completed"
    assert "the editor could not answer editor_selection" in _output(scripted_model, "c1")
