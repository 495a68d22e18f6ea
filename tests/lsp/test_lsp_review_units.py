"""The pieces behind review diagnostics, without a server: placing findings, following edits,
the quick fixes offered, the prompts of the finding commands, and warnings as messages."""

from __future__ import annotations

import pytest
from lsprotocol import types

from codex_lsp.lsp.code_actions import finding_actions
from codex_lsp.lsp.diagnostics import failure_message, verdict_message
from codex_lsp.lsp.findings import covered_lines, verdict_from_output
from codex_lsp.lsp.line_tracking import follow_edit
from codex_lsp.lsp.notifications import warning_text
from codex_lsp.lsp.review_command import finding_task
from codex_lsp.protocol.config.write import ConfigWarningNotification
from codex_lsp.protocol.core.inputs import (
    ByteRange,
    ReviewCodeLocation,
    ReviewFinding,
    ReviewOutputEvent,
)
from codex_lsp.protocol.threads.notifications import WarningNotification

TEXT = "".join(f"line {n}\n" for n in range(1, 11))  # "line 1" is LSP line 0


def _finding(title: str, path: str, start: int, end: int, priority: int) -> ReviewFinding:
    return ReviewFinding(
        title=title,
        body=f"Why {title} matters.",
        confidence_score=0.75,
        priority=priority,
        code_location=ReviewCodeLocation(
            absolute_file_path=path, line_range=ByteRange(start=start, end=end)
        ),
    )


def _output(*findings: ReviewFinding) -> ReviewOutputEvent:
    return ReviewOutputEvent(
        findings=list(findings),
        overall_correctness="patch is incorrect",
        overall_explanation="Two bugs.",
        overall_confidence_score=0.5,
    )


def _pos(line: int, character: int = 0) -> types.Position:
    return types.Position(line=line, character=character)


# -- placing findings ------------------------------------------------------------------------


def test_findings_become_diagnostics_on_their_whole_lines_with_their_severity():
    output = _output(
        *(_finding(f"[P{p}] problem {p}", "/ws/a.py", 2 + p, 3 + p, p) for p in range(4))
    )
    verdict = verdict_from_output(output, "thread-1", "turn-1", lambda path: f"file://{path}")
    diagnostics = [f.diagnostic() for f in verdict.findings]

    assert [d.severity for d in diagnostics] == [
        types.DiagnosticSeverity.Error,
        types.DiagnosticSeverity.Warning,
        types.DiagnosticSeverity.Information,
        # Not Hint: the Problems panel does not list hints, and a review's every finding shows.
        types.DiagnosticSeverity.Information,
    ]
    first = diagnostics[0]
    # 1-based lines 2-3 are LSP lines 1-2, whole: up to the start of line 3.
    assert first.range == types.Range(start=_pos(1), end=_pos(3))
    assert (first.code, first.source) == ("P0", "codex")
    assert first.message == "[P0] problem 0\n\nWhy [P0] problem 0 matters."
    assert first.data == {"findingId": "turn-1:0", "confidence": 0.75, "threadId": "thread-1"}
    assert {f.uri for f in verdict.findings} == {"file:///ws/a.py"}
    assert not verdict.failed and not verdict.correct
    assert verdict_message(verdict) == "Codex review: patch is incorrect (4 findings). Two bugs."


def test_a_review_without_a_verdict_is_a_failure_told_in_one_short_line():
    failed = ReviewOutputEvent(
        overall_explanation="The review failed: the reviewer's answer could not be parsed as a "
        "review (expected a JSON object). Its answer was:\n\nLooks fine to me!\n\n" + "x" * 900
    )
    verdict = verdict_from_output(failed, "t", "u", str)
    assert verdict.failed
    message = failure_message(verdict.explanation)
    assert message.startswith(
        "Codex review failed: the reviewer's answer could not be parsed as a review "
        "(expected a JSON object). Its answer was: Looks fine to me! xxx"
    )
    assert len(message) < 350 and message.endswith("…") and "\n" not in message


def test_a_range_ending_at_a_line_start_does_not_cover_that_line():
    assert covered_lines(types.Range(start=_pos(2), end=_pos(4))) == (2, 3)
    assert covered_lines(types.Range(start=_pos(2, 3), end=_pos(2, 3))) == (2, 2)
    assert covered_lines(types.Range(start=_pos(2), end=_pos(4, 1))) == (2, 4)


