"""Code review in the editor: findings as diagnostics, quick fixes on them, `codex.review`.

The real server runs against the scripted model, on git repositories made here with real
history; the test editor records what a user would see: diagnostics per file, messages, the
quick fixes offered, and its buffers after an edit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.support.engine import make_git_repo
from tests.support.lsp_client import EditorClient, EditorSession, uri
from tests.support.scripted_builders import text_response

APP_V1 = "def mean(values):\n    return sum(values) / len(values)\n"
APP_V2 = (
    "def mean(values):\n"  # 1
    "    total = sum(values)\n"  # 2
    "    return total / len(values)\n"  # 3
    "\n"  # 4
    "\n"  # 5
    "def ratio(a, b):\n"  # 6
    "    return a / b\n"  # 7
    "\n"  # 8
    "\n"  # 9
    "def main():\n"  # 10
    "    print(mean([]))\n"  # 11
)
UTIL_V1 = "LIMIT = 10\n"
UTIL_V2 = "LIMIT = -1\nDEBUG = True\n"
NEW = "SECRET = 'hunter2'\n"

P = types.DiagnosticSeverity


def lines(first: int, last: int) -> types.Range:
    """The diagnostic range of 1-based lines `first`..`last`."""
    return types.Range(
        start=types.Position(line=first - 1, character=0),
        end=types.Position(line=last, character=0),
    )


def finding(
    title: str, path: Path, first: int, last: int, priority: int, **extra: Any
) -> dict[str, Any]:
    return {
        "title": title,
        "body": extra.get("body", f"Why: {title[5:]}."),
        "confidence_score": extra.get("confidence", 0.8),
        "priority": priority,
        "code_location": {
            "absolute_file_path": str(path),
            "line_range": {"start": first, "end": last},
        },
    }


def review_answer(*findings: dict[str, Any], correct: bool = False, why: str = "Bugs.") -> list:
    """The reviewer's final message: the review JSON, as the model sends it."""
    verdict = {
        "findings": list(findings),
        "overall_correctness": "patch is correct" if correct else "patch is incorrect",
        "overall_explanation": why,
        "overall_confidence_score": 0.7,
    }
    return text_response(json.dumps(verdict))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return changed_repo(tmp_path / "ws")


def changed_repo(path: Path) -> Path:
    """A repository with one commit, then uncommitted edits and an untracked file."""
    repo = make_git_repo(path, {"app.py": APP_V1, "util.py": UTIL_V1})
    (repo / "app.py").write_text(APP_V2)
    (repo / "util.py").write_text(UTIL_V2)
    (repo / "new.py").write_text(NEW)
    return repo


def first_findings(ws: Path) -> list[dict[str, Any]]:
    return [
        finding("[P1] Empty input divides by zero", ws / "app.py", 3, 3, 1),
        finding("[P2] ratio does not guard b == 0", ws / "app.py", 6, 7, 2, confidence=0.4),
        finding("[P0] A negative LIMIT disables the check", ws / "util.py", 1, 2, 0),
        finding("[P3] Secret committed in source", ws / "new.py", 1, 1, 3),
    ]


async def review(client: EditorClient, target: dict[str, Any] | None = None, **extra: Any) -> dict:
    """Run `codex.review`; the `codex/review/completed` params once it has finished and its
    message is shown."""
    done, shown_before = len(client.notifications("review/completed")), len(client.messages)
    started = await client.command(
        "codex.review", {"target": target or {"type": "uncommittedChanges"}, **extra}
    )
    assert started["turn"]["status"] == "inProgress"
    await client.wait_until(
        lambda: (
            len(client.notifications("review/completed")) > done
            and len(client.messages) > shown_before
        )
    )
    return client.notifications("review/completed")[-1]


def shown(client: EditorClient, path: Path) -> list[tuple[types.Range, Any, str]]:
    """What the editor shows for `path`: (range, severity, code) of each diagnostic."""
    return [(d.range, d.severity, d.code) for d in client.diagnostics.get(uri(path), [])]


async def quick_fixes(client: EditorClient, path: Path, line: int) -> list[types.CodeAction]:
    """The code actions for the cursor at the start of 1-based `line`."""
    cursor = types.Position(line=line - 1, character=0)
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)),
            range=types.Range(start=cursor, end=cursor),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return list(result or [])


