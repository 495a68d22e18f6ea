"""Journey: the user edits the buffer while a proposal is shown, then accepts it: the
proposal no longer fits, and both the user and the model are told."""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, tool_output, workspace
from tests.support.scripted_builders import custom_tool_call_response, text_response

HELLO = (
    "*** Begin Patch\n"
    "*** Update File: app.py\n"
    "@@ def main():\n"
    '-    print("hi")\n'
    '+    print("hello")\n'
    "*** End Patch"
)


def test_accepting_after_an_edit(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", HELLO, call_id="p1"))
    scripted_model.enqueue(text_response("The file changed; leaving it.", response_id="r2"))

    check(run_suite("accept_after_change", tmp_path, codex_home=home, workspace=ws))

    told = tool_output(scripted_model.requests[1].body, "p1")
    assert "changed" in told, told  # the model is told why the patch did not land
