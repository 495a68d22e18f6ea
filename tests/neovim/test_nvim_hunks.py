"""Journey: deciding a proposal hunk by hunk (]c / [c to move, accept one, reject the other)."""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, workspace
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


def test_accept_one_hunk_and_reject_the_other(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model, {"calc.py": CALC})
    scripted_model.enqueue(custom_tool_call_response("apply_patch", TWO_HUNKS, call_id="p1"))
    scripted_model.enqueue(text_response("Done.", response_id="r2"))

    check(run_suite("hunks", tmp_path, codex_home=home, workspace=ws))

    assert (ws / "calc.py").read_text() == CALC  # the editor holds the change until it is saved
