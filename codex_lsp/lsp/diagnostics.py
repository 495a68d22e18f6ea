"""Code review surfaced as diagnostics: each finding on its lines, following the user's edits.

The feature watches the v2 notifications the API sends. A turn that announced an
`enteredReviewMode` item is a review; when it completes, the structured findings are read from
the API (the items carry only the rendered text) and published with
`textDocument/publishDiagnostics`, replacing the previous review's everywhere (files with no
findings left are cleared). The verdict goes out as the `codex/review/completed` notification
(for chat panels) and a `window/showMessage` (Info for a correct patch, Warning for an incorrect
one). A review that failed or was
interrupted says so and leaves the last review's diagnostics as they were: it found nothing new.

Diagnostics follow edits: the text each file had when its findings were last placed is kept,
and on `didOpen`/`didChange`/`didClose` the findings are carried over to the new text
(`line_tracking`), shifted when lines above them moved and dropped when their own lines changed.

Findings stay true: a finding whose Fix turn applied a change leaves the editor, and so does a
dismissed one; both are remembered (`store.review_marks`), so when a thread is resumed after a
restart of the server (a window reload) and nothing is shown, its latest review comes back
without them.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Literal, Protocol

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from codex_lsp.lsp.findings import Finding, ReviewVerdict, verdict_from_output
from codex_lsp.lsp.line_tracking import follow_edit, split_lines
from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.protocol.threads.notifications import (
    ItemCompletedNotification,
    ItemStartedNotification,
    TurnCompletedNotification,
)
from codex_lsp.protocol.turns.items import EnteredReviewModeThreadItem, FileChangeThreadItem
from codex_lsp.protocol.turns.models import Turn

if TYPE_CHECKING:
    from codex_lsp.lsp.observers import NotificationObservers
    from codex_lsp.lsp.server import CodexLanguageServer
    from codex_lsp.protocol.core.inputs import ReviewOutputEvent

logger = logging.getLogger(__name__)

REVIEW_COMPLETED = "codex/review/completed"
# How the engine's explanation of a review that produced no verdict begins.
_FAILED_PREFIX = "The review failed:"
MAX_REASON_CHARS = 300

Resolution = Literal["fixed", "dismissed"]


class ReviewSource(Protocol):
    """Where the findings come from and where their settling is remembered (the engine host)."""

    def last_review(self, thread_id: str) -> ReviewOutputEvent | None:
        """The thread's latest finished review."""

    def resumed_review(self, thread_id: str) -> tuple[str, ReviewOutputEvent] | None:
        """The review a resumed thread had finished before, with its turn id."""

    def settled_findings(self, thread_id: str) -> dict[str, Resolution]: ...

    def settle_finding(self, thread_id: str, finding_id: str, resolution: Resolution) -> None: ...


