"""Journey: the chat's /model and /compact slash commands, as the model sees them.

/model NAME and /model (picked from the server's list) change the model of the next turns;
/compact makes the model summarize the thread, and the next turn starts from that summary.
"""

from __future__ import annotations

import re

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, user_texts, workspace
from tests.support.scripted_builders import text_response

SUMMARY = "SUMMARY: the user asked three questions, all answered."


def _texts(body: dict) -> str:
    return "\n".join(
        part.get("text", "")
        for item in body["input"]
        for part in item.get("content") or []
        if isinstance(part, dict)
    )


def test_model_and_compact(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    for n, text in enumerate(["First answer.", "Second answer.", "Third answer."]):
        scripted_model.enqueue(text_response(text, response_id=f"r{n}"))
    scripted_model.enqueue(text_response(SUMMARY, response_id="r_summary"))
    scripted_model.enqueue(text_response("Fourth answer.", response_id="r4"))

    run = run_suite("slash", tmp_path, codex_home=home, workspace=ws)
    check(run)
    chosen = re.search(r"^CHOSEN (\S+)$", run.stdout, re.MULTILINE)
    assert chosen, run.report()

    first, second, third, compaction, after = (r.body for r in scripted_model.requests)
    assert "first question" in user_texts(first) and first["model"] == "gpt-5.4"
    assert "second question" in user_texts(second) and second["model"] == "gpt-5.4-mini"
    assert "third question" in user_texts(third) and third["model"] == chosen[1]
    assert "Write a context checkpoint" in _texts(compaction)  # the summarization request
    assert "Third answer." in _texts(compaction)
    assert "after compacting" in user_texts(after)
    assert SUMMARY in _texts(after)
    assert "Second answer." not in _texts(after)  # the history was replaced by the summary
