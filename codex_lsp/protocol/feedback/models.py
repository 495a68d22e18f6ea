"""`feedback/save` on the v2 wire: a local bundle for a bug report."""

from __future__ import annotations

from codex_lsp.protocol.common import Opt, V2Model
from codex_lsp.protocol.methods import MethodTable


class FeedbackSaveParams(V2Model):
    classification: str
    save_path: str
    """Absolute path of a ZIP file that does not exist yet; the caller owns it afterwards."""
    thread_id: Opt[str] = None
    reason: Opt[str] = None
    include_logs: Opt[bool] = None
    extra_log_files: Opt[list[str]] = None
    tags: Opt[dict[str, str]] = None


class FeedbackSaveResponse(V2Model):
    saved_path: str
    thread_id: str
    prompt_hash: str | None = None


METHODS = MethodTable()
FEEDBACK_SAVE = METHODS.request("feedback/save", FeedbackSaveParams, FeedbackSaveResponse)