# -- following edits -------------------------------------------------------------------------


def _replace_lines(text: str, first: int, last: int, new: list[str]) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:first] + [f"{line}\n" for line in new] + lines[last + 1 :])


def test_lines_inserted_or_deleted_above_move_a_span():
    inserted = _replace_lines(TEXT, 0, -1, ["import os", "import sys"])
    assert follow_edit(TEXT, inserted, [(4, 5), (0, 0)]) == [(6, 7), (2, 2)]
    deleted = _replace_lines(TEXT, 1, 2, [])
    assert follow_edit(TEXT, deleted, [(4, 5), (0, 0)]) == [(2, 3), (0, 0)]


def test_an_edit_touching_a_span_drops_it_and_spares_the_rest():
    edited = TEXT.replace("line 6\n", "line six\n")  # LSP line 5
    assert follow_edit(TEXT, edited, [(4, 5), (6, 7), (0, 3)]) == [None, (6, 7), (0, 3)]
    removed = _replace_lines(TEXT, 3, 5, [])
    assert follow_edit(TEXT, removed, [(4, 4), (8, 9)]) == [None, (5, 6)]


def test_whole_document_replacements_are_followed_line_by_line():
    # An editor sending the whole text for one change above and one below a span.
    new = "# header\n" + TEXT.replace("line 9\n", "line nine\nextra\n")
    assert follow_edit(TEXT, new, [(3, 4), (8, 8), (9, 9)]) == [(4, 5), None, (11, 11)]


def test_line_breaks_are_lsp_line_breaks():
    crlf = TEXT.replace("\n", "\r\n")
    assert follow_edit(crlf, "new\r\n" + crlf, [(2, 2)]) == [(3, 3)]
    # A form feed is not a line break in LSP: it does not move anything below it.
    assert follow_edit("a\fb\nc\n", "a\fB\nc\n", [(1, 1)]) == [(1, 1)]


# -- quick fixes and prompts -----------------------------------------------------------------


def test_each_finding_offers_fix_explain_and_dismiss_with_its_id():
    verdict = verdict_from_output(
        _output(_finding("[P1] Off by one", "/ws/a.py", 3, 3, 1)), "t", "u", str
    )
    [finding] = verdict.findings
    actions = finding_actions(finding)
    assert [a.title for a in actions] == [
        "Fix with Codex: [P1] Off by one",
        "Explain: [P1] Off by one",
        "Dismiss: [P1] Off by one",
    ]
    assert [a.command.command for a in actions] == [
        "codex.fixFinding",
        "codex.explainFinding",
        "codex.dismissFinding",
    ]
    assert all(a.command.arguments == [{"findingId": "u:0"}] for a in actions)
    assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)
    assert actions[0].is_preferred is True
    assert actions[0].diagnostics == [finding.diagnostic()]


def test_a_fix_task_names_the_finding_where_it_is_now_with_its_lines_as_the_editor_has_them():
    verdict = verdict_from_output(
        _output(_finding("[P1] Off by one", "/ws/src/a.py", 3, 4, 1)), "t", "u", str
    )
    [finding] = verdict.findings
    finding.start, finding.end = 5, 6  # the user added two lines above it since the review
    task = finding_task("fixFinding", finding, "0\n1\n2\n3\n4\ntwo ```\nthree\nfour\n")
    assert task == {
        "type": "fixFinding",
        "finding": {
            "title": "[P1] Off by one",
            "body": "Why [P1] Off by one matters.",
            "priority": 1,
            "path": "/ws/src/a.py",
            "lineRange": {"start": 6, "end": 7},
        },
        "text": "two ```\nthree\n",
    }


@pytest.mark.parametrize(
    ("notice", "shown"),
    [
        (
            WarningNotification(message="MCP server `x` failed to start"),
            "MCP server `x` failed to start",
        ),
        (ConfigWarningNotification(summary="bad key", details="line 3"), "bad key\nline 3"),
        (ConfigWarningNotification(summary="bad key"), "bad key"),
        (WarningNotification(message=""), None),
    ],
)
def test_warnings_are_shown_with_their_text(notice, shown):
    text = warning_text(notice)
    assert text == (None if shown is None else f"Codex: {shown}")
