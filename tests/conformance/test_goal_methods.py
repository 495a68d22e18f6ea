"""`thread/goal/*` side by side with the real `codex app-server` 0.171, which keeps goals locally.

A client reads a thread's goal, is refused a change to a goal that does not exist, an empty
objective and a non-positive budget, creates a goal, pauses it, gives it a budget, renames it,
clears it, and asks about a thread that does not exist. Every answer and every goal
notification must match, thread ids and clock readings aside.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import start_thread

UNKNOWN = "01a225e3-d71b-7b70-9b5b-6c439dd050d7"
STEPS: list[tuple[str, dict[str, Any]]] = [
    ("thread/goal/get", {}),
    ("thread/goal/clear", {}),
    ("thread/goal/set", {"status": "paused"}),
    ("thread/goal/set", {"objective": ""}),
    ("thread/goal/set", {"objective": "Write docs", "tokenBudget": 0}),
    ("thread/goal/set", {"objective": "Write docs"}),
    ("thread/goal/set", {"status": "paused"}),
    ("thread/goal/set", {"tokenBudget": 100}),
    ("thread/goal/set", {"objective": "Other docs"}),
    ("thread/goal/get", {}),
    ("thread/goal/clear", {}),
    ("thread/goal/get", {}),
    ("thread/goal/get", {"threadId": UNKNOWN}),
]


def _journey(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path) as run:
        thread_id = start_thread(run)
        client = run.client

        def normal(value: Any) -> Any:
            text = json.dumps(value).replace(thread_id, "<thread>")
            return json.loads(re.sub(r'"(createdAt|updatedAt)": \d+', r'"\1": 0', text))

        answers = []
        for method, params in STEPS:
            answer = client.response(client.request(method, {"threadId": thread_id, **params}))
            answer.pop("id", None)
            answers.append(normal(answer))
        client.call("thread/read", {"threadId": thread_id})  # every notification is out
        notes = [
            normal({"method": m["method"], "params": m["params"]})
            for m in (entry.message for entry in client.seen())
            if str(m.get("method", "")).startswith("thread/goal/") and "id" not in m
        ]
        return {"answers": answers, "notifications": notes}


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_goal_methods_as_the_real_server_serves_them(side: Side, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real")
    assert real["answers"][0] == {"result": {"goal": None}}
    ours = _journey(side, tmp_path / side)
    for step, mine, theirs in zip(STEPS, ours["answers"], real["answers"], strict=True):
        assert mine == theirs, step
    assert ours["notifications"] == real["notifications"]
