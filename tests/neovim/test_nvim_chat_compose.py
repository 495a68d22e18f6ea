"""Journey: writing in the chat's input area.

A multi-line message reaches the model intact, with the unsaved buffer, the selection, the
editor's diagnostics and a named file attached (sent as data; the server words them); history,
completion and slash commands work; the thread picker leaves out inline-edit threads.
"""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import APP, check, turn_texts, user_texts, workspace
from tests.support.scripted_builders import custom_tool_call_response, text_response

LOUD = (
    "*** Begin Patch\n"
    "*** Update File: app.py\n"
    "@@ def main():\n"
    '-    print("hi")\n'
    '+    print("HI")\n'
    "*** End Patch"
)
MESSAGE = "first line\nsecond line, see #buffer and #selection\nthird: @util.py and #diagnostics"


def test_a_composed_message_with_context_reaches_the_model(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model, {"app.py": APP, "util.py": "ANSWER = 42\n"})
    scripted_model.enqueue(custom_tool_call_response("apply_patch", LOUD, call_id="p1"))
    scripted_model.enqueue(text_response("Leaving it.", response_id="r2"))
    scripted_model.enqueue(text_response("Got it.", response_id="r3"))

    check(run_suite("compose", tmp_path, codex_home=home, workspace=ws))

    sent = next(
        turn_texts(r.body) for r in scripted_model.requests if MESSAGE in user_texts(r.body)
    )
    # The user's words are the message; the context follows as the engine's instructions.
    message, told = sent[0], "\n".join(sent[1:])
    assert message == MESSAGE
    buffer = told[told.index("`app.py`:") :]
    assert "# unsaved line" in buffer and 'print("hi")' in buffer
    assert '`app.py`, line 3:\n```py\n    print("hi")\n```' in told
    assert "app.py:3 warning: print is frowned upon (lint)" in told
    assert "`util.py`:\n```py\nANSWER = 42\n```" in told
