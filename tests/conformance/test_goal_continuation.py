"""A goal's self-continuing turns side by side with the real `codex app-server` 0.171.

With an active goal the real server keeps working on its own: when a turn ends (or a client
activates a goal on an idle thread) it starts the next turn, with no user message, whose
request carries the objective (a `goal_objective` context output) and a continuation prompt
(`<codex_internal_context source="goal">`). A budget used up mid-turn adds a wrap-up notice; an
objective rewritten mid-turn adds a notice of the new one. It stops when the goal is complete
or budget-limited, after an interrupt (until another turn ends on its own), and blocks the goal
after a turn that fails.

Each journey runs on both servers with the same scripted model; what the model receives (every
item after the initial context, ids and clock readings aside), which requests it gets, and the
order of the turn and goal notifications must match. The goal prompts are each server's own
words: they are compared by kind, numbers, objective and whether they speak of plans.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Run, Side, run_on
from tests.conformance.steps import start_thread, start_turn
from tests.support.scripted_builders import function_call_response, text_response, usage

NOTICES = (
    "turn/started",
    "turn/completed",
    "thread/goal/updated",
    "thread/goal/cleared",
    "thread/status/changed",
    "item/started",
)


def _call(name: str, args: dict[str, Any], call_id: str, **kw: Any) -> list[dict[str, Any]]:
    return function_call_response(name, args, call_id=call_id, response_id=f"r_{call_id}", **kw)


def _set(run: Run, thread_id: str, **params: Any) -> None:
    run.client.call("thread/goal/set", {"threadId": thread_id, **params})


def _turns_done(run: Run, n: int) -> None:
    """Wait for the `n`th `turn/completed`, then a moment for a turn that must not follow."""
    deadline = time.monotonic() + 60
    while _count(run, "turn/completed") < n:
        assert time.monotonic() < deadline, f"fewer than {n} turns ended"
        time.sleep(0.05)
    time.sleep(1.5)


def _count(run: Run, method: str) -> int:
    return sum(1 for e in run.client.transcript if e.message.get("method") == method)


def set_on_idle_thread(run: Run, thread_id: str) -> None:
    """A client sets a goal after a turn: the next turn starts at once and completes it."""
    run.model.enqueue(text_response("Hi.", response_id="r0"))
    start_turn(run, thread_id, "Hello")
    _turns_done(run, 1)
    run.model.enqueue(_call("get_goal", {}, "c1"))
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c2"))
    run.model.enqueue(text_response("Goal done.", response_id="r3"))
    _set(run, thread_id, objective="Write docs")
    _turns_done(run, 2)


def created_by_the_model(run: Run, thread_id: str) -> None:
    """The model creates the goal in the user's turn, and goes on until it completes it."""
    run.model.enqueue(_call("create_goal", {"objective": "Write docs"}, "c1"))
    run.model.enqueue(text_response("Started.", response_id="r1"))
    run.model.enqueue(text_response("Still working.", response_id="r2"))
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c3"))
    run.model.enqueue(text_response("Goal done.", response_id="r4"))
    start_turn(run, thread_id, "Set a goal: write docs")
    _turns_done(run, 3)


def budget_runs_out(run: Run, thread_id: str) -> None:
    """The budget is used up mid-turn: the model is told to wrap up, and no turn follows."""
    run.model.enqueue(_call("get_goal", {}, "c1", usage=usage(30, 10)))
    run.model.enqueue(_call("get_goal", {}, "c2", usage=usage(30, 10)))
    run.model.enqueue(text_response("Wrapping up.", response_id="r3"))
    run.model.enqueue(text_response("Not asked for.", response_id="r4"))
    _set(run, thread_id, objective="Write docs", tokenBudget=50)
    _turns_done(run, 1)


def paused_then_resumed(run: Run, thread_id: str) -> None:
    """A paused goal is not pursued, nor shown to the model, until a client resumes it."""
    _set(run, thread_id, objective="Write <docs> & more", status="paused")
    run.model.enqueue(text_response("Hi.", response_id="r0"))
    start_turn(run, thread_id, "Hello")
    _turns_done(run, 1)
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c2"))
    run.model.enqueue(text_response("Goal done.", response_id="r3"))
    _set(run, thread_id, status="active")
    _turns_done(run, 2)


