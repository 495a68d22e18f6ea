"""What an editor door asks of the loaded threads beyond the v2 methods.

The language server shows a thread's review findings where the code is and remembers which
were settled, lists and takes back `approved_for_session` decisions, and resolves paths against
a thread's working directory. The app-server has no use for these; a door that does asks
`ApiServer.editor`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codex_lsp.api.threads.manager import ThreadManager
from codex_lsp.api.turns.review import resumed_review, thread_review
from codex_lsp.engine.approvals import RememberedApproval
from codex_lsp.protocol.core.inputs import ReviewOutputEvent
from codex_lsp.store.review_marks import Resolution, mark_finding, settled_findings


class EditorService:
    def __init__(self, threads: ThreadManager, codex_home: Callable[[], Path]) -> None:
        self._threads = threads
        self._codex_home = codex_home

    def thread_cwd(self, thread_id: str) -> Path | None:
        """The working directory a loaded thread's turns run in, or None if it is not loaded."""
        thread = self._threads.loaded.get(thread_id)
        return thread.cwd if thread is not None else None

    def session_approvals(self) -> list[tuple[str, RememberedApproval]]:
        """Every loaded thread's `approved_for_session` decisions, with the thread's id."""
        found: list[tuple[str, RememberedApproval]] = []
        for thread_id, thread in list(self._threads.loaded.items()):
            session = thread.codex.session
            if session is not None:
                found.extend((thread_id, entry) for entry in session.approval_cache.remembered())
        return found

    def forget_session_approval(self, thread_id: str, entry: RememberedApproval) -> bool:
        """Take back one `approved_for_session` decision; False when the thread had none such."""
        thread = self._threads.loaded.get(thread_id)
        session = thread.codex.session if thread is not None else None
        return session is not None and session.approval_cache.forget(entry.kind, entry.key)

    def last_review(self, thread_id: str) -> ReviewOutputEvent | None:
        """The structured findings of the latest review that finished on a loaded thread
        (files, line ranges, priorities), for a door that shows them where the code is.

        None when the thread is not loaded or has not finished a review. A review whose
        answer could not be parsed replaces the previous one with no findings; an interrupted
        one leaves the previous one in place. With `delivery: "detached"` the review belongs
        to the `reviewThreadId` thread.
        """
        return thread_review(self._threads.loaded.get(thread_id))

    def resumed_review(self, thread_id: str) -> tuple[str, ReviewOutputEvent] | None:
        """The latest review that finished before the loaded thread was resumed, with the id of
        its turn: what a door shows again after a restart."""
        return resumed_review(self._threads.loaded.get(thread_id))

    def settled_findings(self, thread_id: str) -> dict[str, Resolution]:
        """The thread's review findings the user fixed or dismissed, by finding id."""
        return settled_findings(self._codex_home(), thread_id)

    def settle_finding(self, thread_id: str, finding_id: str, resolution: Resolution) -> None:
        """Remember that a finding was fixed or dismissed, so it stays gone after a restart."""
        mark_finding(self._codex_home(), thread_id, finding_id, resolution)