async def run_action(client: EditorClient, action: types.CodeAction) -> Any:
    assert action.command is not None
    return await client.command(action.command.command, *(action.command.arguments or []))


def user_text(request: Any) -> str:
    """The text of the last user message of a model request: what this turn asked."""
    messages = [
        item
        for item in request.body["input"]
        if item.get("type") == "message" and item.get("role") == "user"
    ]
    return "\n".join(part.get("text", "") for part in messages[-1]["content"])


def developer_text(request: Any) -> str:
    """The instructions that follow this turn's user message: what the engine told the model
    and the transcript does not show."""
    items = request.body["input"]
    users = [n for n, item in enumerate(items) if item.get("role") == "user"]
    after = [item for item in items[users[-1] + 1 :] if item.get("role") == "developer"]
    return "\n".join(part.get("text", "") for item in after for part in item["content"])


def shown_user_messages(client: EditorClient, thread_id: str) -> list[str]:
    """The text of each `userMessage` item the thread announced: what every client shows."""
    return [
        "\n".join(c.get("text", "") for c in p["item"]["content"])
        for p in client.notifications("item/completed")
        if p["threadId"] == thread_id and p["item"]["type"] == "userMessage"
    ]


# -- findings as diagnostics -----------------------------------------------------------------


async def test_review_of_uncommitted_changes_puts_each_finding_on_its_lines(
    home, ws, scripted_model
):
    scripted_model.enqueue(review_answer(*first_findings(ws), why="One crash, one leak."))
    async with EditorSession(home, ws) as client:
        client.open(ws / "app.py", APP_V2)
        verdict = await review(client)

        assert shown(client, ws / "app.py") == [
            (lines(3, 3), P.Warning, "P1"),
            (lines(6, 7), P.Information, "P2"),
        ]
        assert shown(client, ws / "util.py") == [(lines(1, 2), P.Error, "P0")]
        # Listed in the Problems panel, which leaves hints out; its code says P3.
        assert shown(client, ws / "new.py") == [(lines(1, 1), P.Information, "P3")]
        first = client.diagnostics[uri(ws / "app.py")][0]
        assert first.source == "codex"
        assert (
            first.message == "[P1] Empty input divides by zero\n\nWhy: Empty input divides by zero."
        )
        thread_id = verdict["threadId"]
        assert first.data == {
            "findingId": first.data["findingId"],
            "confidence": 0.8,
            "threadId": thread_id,
        }
        ratio = client.diagnostics[uri(ws / "app.py")][1]
        assert (
            ratio.data["confidence"] == 0.4 and ratio.data["findingId"] != first.data["findingId"]
        )

        # The verdict: a notification for chat panels and a message for everyone.
        assert verdict["overallCorrectness"] == "patch is incorrect"
        assert verdict["overallExplanation"] == "One crash, one leak."
        assert verdict["overallConfidence"] == 0.7
        assert [(f["path"], f["lineRange"], f["priority"]) for f in verdict["findings"]] == [
            (str(ws / "app.py"), {"start": 3, "end": 3}, 1),
            (str(ws / "app.py"), {"start": 6, "end": 7}, 2),
            (str(ws / "util.py"), {"start": 1, "end": 2}, 0),
            (str(ws / "new.py"), {"start": 1, "end": 1}, 3),
        ]
        [message] = client.messages
        assert message.type == types.MessageType.Warning
        assert message.message == (
            "Codex review: patch is incorrect (4 findings). One crash, one leak."
        )

    # The reviewer was shown the staged, unstaged and untracked changes.
    [request] = scripted_model.requests
    prompt = user_text(request)
    assert "+    return total / len(values)" in prompt
    assert "+LIMIT = -1" in prompt and "-LIMIT = 10" in prompt
    assert "new.py" in prompt and "+SECRET = 'hunter2'" in prompt


