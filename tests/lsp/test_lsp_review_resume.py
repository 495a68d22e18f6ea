"""A review's findings come back when its thread is resumed on a new server (after a crash or
a restart of the editor), placed on the lines of the file as it is now."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.test_lsp_review import APP_V2, changed_repo, first_findings, review, review_answer
from tests.support.lsp_client import EditorSession, uri


async def test_resuming_a_reviewed_thread_shows_its_findings_again(home, tmp_path, scripted_model):
    ws = changed_repo(tmp_path / "ws")
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    async with EditorSession(home, ws) as client:
        client.open(ws / "app.py", APP_V2)
        verdict = await review(client)
        before = [d.range for d in client.diagnostics[uri(ws / "app.py")]]
    thread_id = verdict["threadId"]

    async with EditorSession(home, ws) as client:
        client.open(ws / "app.py", APP_V2)
        assert not client.diagnostics.get(uri(ws / "app.py"))
        await client.codex("thread/resume", {"threadId": thread_id})
        await client.wait_until(lambda: client.diagnostics.get(uri(ws / "app.py")))
        after = client.diagnostics[uri(ws / "app.py")]
        assert [d.range for d in after] == before
        assert [d.code for d in after] == ["P1", "P2"]
        # They are findings again: their code actions work.
        cursor = types.Position(line=2, character=0)
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri(ws / "app.py")),
                range=types.Range(start=cursor, end=cursor),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert any(a.title.startswith("Dismiss") for a in actions or [])