def objective_rewritten_mid_turn(run: Run, thread_id: str) -> None:
    """A client rewrites the objective while the goal's turn runs: the model hears of it."""
    run.model.enqueue([{"stall_s": 2.0}, *_call("get_goal", {}, "c1")])
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c2"))
    run.model.enqueue(text_response("Goal done.", response_id="r3"))
    _set(run, thread_id, objective="Write docs")
    run.client.wait_method("turn/started")
    time.sleep(0.8)
    _set(run, thread_id, objective="Write better docs")
    _turns_done(run, 1)


def interrupted(run: Run, thread_id: str) -> None:
    """An interrupt stops the goal's turns; the user's next turn sets them going again."""
    run.model.enqueue([{"stall_s": 3.0}, *text_response("Slow.", response_id="r1")])
    run.model.enqueue(text_response("User answer.", response_id="r2"))
    run.model.enqueue(text_response("Auto one.", response_id="r3"))
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c2"))
    run.model.enqueue(text_response("Goal done.", response_id="r5"))
    _set(run, thread_id, objective="Write docs")
    started = run.client.wait_method("turn/started")
    time.sleep(0.5)
    turn_id = started["params"]["turn"]["id"]
    run.client.call("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    _turns_done(run, 1)
    start_turn(run, thread_id, "Go on")
    _turns_done(run, 4)


def failed_turn_blocks(run: Run, thread_id: str) -> None:
    """A turn that fails blocks the goal: nothing keeps sampling into the same error."""
    run.model.enqueue(text_response("Working.", response_id="r1"))
    run.model.enqueue([{"status": 400, "body": {"error": {"message": "bad request"}}}])
    _set(run, thread_id, objective="Write docs")
    _turns_done(run, 2)


def resumed_with_active_goal(run: Run, thread_id: str) -> None:
    """A thread left idle with an active goal takes it up again once it is resumed."""
    run.model.enqueue([{"stall_s": 3.0}, *text_response("Slow.", response_id="r1")])
    _set(run, thread_id, objective="Write docs")
    started = run.client.wait_method("turn/started")
    time.sleep(0.5)
    turn_id = started["params"]["turn"]["id"]
    run.client.call("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    _turns_done(run, 1)
    run.restart()
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c2"))
    run.model.enqueue(text_response("Goal done.", response_id="r3"))
    run.client.call("thread/resume", {"threadId": thread_id})
    _turns_done(run, 1)


def with_update_plan(run: Run, thread_id: str) -> None:
    """Where the model may keep a plan, the continuation prompt tells it when to."""
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c1"))
    run.model.enqueue(text_response("Goal done.", response_id="r2"))
    _set(run, thread_id, objective="Write docs")
    _turns_done(run, 1)


def plan_mode_waits(run: Run, thread_id: str) -> None:
    """In Plan mode a goal waits: no turn of its own, and the planning turn is not counted.
    Back in the default mode it goes on after the next turn, not at the switch."""
    mode = {"mode": "plan", "settings": {"model": "gpt-5.4"}}
    run.client.call("thread/settings/update", {"threadId": thread_id, "collaborationMode": mode})
    _set(run, thread_id, objective="Write docs", tokenBudget=100000)
    run.model.enqueue(text_response("Planned.", response_id="r1", usage=usage(500, 100)))
    start_turn(run, thread_id, "Plan the docs")
    _turns_done(run, 1)
    mode = {"mode": "default", "settings": {"model": "gpt-5.4"}}
    run.client.call("thread/settings/update", {"threadId": thread_id, "collaborationMode": mode})
    time.sleep(1.5)
    assert run.client.call("thread/goal/get", {"threadId": thread_id})["goal"]["tokensUsed"] == 0
    run.model.enqueue(text_response("On it.", response_id="r2", usage=usage(50, 10)))
    run.model.enqueue(_call("update_goal", {"status": "complete"}, "c3"))
    run.model.enqueue(text_response("Goal done.", response_id="r4"))
    start_turn(run, thread_id, "Write them")
    _turns_done(run, 3)


# Config a journey needs besides the common one.
CONFIG = {"with_update_plan": "[tools.update_plan]\nenabled = true\n"}

JOURNEYS: dict[str, Callable[[Run, str], None]] = {
    "set_on_idle_thread": set_on_idle_thread,
    "created_by_the_model": created_by_the_model,
    "budget_runs_out": budget_runs_out,
    "paused_then_resumed": paused_then_resumed,
    "objective_rewritten_mid_turn": objective_rewritten_mid_turn,
    "interrupted": interrupted,
    "failed_turn_blocks": failed_turn_blocks,
    "resumed_with_active_goal": resumed_with_active_goal,
    "with_update_plan": with_update_plan,
    "plan_mode_waits": plan_mode_waits,
}


def _normal_text(text: str, thread_id: str) -> str:
    text = text.replace(thread_id, "<thread>")
    text = re.sub(r'"(createdAt|updatedAt|timeUsedSeconds)":\d+', r'"\1":0', text)
    text = re.sub(r"Time spent pursuing goal: \d+", "Time spent pursuing goal: <n>", text)
    # The interrupt marker's wording is not what this test compares.
    return re.sub(r"(?s)<turn_aborted>.*</turn_aborted>", "<turn_aborted/>", text)


# Each goal prompt by its opening line, on either server: the wording is each server's own, so
# what is compared is which prompt it is and the facts it carries.
_PROMPT_KINDS = {
    "Continue working toward the active thread goal.": "continue",
    "Keep working on this thread's active goal.": "continue",
    "The active thread goal has reached its token budget.": "budget limit",
    "This thread's goal has used up its token budget.": "budget limit",
    "The active thread goal objective was edited by the user.": "objective edited",
    "The user changed this thread's goal.": "objective edited",
}
_PROMPT_FACTS = re.compile(
    r"^- (Time spent pursuing goal|Tokens used|Token budget|Tokens remaining): (.*)$", re.M
)


def _goal_prompt(text: str) -> str:
    """A goal prompt as its kind, its numbers, its objective and whether it speaks of plans."""
    head, _, rest = text.partition("\n")
    body = rest.removesuffix("\n\n</codex_internal_context>")
    objective = re.search(r"<(?:untrusted_)?objective>\n(.*?)\n</", body, re.S)
    facts = {
        "kind": _PROMPT_KINDS.get(body.split("\n", 1)[0], body.split("\n", 1)[0]),
        "numbers": dict(_PROMPT_FACTS.findall(body)),
        "objective": objective.group(1) if objective else None,
        "plans": "update_plan is" in body,
    }
    return f"{head}\n{json.dumps(facts, sort_keys=True)}"


def _unclocked(output: str) -> str:
    """A goal tool's output without what depends on the clock: without a budget, whether a
    completed goal asks for a usage report depends on whether a second has gone by."""
    if not output.startswith('{"goal":{'):
        return output
    result = json.loads(output)
    if result["goal"].get("tokenBudget") is None and "completionBudgetReport" in result:
        result["completionBudgetReport"] = "<if time was used>"
    return json.dumps(result)


def _model_items(request: Any, thread_id: str) -> list[dict[str, Any]]:
    """What a request carries after the initial context (instructions, skills, environment)."""
    items = []
    for item in request.body["input"]:
        if item.get("role") == "developer":
            continue
        text = json.dumps(item.get("content"))
        if item.get("role") == "user" and "<environment_context>" in text:
            continue
        kept = {k: v for k, v in item.items() if k not in ("id", "status")}
        if isinstance(kept.get("output"), str):
            # The real server counts a response's tokens in the background, so a goal tool's
            # output may or may not include its own response (the prompts' counts are exact).
            output = re.sub(r'"(tokensUsed|remainingTokens)":\d+', r'"\1":"<n>"', kept["output"])
            kept["output"] = _unclocked(_normal_text(output, thread_id))
        for part in kept.get("content") or []:
            if isinstance(part.get("text"), str):
                part["text"] = _normal_text(part["text"], thread_id)
                if part["text"].startswith('<codex_internal_context source="goal">'):
                    part["text"] = _goal_prompt(part["text"])
        items.append(kept)
    return items


def _notice(message: dict[str, Any]) -> Any:
    method, params = message["method"], message.get("params") or {}
    if method == "thread/goal/updated":
        goal = params["goal"]
        return [method, params["turnId"] is None, goal["status"], goal["objective"]]
    if method == "turn/completed":
        return [method, params["turn"]["status"]]
    if method == "item/started":
        return [method, params["item"]["type"]]
    if method == "thread/status/changed":
        return [method, params["status"]["type"]]
    return [method]


def _journey(side: Side, tmp_path: Path, name: str) -> dict[str, Any]:
    extra = CONFIG.get(name, "")
    with run_on(side, tmp_path, experimental_api=True, extra_config=extra) as run:
        thread_id = start_thread(run)
        JOURNEYS[name](run, thread_id)
        notices: list[Any] = []
        turns: list[str] = []  # the ids of the turns started, in order
        for entry in (e for client in run.clients for e in client.transcript):
            if entry.direction == "s2c" and entry.message.get("method") in NOTICES:
                notice = _notice(entry.message)
                if notice[0] == "turn/started":
                    # Which turn (by order) it counts back to: itself, or the one whose model
                    # made the goal.
                    turn = entry.message["params"]["turn"]
                    turns.append(turn["id"])
                    notice.append(turns.index(turn["rootTurnId"]))
                # A count that changes neither status nor objective comes when a second has
                # gone by or not: only the goal's changes are compared.
                last_goal = next((n for n in reversed(notices) if n[0] == notice[0]), None)
                if notice[0] != "thread/goal/updated" or (last_goal or [])[2:] != notice[2:]:
                    notices.append(notice)
        return {
            "requests": [_model_items(r, thread_id) for r in run.model.requests],
            "notices": notices,
        }


_REAL: dict[str, dict[str, Any]] = {}


def _real(name: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if name not in _REAL:
        _REAL[name] = _journey("real", tmp_path_factory.mktemp(f"real-{name}"), name)
    return _REAL[name]


@pytest.mark.parametrize("name", list(JOURNEYS))
@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_goal_turns_as_the_real_server_runs_them(
    side: Side, name: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    real = _real(name, tmp_path_factory)
    ours = _journey(side, tmp_path / side, name)
    assert len(ours["requests"]) == len(real["requests"]), [len(r) for r in ours["requests"]]
    for n, (mine, theirs) in enumerate(zip(ours["requests"], real["requests"], strict=True)):
        assert mine == theirs, f"request {n}"
    assert ours["notices"] == real["notices"]


def test_the_real_server_continues_a_goal_on_its_own(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    real = _real("set_on_idle_thread", tmp_path_factory)
    continuation = real["requests"][1]
    assert continuation[-2] == {
        "type": "function_call_output",
        "name": "goal_objective",
        "namespace": "agent",
        "output": "Write docs",
    }
    text = continuation[-1]["content"][0]["text"]
    assert text.startswith('<codex_internal_context source="goal">\n{')
    assert json.loads(text.partition("\n")[2])["kind"] == "continue"
    # The client's goal, then at once a turn of the server's own.
    set_at = real["notices"].index(["thread/goal/updated", True, "active", "Write docs"])
    assert real["notices"][set_at + 1 : set_at + 3] == [
        ["thread/status/changed", "active"],
        ["turn/started", 1],
    ]


def test_the_real_server_speaks_of_plans_only_where_the_model_may_make_one(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with_plan = json.dumps(_real("with_update_plan", tmp_path_factory)["requests"][0])
    without = json.dumps(_real("set_on_idle_thread", tmp_path_factory)["requests"][1])
    assert '\\"plans\\": true' in with_plan
    assert '\\"plans\\": false' in without
