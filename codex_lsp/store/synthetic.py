"""Synthetic rollouts, written straight to disk, for benchmarks and tests of listing and resume.

Writing thousands of threads through the engine would take minutes; these files have the same
layout and line shapes as recorded ones (session_meta, turn_context, user and agent messages)
and are written in one `write` each.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from codex_lsp.store.home import new_thread_id, sessions_dir
from codex_lsp.store.rollout import rollout_filename, utc_timestamp


def _line(timestamp: str, kind: str, payload: Any) -> str:
    record = {"timestamp": timestamp, "type": kind, "payload": payload}
    return json.dumps(record, separators=(",", ":")) + "\n"


def synthetic_lines(
    thread_id: str,
    created: datetime,
    *,
    message: str = "hello",
    provider: str = "openai",
    cwd: str = "/work/project",
    turns: int = 1,
    base_instructions: str = "You are a coding agent.",
) -> list[str]:
    """The lines of a thread with `turns` user/assistant exchanges."""
    stamp = utc_timestamp(created)
    meta = {
        "id": thread_id,
        "timestamp": stamp,
        "cwd": cwd,
        "originator": "codex_lsp_synthetic",
        "cli_version": "0.0.0",
        "source": "vscode",
        "model_provider": provider,
        "base_instructions": {"text": base_instructions},
    }
    lines = [_line(stamp, "session_meta", meta)]
    for turn in range(turns):
        turn_id = f"turn-{turn}"
        text = message if turn == 0 else f"{message} (follow-up {turn})"
        context = {
            "turn_id": turn_id,
            "cwd": cwd,
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "read-only"},
            "model": "gpt-5",
            "summary": "auto",
        }
        lines += [
            _line(stamp, "event_msg", {"type": "task_started", "turn_id": turn_id}),
            _line(stamp, "turn_context", context),
            _line(stamp, "response_item", _message("user", "input_text", text)),
            _line(stamp, "event_msg", {"type": "user_message", "message": text}),
            _line(stamp, "response_item", _message("assistant", "output_text", f"ok {turn}")),
            _line(stamp, "event_msg", {"type": "agent_message", "message": f"ok {turn}"}),
            _line(stamp, "event_msg", {"type": "task_complete", "turn_id": turn_id}),
        ]
    return lines


def _message(role: str, part: str, text: str) -> dict[str, Any]:
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def write_synthetic_rollout(home: Path, thread_id: str, created: datetime, **options: Any) -> Path:
    """Write one synthetic rollout where the recorder would have put it."""
    local = created.astimezone()
    directory = sessions_dir(home) / local.strftime("%Y/%m/%d")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / rollout_filename(thread_id, local)
    data = "".join(synthetic_lines(thread_id, created, **options)).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return path


def populate_sessions(
    home: Path,
    count: int,
    *,
    newest: datetime | None = None,
    per_day: int = 100,
    same_second: int = 1,
    providers: tuple[str, ...] = ("openai",),
) -> list[str]:
    """Write `count` rollouts going back in time from `newest`; returns their ids, newest first.

    `per_day` spreads them over day directories; `same_second` makes groups of that many share
    a creation second, so their order rests on the uuid tie-break.
    """
    start = (newest or datetime(2024, 6, 30, 18, 0, tzinfo=UTC)).replace(microsecond=0)
    step = timedelta(seconds=max(86_400 // max(per_day, 1), 1) * same_second)
    ids: list[tuple[datetime, str]] = []
    for index in range(count):
        group, slot = divmod(index, same_second)
        created = start - group * step
        # UUIDv7 of the creation time; later slots in a second get larger ids, like real ones.
        millis = int(created.timestamp() * 1000) + (same_second - 1 - slot)
        thread_id = new_thread_id(millis)
        provider = providers[index % len(providers)]
        write_synthetic_rollout(
            home, thread_id, created, message=f"thread {index}", provider=provider
        )
        ids.append((created, thread_id))
    return [thread_id for _, thread_id in ids]
