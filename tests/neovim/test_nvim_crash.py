"""Journey: the server is killed (`kill -9`) in the middle of an answer.

The user is told, with a command that shows the log; the statusline and the thread stop saying
"running"; the half answer is marked as stopped; the server is started again and the same
thread resumed, the review's findings shown again; the next message continues that thread.
"""

from __future__ import annotations

import json

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, user_texts, workspace
from tests.support.scripted_builders import _item_event, created, message_item, text_response

APP = 'def main():\n    print("hi")\n\nmain()\n'


def test_crash_mid_answer_then_the_same_thread_goes_on(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    (ws / "app.py").write_text(APP.replace('"hi"', '"hi there"'))  # the change under review
    app = str(ws / "app.py")
    findings = {
        "findings": [
            {
                "title": "[P2] Keep the greeting short",
                "body": "The greeting grew.",
                "confidence_score": 0.5,
                "priority": 2,
                "code_location": {"absolute_file_path": app, "line_range": {"start": 2, "end": 2}},
            }
        ],
        "overall_correctness": "patch is correct",
        "overall_explanation": "Fine.",
        "overall_confidence_score": 0.8,
    }
    scripted_model.enqueue(text_response(json.dumps(findings), response_id="review"))
    # The answer starts, then the model goes quiet: the server is killed meanwhile.
    half = message_item("Once upon a time, there was")[:-1]
    # ... still streaming when it is killed: words keep coming until then.
    words = [
        step
        for _ in range(3000)
        for step in (
            _item_event("response.output_text.delta", "msg_1", 0, content_index=0, delta=" la"),
            {"stall_s": 0.005},
        )
    ]
    scripted_model.enqueue(
        [created("story"), *half, *words, {"stall_s": 120}], when="tell me a long story"
    )
    scripted_model.enqueue(text_response("The end.", response_id="resp_end"), when="and then?")

    check(run_suite("crash", tmp_path, codex_home=home, workspace=ws, screen=True))

    last = scripted_model.requests[-1].body
    said = "\n".join(user_texts(last))
    # The same thread: the message before the crash is in the history sent with the next one.
    assert "tell me a long story" in said and "and then?" in said
