"""Acting on a review finding from the editor: "Fix with Codex", "Explain", and a finding that
is gone. Each runs a turn on the review's thread against the scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.test_lsp_review import (
    APP_V2,
    changed_repo,
    developer_text,
    first_findings,
    lines,
    quick_fixes,
    review,
    review_answer,
    run_action,
    shown,
    shown_user_messages,
    user_text,
)
from tests.support.engine import write_config
from tests.support.lsp_client import Editor, EditorSession, uri
from tests.support.scripted_builders import custom_tool_call_response, text_response

P = types.DiagnosticSeverity


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return changed_repo(tmp_path / "ws")


FIX_PATCH = """*** Begin Patch
*** Update File: app.py
@@ def mean(values):
     total = sum(values)
-    return total / len(values)
+    return total / len(values) if values else 0.0
*** End Patch"""


async def test_fix_with_codex_ends_in_an_edit_of_the_open_buffer(home, ws, scripted_model):
    # Every patch asks first, so the fix goes through the approval prompt like any other.
    write_config(home, scripted_model.base_url, approval_policy="untrusted")
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", FIX_PATCH, call_id="call_fix"))
    scripted_model.enqueue(text_response("Guarded the empty case.", response_id="resp_done"))
    editor = Editor(choose=lambda params: "Approve")
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", APP_V2, version=4)
        verdict = await review(client)

        [fix, _, _] = await quick_fixes(client, ws / "app.py", 3)
        assert fix.title == "Fix with Codex: [P1] Empty input divides by zero"
        assert fix.is_preferred
        started = await run_action(client, fix)
        assert started["threadId"] == verdict["threadId"], "the fix runs on the review's thread"
        completed = await client.turn_completed(started["threadId"], started["turn"]["id"])
        assert completed["turn"]["status"] == "completed"

        [prompt] = editor.prompts
        assert "Codex wants to change 1 file" in prompt.message and "app.py" in prompt.message
        [applied] = editor.edits
        [change] = applied.edit.document_changes
        assert change.text_document.uri == doc and change.text_document.version == 4
        assert editor.buffers[doc].text == APP_V2.replace(
            "return total / len(values)", "return total / len(values) if values else 0.0"
        )
        # The fixed finding's line was rewritten: its diagnostic goes, the other one stays.
        await client.wait_until(lambda: len(shown(client, ws / "app.py")) == 1)
        assert shown(client, ws / "app.py") == [(lines(6, 7), P.Information, "P2")]

        # The thread shows the request as the user made it, not the instructions.
        fix_request = "Fix: [P1] Empty input divides by zero (app.py:3)"
        assert shown_user_messages(client, started["threadId"])[-1] == fix_request

    fixed = APP_V2.replace(
        "return total / len(values)", "return total / len(values) if values else 0.0"
    )
    assert (ws / "app.py").read_text() == fixed, "the fix is on disk for the next command"
    assert user_text(scripted_model.requests[1]) == fix_request
    told = developer_text(scripted_model.requests[1])
    assert "smallest change" in told and "apply_patch" in told
    assert "[P1] Empty input divides by zero\nFile: `app.py`, line 3" in told
    assert "Why: Empty input divides by zero." in told
    assert "```py\n    return total / len(values)\n```" in told


async def test_explain_answers_in_the_thread_without_editing(home, ws, scripted_model):
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    scripted_model.enqueue(text_response("mean([]) divides 0 by 0.", response_id="resp_explain"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        verdict = await review(client)
        [_, explain, _] = await quick_fixes(client, ws / "util.py", 2)
        assert explain.title == "Explain: [P0] A negative LIMIT disables the check"
        started = await run_action(client, explain)
        assert started["threadId"] == verdict["threadId"]
        await client.turn_completed(started["threadId"], started["turn"]["id"])
        answer = next(
            p["item"]
            for p in client.notifications("item/completed")
            if p["turnId"] == started["turn"]["id"] and p["item"]["type"] == "agentMessage"
        )
        assert answer["text"] == "mean([]) divides 0 by 0."
        assert editor.edits == [] and editor.prompts == []
        assert len(shown(client, ws / "util.py")) == 1, "explaining does not dismiss"

    asked = user_text(scripted_model.requests[1])
    assert asked == "Explain: [P0] A negative LIMIT disables the check (util.py:1-2)"
    told = developer_text(scripted_model.requests[1])
    assert told.startswith("Explain this code review finding to the user")
    assert "[P0] A negative LIMIT disables the check\nFile: `util.py`, lines 1-2" in told
    assert "LIMIT = -1\nDEBUG = True" in told


async def test_a_finding_that_is_gone_cannot_be_acted_on(home, ws, scripted_model):
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    async with EditorSession(home, ws) as client:
        await review(client)
        [fix, _, dismiss] = await quick_fixes(client, ws / "new.py", 1)
        await run_action(client, dismiss)
        with pytest.raises(Exception, match="no longer shown"):
            await run_action(client, fix)
    assert len(scripted_model.requests) == 1, "no turn was started for it"


GUARD_PATCH = """*** Begin Patch
*** Update File: app.py
@@ def mean(values):
+    if not values:
+        return 0.0
     total = sum(values)
