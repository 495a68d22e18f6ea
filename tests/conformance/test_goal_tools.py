"""The goal tools side by side with the real `codex app-server` 0.171, which keeps a thread's
goal locally and offers `get_goal`, `create_goal` and `update_goal` on every turn.

One turn calls them through each of their paths: no goal yet, a goal with a budget, a second
goal refused while the first is unfinished, the statuses the model may and may not set, bad
arguments, completion, and a new goal once the first is complete. Each tool's spec and every
output must match, ids, clock readings and token counts aside.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import function_call_response, text_response

GOAL_TOOLS = ("get_goal", "create_goal", "update_goal")

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_goal", {}),
    ("update_goal", {"status": "complete"}),
    ("create_goal", {"objective": "Ship the parser", "token_budget": 5000}),
    ("create_goal", {"objective": "Another"}),
    ("get_goal", {}),
    ("update_goal", {"status": "paused"}),
    ("update_goal", {"status": "active"}),
    ("update_goal", {"status": "blocked"}),
    ("create_goal", {"objective": "   "}),
    ("create_goal", {"objective": "x", "token_budget": 0}),
    ("update_goal", {"status": "complete"}),
    ("get_goal", {}),
    ("create_goal", {"objective": "Second goal"}),
]


def _normal(text: str, thread_id: str) -> str:
    """`text` without ids and clock readings, nor the tokens counted so far: the real server
    counts a response's tokens in the background, so a tool may run before or after its own
    response is counted (ours counts it first, always; `tests/engine/test_goals.py`)."""
    text = text.replace(thread_id, "<thread>")
    text = re.sub(r'"(createdAt|updatedAt)":\d+', r'"\1":"<time>"', text)
    return re.sub(r'"(tokensUsed|remainingTokens)":\d+', r'"\1":"<n>"', text)


def _journey(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        for n, (name, args) in enumerate(CALLS):
            run.model.enqueue(
                function_call_response(name, args, call_id=f"c{n}", response_id=f"r{n}")
            )
        run.model.enqueue(text_response("Done.", response_id="r_end"))
        thread_id = start_thread(run)
        run_turn(run, thread_id, "Work towards the goal.")
        specs = {
            tool["name"]: tool
            for tool in run.model.requests[0].body["tools"]
            if tool.get("name") in GOAL_TOOLS
        }
        outputs = {
            item["call_id"]: _normal(item["output"], thread_id)
            for item in run.model.requests[-1].body["input"]
            if item.get("type") == "function_call_output" and "call_id" in item
        }
        return {"specs": specs, "outputs": [outputs.get(f"c{n}") for n in range(len(CALLS))]}


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _journey("real", tmp_path_factory.mktemp("real"))


def test_the_real_server_offers_and_answers_the_goal_tools(real: dict[str, Any]) -> None:
    assert sorted(real["specs"]) == sorted(GOAL_TOOLS)
    assert (
        real["outputs"][0] == '{"goal":null,"remainingTokens":null,"completionBudgetReport":null}'
    )
    assert "no goal" in real["outputs"][1]


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_goal_tools_as_the_real_server_has_them(
    side: Side, tmp_path: Path, real: dict[str, Any]
) -> None:
    ours = _journey(side, tmp_path / side)
    for name in GOAL_TOOLS:
        assert ours["specs"][name] == real["specs"][name], name
    for (name, args), mine, theirs in zip(CALLS, ours["outputs"], real["outputs"], strict=True):
        assert json.loads(mine) == json.loads(theirs) if mine.startswith("{") else mine == theirs, (
            name,
            args,
            mine,
            theirs,
        )
