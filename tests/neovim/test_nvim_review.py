"""Journey: a code review in Neovim.

Findings become diagnostics and quickfix items exactly as long as the finding, with one message
for the review; code actions stay on the finding's lines; "Explain" shows its answer in the
chat; "Fix with Codex" is previewed inline like any edit (under `on-request`, where a patch in
the workspace needs no approval) and lands when accepted.
"""

from __future__ import annotations

import json

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, workspace
from tests.support.scripted_builders import custom_tool_call_response, text_response

DIVIDE = 'def main():\n    print("hi")\n\n\ndef divide(a, b):\n    return a / b\n\n\nmain()\n'
FIX_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: app.py\n"
    "@@ def divide(a, b):\n"
    "-    return a / b\n"
    "+    if b == 0:\n"
    '+        raise ValueError("b must not be zero")\n'
    "+    return a / b\n"
    "*** End Patch"
)


def test_review_findings_explain_and_a_previewed_fix(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    (ws / "app.py").write_text(DIVIDE)  # the uncommitted change under review
    app = str(ws / "app.py")
    findings = {
        "findings": [
            {
                "title": "[P1] Guard against division by zero",
                "body": "`divide(1, 0)` raises ZeroDivisionError.",
                "confidence_score": 0.9,
                "priority": 1,
                "code_location": {"absolute_file_path": app, "line_range": {"start": 5, "end": 6}},
            },
            {
                "title": "[P3] Say hello",
                "body": "The greeting is terse.",
                "confidence_score": 0.4,
                "priority": 3,
                "code_location": {"absolute_file_path": app, "line_range": {"start": 2, "end": 2}},
            },
        ],
        "overall_correctness": "patch is incorrect",
        "overall_explanation": "One blocking bug.",
        "overall_confidence_score": 0.8,
    }
    scripted_model.enqueue(text_response(json.dumps(findings), response_id="review"))
    scripted_model.enqueue(
        text_response("It divides by zero when b is 0.", response_id="resp_explain"),
        when="Explain this code review finding",
    )
    scripted_model.enqueue(custom_tool_call_response("apply_patch", FIX_PATCH, call_id="fix"))
    scripted_model.enqueue(text_response("Guarded the division.", response_id="resp_fix"))

    check(run_suite("review", tmp_path, codex_home=home, workspace=ws))

    review_prompt = str(scripted_model.requests[0].body)
    assert "uncommitted" in review_prompt.lower() or "git diff" in review_prompt.lower()
    # The fix is written as it lands, for the next command to see.
    assert 'raise ValueError("b must not be zero")' in (ws / "app.py").read_text()
