"""Journey: deciding a proposal hunk by hunk (]c / [c to move, accept one, reject the other).

The answer names the rejected hunk: the server applies only the accepted one and the model is
told which hunk the user declined."""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, tool_output, workspace
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

    # The hunk the user kept is written as it lands; the declined one is not.
    assert (ws / "calc.py").read_text() == CALC.replace("return 1\n", "return 10\n")
    told = tool_output(scripted_model.requests[-1].body, "p1")
    assert "The user declined 1 of 2 hunks; it was not applied:" in told
    assert "calc.py @@" in told and "+    return 20" in told
    assert "+    return 10" not in told
