"""`feedback/save` on the v2 wire: a local bundle for a bug report."""

from __future__ import annotations

from pydantic import BaseModel

from codex_lsp.protocol.v2_common import Opt, V2Model


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


REQUESTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "feedback/save": (FeedbackSaveParams, FeedbackSaveResponse),
}