class ReviewDiagnostics:
    def __init__(self, server: CodexLanguageServer, source: ReviewSource) -> None:
        self._server = server
        self._source = source
        self._findings: dict[str, list[Finding]] = {}
        # The text each file with findings had when they were last placed; None if unreadable.
        self._texts: dict[str, str | None] = {}
        self._review_turns: set[tuple[str, str]] = set()
        # Fix turns by (thread, turn): the finding each fixes, and whether a change landed.
        self._fixes: dict[tuple[str, str], tuple[str, bool]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def register(self, server: CodexLanguageServer) -> None:
        server.feature(types.TEXT_DOCUMENT_DID_OPEN)(plain_handler(self.on_open))
        server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(plain_handler(self.on_change))
        server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(plain_handler(self.on_close))

    # -- the findings -----------------------------------------------------------------------

    def find(self, finding_id: str) -> Finding | None:
        for findings in self._findings.values():
            for finding in findings:
                if finding.id == finding_id:
                    return finding
        return None

    def overlapping(self, uri: str, selection: types.Range) -> list[Finding]:
        key = self._known_uri(uri)
        return [f for f in self._findings.get(key, []) if f.overlaps(selection)] if key else []

    def dismiss(self, finding_id: str, resolution: Resolution = "dismissed") -> Finding | None:
        """Take one finding off the editor for good; the finding, or None if it is not shown."""
        finding = self.find(finding_id)
        if finding is None:
            return None
        remaining = [f for f in self._findings[finding.uri] if f.id != finding_id]
        self._set(finding.uri, remaining)
        try:
            self._source.settle_finding(finding.thread_id, finding_id, resolution)
        except Exception:
            logger.warning("could not remember %s as %s", finding_id, resolution, exc_info=True)
        return finding

    def fixing(self, thread_id: str, turn_id: str, finding_id: str) -> None:
        """`turn_id` fixes `finding_id`: once it has applied a change, the finding goes."""
        self._fixes[(thread_id, turn_id)] = (finding_id, False)

    def thread_resumed(self, thread_id: str) -> None:
        """Show the resumed thread's latest review again, less what was settled, when the editor
        shows no findings (a restarted server): switching threads must not swap the Problems."""
        if self._findings:
            return
        found = self._source.resumed_review(thread_id)
        if found is None:
            return
        turn_id, output = found
        verdict = verdict_from_output(output, thread_id, turn_id, self.document_uri)
        settled = self._source.settled_findings(thread_id)
        verdict.findings = [f for f in verdict.findings if f.id not in settled]
        if not verdict.failed and verdict.findings:
            self.replace(verdict)

    def current_text(self, uri: str) -> str | None:
        """The document as the user sees it: the open buffer, else the file on disk."""
        try:
            return self._server.workspace.get_text_document(uri).source
        except (OSError, UnicodeDecodeError, RuntimeError):
            return None

    def replace(self, verdict: ReviewVerdict) -> None:
        """Show `verdict`'s findings in place of everything shown before."""
        previous = set(self._findings)
        grouped: dict[str, list[Finding]] = {}
        for finding in verdict.findings:
            grouped.setdefault(finding.uri, []).append(finding)
        self._findings, self._texts = {}, {}
        for uri, findings in grouped.items():
            text = self.current_text(uri)
            self._texts[uri] = text
            if text is not None:
                _clamp(findings, _last_line(text))
            self._set(uri, findings)
        for uri in previous - set(grouped):
            self._publish(uri, [])

    def _set(self, uri: str, findings: list[Finding]) -> None:
        if findings:
            self._findings[uri] = findings
        else:
            self._findings.pop(uri, None)
            self._texts.pop(uri, None)
        self._publish(uri, findings)

    def _publish(self, uri: str, findings: list[Finding]) -> None:
        ordered = sorted(findings, key=lambda f: (f.start, f.priority))
        self._server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[f.diagnostic() for f in ordered])
        )

    def _known_uri(self, uri: str) -> str | None:
        """The URI findings are kept under for the document `uri` names (editors differ in how
        they escape paths, so the path decides)."""
        if uri in self._findings:
            return uri
        wanted = _normalized_path(uri)
        return next((known for known in self._findings if _normalized_path(known) == wanted), None)

    def document_uri(self, path: str) -> str:
        """The URI of the editor's open document for `path`, else the file URI of `path`."""
        wanted = os.path.normpath(path)
        try:
            open_uris: list[str] = list(self._server.workspace.text_documents)
        except RuntimeError:
            open_uris = []
        for uri in open_uris:
            if _normalized_path(uri) == wanted:
                return uri
        file_uri: str | None = from_fs_path(path)
        return file_uri or path

    # -- following edits --------------------------------------------------------------------

    def on_open(self, params: types.DidOpenTextDocumentParams) -> None:
        # The buffer may hold unsaved text that differs from the file the findings were placed in.
        self._follow(params.text_document.uri)

    def on_change(self, params: types.DidChangeTextDocumentParams) -> None:
        self._follow(params.text_document.uri)

    def on_close(self, params: types.DidCloseTextDocumentParams) -> None:
        # A buffer closed without saving leaves the file as it is on disk.
        self._follow(params.text_document.uri)

    def _follow(self, uri: str) -> None:
        key = self._known_uri(uri)
        if key is None:
            return
        before, after = self._texts.get(key), self.current_text(key)
        if after is None or before == after:
            return
        self._texts[key] = after
        if before is None:
            return  # nothing to compare with: keep the findings where they are
        findings = self._findings[key]
        moved = follow_edit(before, after, [(f.start, f.end) for f in findings])
        kept: list[Finding] = []
        changed = False
        for finding, span in zip(findings, moved, strict=True):
            if span is None:
                changed = True
                continue
            if span != (finding.start, finding.end):
                finding.start, finding.end = span
                changed = True
            kept.append(finding)
        if changed:
            self._set(key, kept)

    # -- reviews ending ---------------------------------------------------------------------

    def subscribe(self, observers: NotificationObservers) -> None:
        observers.on(ItemStartedNotification, self._item_seen)
        observers.on(ItemCompletedNotification, self._item_seen)
        observers.on(TurnCompletedNotification, self._turn_completed)

    def _item_seen(self, notice: ItemStartedNotification | ItemCompletedNotification) -> None:
        key = (notice.thread_id, notice.turn_id)
        item = notice.item
        if isinstance(item, EnteredReviewModeThreadItem):
            self._review_turns.add(key)
        applied = isinstance(item, FileChangeThreadItem) and item.status == "completed"
        if applied and isinstance(notice, ItemCompletedNotification) and key in self._fixes:
            self._fixes[key] = (self._fixes[key][0], True)

    def _turn_completed(self, notice: TurnCompletedNotification) -> None:
        key = (notice.thread_id, notice.turn.id)
        fix = self._fixes.pop(key, None)
        if fix is not None and fix[1]:
            self.dismiss(fix[0], "fixed")
        if key in self._review_turns:
            self._review_turns.discard(key)
            self._spawn(self._review_ended(notice.thread_id, notice.turn))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("publishing the review failed", exc_info=task.exception())

    async def _review_ended(self, thread_id: str, turn: Turn) -> None:
        turn_id = turn.id
        if turn.status == "interrupted":
            self._show(types.MessageType.Info, "Codex review interrupted.")
            return
        if turn.status != "completed":
            self._show_failure((turn.error.message if turn.error else "") or "unknown error")
            return
        output = self._source.last_review(thread_id)
        if output is None:
            self._show_failure("its findings could not be read")
            return
        verdict = verdict_from_output(output, thread_id, turn_id, self.document_uri)
        if verdict.failed:
            self._show_failure(verdict.explanation)
            return
        self.replace(verdict)
        if self._server.codex_client:
            self._server.protocol.send_notification(REVIEW_COMPLETED, verdict_json(verdict))
        kind = types.MessageType.Info if verdict.correct else types.MessageType.Warning
        self._show(kind, verdict_message(verdict))

    def _show_failure(self, reason: str) -> None:
        self._show(types.MessageType.Error, failure_message(reason))

    def _show(self, kind: types.MessageType, message: str) -> None:
        self._server.window_show_message(types.ShowMessageParams(type=kind, message=message))


