"""`feedback/save`: a ZIP a user can attach to a bug report, written on this machine only.

The bundle holds `report.json` (classification, reason, tags, versions), `manifest.json` (what
each entry is), the thread's rollout when a thread is named, `config.toml` with secrets removed,
and with `includeLogs` the server's recent log and any `extraLogFiles`. Every entry goes through
the same scrubber: the values of keys and tokens this server knows of (auth.json, the
environment variables the config names, MCP servers' env) never reach the file.

`savePath` must be absolute and unused; the file is created exclusively, so an existing one is
never overwritten.
"""

from __future__ import annotations

import json
import platform
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from codex_lsp import __version__
from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.feedback.log import recent_log
from codex_lsp.api.feedback.secrets import Scrubber, gather_secrets
from codex_lsp.api.port import INTERNAL_ERROR, INVALID_REQUEST, ApiError
from codex_lsp.protocol.feedback.models import (
    FEEDBACK_SAVE,
    FeedbackSaveParams,
    FeedbackSaveResponse,
)
from codex_lsp.store.config import CONFIG_FILENAME
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout_files import find_rollout


@dataclass
class Bundle:
    entries: list[tuple[str, str, str]] = field(default_factory=list)
    """(name in the ZIP, content type, text)."""

    def add(self, name: str, content_type: str, text: str) -> None:
        self.entries.append((name, content_type, text))

    def write(self, path: Path) -> None:
        manifest = [
            {"entry": name, "contentType": content_type} for name, content_type, _ in self.entries
        ]
        # "x": a path that exists (a race included) is refused, never overwritten.
        with open(path, "xb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as zipped:
            for name, _content_type, text in self.entries:
                zipped.writestr(name, text)
            zipped.writestr("manifest.json", json.dumps(manifest, indent=2))


class Feedback:
    def __init__(self, ctx: ApiContext) -> None:
        self.ctx = ctx
        recent_log()  # from now on, what the server logs is kept for a report

    async def save(self, params: FeedbackSaveParams, _raw: dict[str, Any]) -> FeedbackSaveResponse:
        target = Path(params.save_path).expanduser()
        if not target.is_absolute():
            raise ApiError(INVALID_REQUEST, "feedback savePath must be an absolute host path")
        if target.exists():
            raise ApiError(INVALID_REQUEST, f"{target} already exists; choose an unused path")
        if not target.parent.is_dir():
            raise invalid("savePath", f"no such directory: {target.parent}")
        thread_id = params.thread_id or new_thread_id()
        services = self.ctx.services()
        loaded = self.ctx.threads.loaded.get(params.thread_id or "")
        config = loaded.services.config if loaded is not None else services.config
        rollout = loaded.rollout_path if loaded is not None else None
        if rollout is None and params.thread_id is not None:
            rollout = find_rollout(services.codex_home, params.thread_id)
        home = services.codex_home

        def build() -> None:
            scrub = Scrubber(gather_secrets(home, config))
            bundle = Bundle()
            bundle.add("report.json", "application/json", _report(params, thread_id, rollout))
            config_file = home / CONFIG_FILENAME
            if config_file.is_file():
                text = config_file.read_text(encoding="utf-8", errors="replace")
                bundle.add("config.toml", "application/toml", scrub.config(text))
            if rollout is not None and rollout.is_file():
                text = rollout.read_text(encoding="utf-8", errors="replace")
                bundle.add(f"rollout/{rollout.name}", "application/jsonl", scrub.text(text))
            if params.include_logs:
                bundle.add("logs/codex-lsp.log", "text/plain", scrub.text(recent_log().text()))
                for index, extra in enumerate(params.extra_log_files or []):
                    name, text = _extra_log(index, Path(extra))
                    bundle.add(name, "text/plain", scrub.text(text))
            bundle.write(target)

        try:
            await anyio.to_thread.run_sync(build)
        except FileExistsError:
            raise ApiError(
                INVALID_REQUEST, f"{target} already exists; choose an unused path"
            ) from None
        except OSError as err:
            raise ApiError(INTERNAL_ERROR, f"failed to save feedback to {target}: {err}") from None
        return FeedbackSaveResponse(saved_path=str(target), thread_id=thread_id)


def _report(params: FeedbackSaveParams, thread_id: str, rollout: Path | None) -> str:
    report = {
        "threadId": thread_id,
        "classification": params.classification,
        "reason": params.reason,
        "tags": params.tags or {},
        "createdAt": int(time.time()),
        "rollout": rollout.name if rollout is not None and rollout.is_file() else None,
        "versions": {
            "codexLsp": __version__,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "executable": sys.executable,
        },
    }
    return json.dumps(report, indent=2)


def _extra_log(index: int, path: Path) -> tuple[str, str]:
    name = f"logs/extra-{index}-{path.name or 'log'}"
    if not path.is_absolute():
        return name, f"(not included: {path} is not an absolute path)\n"
    try:
        return name, path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        return name, f"(not included: {path}: {err.strerror or err})\n"


def handlers(ctx: ApiContext) -> Routes:
    feedback = Feedback(ctx)
    return Routes().on(FEEDBACK_SAVE, feedback.save)