*** End Patch"""


async def test_an_applied_fix_takes_its_finding_away_even_when_its_lines_only_moved(
    home, ws, scripted_model
):
    # The guard goes above the finding's line, which moves down unchanged.
    write_config(home, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", GUARD_PATCH, call_id="c1"))
    scripted_model.enqueue(text_response("Guarded.", response_id="resp_done"))
    editor = Editor()
    async with EditorSession(home, ws, editor=editor) as client:
        doc = client.open(ws / "app.py", APP_V2, version=1)
        await review(client)
        [fix, _, _] = await quick_fixes(client, ws / "app.py", 3)
        started = await run_action(client, fix)
        await client.turn_completed(started["threadId"], started["turn"]["id"])
        assert "if not values" in editor.buffers[doc].text
        # Only the P2 finding is left on app.py, moved down by the two new lines.
        await client.wait_until(lambda: len(shown(client, ws / "app.py")) == 1)
        assert shown(client, ws / "app.py") == [(lines(8, 9), P.Information, "P2")]


async def test_a_declined_fix_leaves_its_finding(home, ws, scripted_model):
    write_config(home, scripted_model.base_url, approval_policy="untrusted")
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", GUARD_PATCH, call_id="c1"))
    scripted_model.enqueue(text_response("Left it.", response_id="resp_done"))
    editor = Editor(choose=lambda params: "Deny")
    async with EditorSession(home, ws, editor=editor) as client:
        client.open(ws / "app.py", APP_V2, version=1)
        await review(client)
        [fix, _, _] = await quick_fixes(client, ws / "app.py", 3)
        started = await run_action(client, fix)
        await client.turn_completed(started["threadId"], started["turn"]["id"])
        assert len(shown(client, ws / "app.py")) == 2


async def test_findings_come_back_on_resume_after_a_restart_without_the_settled_ones(
    home, ws, scripted_model
):
    write_config(home, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", GUARD_PATCH, call_id="c1"))
    scripted_model.enqueue(text_response("Guarded.", response_id="resp_done"))
    async with EditorSession(home, ws) as client:
        verdict = await review(client)
        thread_id = verdict["threadId"]
        [fix, _, _] = await quick_fixes(client, ws / "app.py", 3)
        started = await run_action(client, fix)
        await client.turn_completed(thread_id, started["turn"]["id"])
        [_, _, dismiss] = await quick_fixes(client, ws / "new.py", 1)
        await run_action(client, dismiss)
        await client.wait_until(lambda: not shown(client, ws / "new.py"))

    # A new server (a reloaded window): nothing is shown until the thread is resumed.
    async with EditorSession(home, ws) as client:
        assert not client.diagnostics.get(uri(ws / "util.py"))
        await client.codex("thread/resume", {"threadId": thread_id})
        await client.wait_until(lambda: shown(client, ws / "util.py"))
        assert shown(client, ws / "util.py") == [(lines(1, 2), P.Error, "P0")]
        assert [code for _, _, code in shown(client, ws / "app.py")] == ["P2"]
        assert not shown(client, ws / "new.py"), "the dismissed finding stays dismissed"
