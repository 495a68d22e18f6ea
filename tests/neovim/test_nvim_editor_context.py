"""Journey: the model reads the editor through the editor_* tools, answered by the Neovim
plugin: the unsaved buffer text, the selection, another source's diagnostic, the open files."""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import APP, check, tool_output, workspace
from tests.support.scripted_builders import function_call_response, text_response

CALLS = [
    ("c1", "editor_read_buffer", {"path": "app.py"}),
    ("c2", "editor_selection", {}),
    ("c3", "editor_diagnostics", {"path": "app.py"}),
    ("c4", "editor_open_buffers", {}),
]


def test_the_plugin_answers_the_editor_tools(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    for n, (call_id, name, arguments) in enumerate(CALLS):
        scripted_model.enqueue(
            function_call_response(name, arguments, call_id=call_id, response_id=f"r{n}")
        )
    scripted_model.enqueue(text_response("Seen it all.", response_id="r_end"))

    check(run_suite("editor_context", tmp_path, codex_home=home, workspace=ws))

    offered = {t.get("name") for t in scripted_model.requests[0].body.get("tools") or []}
    assert {name for _, name, _ in CALLS} <= offered
    last = scripted_model.requests[-1].body
    unsaved = "# typed, not saved\n" + APP
    numbered = "\n".join(f"L{n}: {line}" for n, line in enumerate(unsaved.splitlines(), start=1))
    assert tool_output(last, "c1") == (
        f"app.py (python, unsaved changes), lines 1-5 of 5:\n{numbered}"
    )
    assert (ws / "app.py").read_text() == APP  # what the model read was never on disk
    selection = tool_output(last, "c2")
    assert "Focused file: app.py (python)" in selection
    assert 'from line 3, column 1 to line 3, column 16:\n    print("hi")' in selection
    assert tool_output(last, "c3") == (
        "Diagnostics in the editor (1 in 1 file):\n"
        "app.py:3:5: warning [lint] print is frowned upon (P001)"
    )
    assert tool_output(last, "c4") == "Open in the editor (1):\napp.py  [python, unsaved changes]"