def verdict_json(verdict: ReviewVerdict) -> dict[str, Any]:
    """The params of `codex/review/completed`."""
    return {
        "threadId": verdict.thread_id,
        "turnId": verdict.turn_id,
        "overallCorrectness": verdict.correctness,
        "overallExplanation": verdict.explanation,
        "overallConfidence": verdict.confidence,
        "findings": [finding.as_json() for finding in verdict.findings],
    }


def verdict_message(verdict: ReviewVerdict) -> str:
    count = len(verdict.findings)
    found = f"{count} finding{'' if count == 1 else 's'}"
    text = f"Codex review: {verdict.correctness} ({found})."
    return f"{text} {verdict.explanation}" if verdict.explanation else text


def failure_message(reason: str) -> str:
    """One line on why a review gave no verdict, short enough for a popup: the engine's
    explanation on one line, cut at `MAX_REASON_CHARS` (the whole of it is in the thread)."""
    text = reason.strip()
    if text.startswith(_FAILED_PREFIX):
        text = text[len(_FAILED_PREFIX) :]
    text = " ".join(text.split()) or "unknown error"
    if len(text) > MAX_REASON_CHARS:
        text = text[: MAX_REASON_CHARS - 1].rstrip() + "…"
    return f"Codex review failed: {text}"


def _clamp(findings: list[Finding], last_line: int) -> None:
    # A reviewer may name lines past the end of the file; show those on its last line.
    for finding in findings:
        finding.end = min(finding.end, last_line)
        finding.start = min(finding.start, finding.end)


def _last_line(text: str) -> int:
    """The 0-based index of the last line holding text (a final line break ends a line, it
    does not start one)."""
    lines = split_lines(text)
    last = len(lines) - 1
    return last - 1 if last > 0 and lines[-1] == "" else last


def _normalized_path(uri: str) -> str | None:
    path = to_fs_path(uri)
    return os.path.normpath(path) if path else None
