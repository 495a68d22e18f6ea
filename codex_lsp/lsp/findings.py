"""Review findings as the language server holds them, and the diagnostics they become.

The engine reports a finding with an absolute path and 1-based inclusive lines; here it is kept
with the document URI the editor knows the file by and 0-based lines, because those lines move
as the user edits (see `line_tracking`) and the diagnostic is re-derived from them each time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from codex_lsp.protocol.core.inputs import ReviewFinding, ReviewOutputEvent

SOURCE = "codex"
CORRECT = "patch is correct"
INCORRECT = "patch is incorrect"

# P0 blocks a release, P3 is a nit. A nit is still a finding: not a Hint, which editors show
# only as dots and the Problems panel leaves out; the diagnostic's code says P2 or P3.
SEVERITIES = {
    0: types.DiagnosticSeverity.Error,
    1: types.DiagnosticSeverity.Warning,
    2: types.DiagnosticSeverity.Information,
    3: types.DiagnosticSeverity.Information,
}


@dataclass
class Finding:
    """One finding of a review, placed in a document."""

    id: str
    thread_id: str
    turn_id: str
    title: str
    body: str
    priority: int
    confidence: float
    path: str
    uri: str
    start: int  # first line, 0-based
    end: int  # last line, 0-based, inclusive

    @property
    def code(self) -> str:
        return f"P{self.priority}"

    @property
    def message(self) -> str:
        return f"{self.title}\n\n{self.body}" if self.body else self.title

    def range(self) -> types.Range:
        # Whole lines: from the start of the first to the start of the line after the last.
        return types.Range(
            start=types.Position(line=self.start, character=0),
            end=types.Position(line=self.end + 1, character=0),
        )

    def diagnostic(self) -> types.Diagnostic:
        return types.Diagnostic(
            range=self.range(),
            message=self.message,
            severity=SEVERITIES.get(self.priority, types.DiagnosticSeverity.Information),
            code=self.code,
            source=SOURCE,
            data={"findingId": self.id, "confidence": self.confidence, "threadId": self.thread_id},
        )

    def overlaps(self, selection: types.Range) -> bool:
        """Whether `selection` touches any of the finding's lines."""
        first, last = covered_lines(selection)
        return self.start <= last and first <= self.end

    def as_json(self) -> dict[str, Any]:
        """The finding in `codex/review/completed`: where it is now, in LSP and in 1-based
        terms, so a chat panel can both link to it and print it."""
        return {
            "id": self.id,
            "title": self.title,
            "body": self.body,
            "priority": self.priority,
            "confidence": self.confidence,
            "path": self.path,
            "uri": self.uri,
            "lineRange": {"start": self.start + 1, "end": self.end + 1},
            "range": {
                "start": {"line": self.start, "character": 0},
                "end": {"line": self.end + 1, "character": 0},
            },
        }


def covered_lines(selection: types.Range) -> tuple[int, int]:
    """The 0-based inclusive lines a range covers; one ending at column 0 of a later line does
    not cover that line (that is how a whole-line selection ends)."""
    first, last = selection.start.line, selection.end.line
    if selection.end.character == 0 and last > first:
        last -= 1
    return first, max(first, last)


@dataclass
class ReviewVerdict:
    """A finished review: the overall verdict and its findings."""

    thread_id: str
    turn_id: str
    correctness: str
    explanation: str
    confidence: float
    findings: list[Finding]

    @property
    def correct(self) -> bool:
        return self.correctness == CORRECT

    @property
    def failed(self) -> bool:
        """No verdict at all: the engine's stand-in for an answer it could not parse."""
        return self.correctness not in (CORRECT, INCORRECT) and not self.findings


def verdict_from_output(
    output: ReviewOutputEvent, thread_id: str, turn_id: str, uri_for: Callable[[str], str]
) -> ReviewVerdict:
    """The engine's `ReviewOutputEvent` as a verdict with placed findings.

    `uri_for(path)` names the document a finding's file is shown as. Finding ids are unique to
    the review's turn, so a command naming an old review's finding finds nothing.
    """
    findings = [
        _finding(raw, f"{turn_id}:{index}", thread_id, turn_id, uri_for)
        for index, raw in enumerate(output.findings)
    ]
    return ReviewVerdict(
        thread_id=thread_id,
        turn_id=turn_id,
        correctness=output.overall_correctness,
        explanation=output.overall_explanation.strip(),
        confidence=output.overall_confidence_score,
        findings=findings,
    )


def _finding(
    raw: ReviewFinding,
    finding_id: str,
    thread_id: str,
    turn_id: str,
    uri_for: Callable[[str], str],
) -> Finding:
    location = raw.code_location
    path = location.absolute_file_path
    lines = location.line_range
    first, last = sorted((max(1, lines.start), max(1, lines.end)))
    return Finding(
        id=finding_id,
        thread_id=thread_id,
        turn_id=turn_id,
        title=raw.title.strip(),
        body=raw.body.strip(),
        priority=min(3, max(0, raw.priority)),
        confidence=raw.confidence_score,
        path=path,
        uri=uri_for(path),
        start=first - 1,
        end=last - 1,
    )
