"""Journey: approving in Neovim with the change in sight.

A chat turn asks to run a command, then to change a file no window shows. While each
vim.ui.select prompt is open, the screen (read from a UI attached to the headless Neovim) shows
the command, or the file's diff, next to the prompt.
"""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, tool_output, workspace
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

UTIL = "def answer():\n    return 1\n"
UTIL_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: util.py\n"
    "@@ def answer():\n"
    "-    return 1\n"
    "+    return 42\n"
    "*** End Patch"
)


def test_command_and_file_change_are_on_screen_while_the_prompt_is_open(scripted_model, tmp_path):
    home, ws = workspace(
        tmp_path,
        scripted_model,
        {"app.py": 'print("hi")\n', "util.py": UTIL},
        approval_policy="untrusted",
    )
    command = "printf 'built ok\\n' > build.log; cat build.log"
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": command, "workdir": str(ws), "justification": "write the build log"},
            call_id="c1",
        )
    )
    scripted_model.enqueue(
        custom_tool_call_response("apply_patch", UTIL_PATCH, call_id="p1", response_id="resp_2")
    )
    scripted_model.enqueue(text_response("Both done.", response_id="resp_3"))

    check(run_suite("approval_screen", tmp_path, codex_home=home, workspace=ws, screen=True))

    assert "built ok" in tool_output(scripted_model.requests[1].body, "c1")
