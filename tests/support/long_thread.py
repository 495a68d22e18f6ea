"""A long thread written as a rollout, for an editor to open: `turns` turns of a question and
a Markdown answer (paragraphs, a list, now and then a code block), as codex-lsp records them.

It is written under a staging home; a journey copies it into the server's `$CODEX_HOME` when
it runs, so the journeys before it see the thread list they expect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout import RolloutRecorder


def _answer(n: int) -> str:
    parts = [
        f"Answer {n}: the `mean` in review_me.py:2 divides by `count`, which step {n} guards.",
        f"- checked item {n}a\n- checked item {n}b",
    ]
    if n % 4 == 0:
        parts.append(f"```python\ndef step_{n}(xs):\n    return sum(xs) / max(len(xs), 1)\n```")
    return "\n\n".join(parts)


def _message(role: str, text: str) -> dict[str, Any]:
    part = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def write_long_thread(staging: Path, turns: int, cwd: Path) -> dict[str, str]:
    """Write the thread under `staging`; its id, and its rollout's path relative to a home."""
    thread_id = new_thread_id()
    recorder = RolloutRecorder.create(
        staging,
        thread_id,
        {"cwd": str(cwd), "model_provider": "openai", "source": "vscode"},
    )
    for n in range(1, turns + 1):
        turn_id = f"turn-{n}"
        question = f"Question {n}: what does step {n} change?"
        answer = _answer(n)
        recorder.record_turn_context({"turn_id": turn_id, "cwd": str(cwd), "model": "gpt-5"})
        recorder.record_event({"type": "task_started", "turn_id": turn_id})
        recorder.record_item(_message("user", question))
        recorder.record_event({"type": "user_message", "message": question})
        recorder.record_item(_message("assistant", answer))
        recorder.record_event({"type": "agent_message", "message": answer})
        recorder.record_event({"type": "task_complete", "turn_id": turn_id})
    path = recorder.path
    recorder.close()
    return {"id": thread_id, "rollout": str(path), "relative": str(path.relative_to(staging))}