async def test_dismiss_removes_one_and_a_new_review_replaces_the_last(home, ws, scripted_model):
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    scripted_model.enqueue(
        review_answer(finding("[P2] Still leaking the secret", ws / "new.py", 1, 1, 2))
    )
    scripted_model.enqueue(review_answer(correct=True, why="Nothing blocks this."))
    async with EditorSession(home, ws) as client:
        client.open(ws / "app.py", APP_V2)
        await review(client)

        # The cursor on line 6 is on the ratio finding only: its three quick fixes.
        actions = await quick_fixes(client, ws / "app.py", 6)
        assert [a.title for a in actions] == [
            "Fix with Codex: [P2] ratio does not guard b == 0",
            "Explain: [P2] ratio does not guard b == 0",
            "Dismiss: [P2] ratio does not guard b == 0",
        ]
        assert await quick_fixes(client, ws / "app.py", 4) == []
        assert await run_action(client, actions[2]) == {"dismissed": True}
        await client.wait_until(lambda: len(shown(client, ws / "app.py")) == 1)
        assert shown(client, ws / "app.py") == [(lines(3, 3), P.Warning, "P1")]
        assert len(shown(client, ws / "util.py")) == 1, "other files keep their findings"
        assert await run_action(client, actions[2]) == {"dismissed": False}

        # The next review finds one thing elsewhere: the files it no longer names are cleared.
        await review(client)
        assert shown(client, ws / "app.py") == []
        assert shown(client, ws / "util.py") == []
        assert shown(client, ws / "new.py") == [(lines(1, 1), P.Information, "P2")]

        # A clean review clears everything and says so as information.
        await review(client)
        assert all(not diagnostics for diagnostics in client.diagnostics.values())
        assert client.messages[-1].type == types.MessageType.Info
        assert client.messages[-1].message == (
            "Codex review: patch is correct (0 findings). Nothing blocks this."
        )


def edit(client: EditorClient, path: Path, first: int, last: int, text: str) -> None:
    """The user replaces 0-based lines `first`..`last - 1` (an insertion when equal) with
    `text`, sent as one precise incremental change, as editors do."""
    doc_uri = uri(path)
    buffer = client.editor.buffers[doc_uri]
    old = buffer.text.splitlines(keepends=True)
    buffer.text = "".join(old[:first]) + text + "".join(old[last:])
    buffer.version += 1
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=doc_uri, version=buffer.version
            ),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=first, character=0),
                        end=types.Position(line=last, character=0),
                    ),
                    text=text,
                )
            ],
        )
    )


async def test_diagnostics_follow_edits_and_go_when_their_lines_are_rewritten(
    home, ws, scripted_model
):
    scripted_model.enqueue(review_answer(*first_findings(ws)))
    async with EditorSession(home, ws) as client:
        client.open(ws / "app.py", APP_V2)
        await review(client)
        app = ws / "app.py"

        # Two imports typed above both findings move them down two lines.
        edit(client, app, 0, 0, "import math\nimport sys\n")
        expected = [(lines(5, 5), P.Warning, "P1"), (lines(8, 9), P.Information, "P2")]
        await client.wait_until(lambda: shown(client, app) == expected)

        # Rewriting the line of the first finding takes it away; the other one stays put.
        edit(client, app, 4, 5, "    return total / len(values) if values else 0.0\n")
        await client.wait_until(lambda: len(shown(client, app)) == 1)
        assert shown(client, app) == [(lines(8, 9), P.Information, "P2")]

        # An editor that sends the whole text for a change is followed just as well.
        client.type_text(
            uri(app), "# -*- coding: utf-8 -*-\n" + client.editor.buffers[uri(app)].text
        )
        await client.wait_until(lambda: shown(client, app) == [(lines(9, 10), P.Information, "P2")])

        # The quick fixes follow the finding to its new lines.
        fix, _, _ = await quick_fixes(client, app, 10)
        assert fix.title == "Fix with Codex: [P2] ratio does not guard b == 0"
        assert await quick_fixes(client, app, 6) == []
        assert shown(client, ws / "util.py") == [(lines(1, 2), P.Error, "P0")]


async def test_a_malformed_review_answer_is_a_clear_failure_and_no_diagnostics(
    home, ws, scripted_model
):
    scripted_model.enqueue(text_response("Looks good to me, ship it!"))
    async with EditorSession(home, ws) as client:
        started = await client.command("codex.review", {"target": {"type": "uncommittedChanges"}})
        completed = await client.turn_completed(started["threadId"], started["turn"]["id"])
        assert completed["turn"]["status"] == "failed"
        await client.wait_until(lambda: client.messages)
        [message] = client.messages
        assert message.type == types.MessageType.Error
        assert message.message.startswith(
            "Codex review failed: the reviewer's answer could not be parsed as a review"
        )
        assert "ship it!" in message.message
        assert client.diagnostics == {}
        assert client.notifications("review/completed") == []
