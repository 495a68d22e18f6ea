"""A thread's goal through the engine: the goal tools count tokens against it, a used-up budget
limits it, a client sets and clears it with ops, and a resumed thread finds it as it was."""

from __future__ import annotations

import json

from codex_lsp.protocol.core.goals import ClearThreadGoal, SetThreadGoal
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response, usage


def _output(scripted_model, call_id: str) -> str:
    for request in reversed(scripted_model.requests):
        for item in request.body["input"]:
            if item.get("type") == "function_call_output" and item.get("call_id") == call_id:
                return item["output"]
    raise AssertionError(f"no output for {call_id}")


def _call(name: str, args: dict, call_id: str, tokens: int = 10) -> list:
    return function_call_response(
        name, args, call_id=call_id, response_id=f"resp_{call_id}", usage=usage(tokens, 0)
    )


async def test_a_goal_counts_each_response_until_its_budget_runs_out(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(_call("create_goal", {"objective": "Port it", "token_budget": 25}, "c1"))
    scripted_model.enqueue(_call("get_goal", {}, "c2"))
    scripted_model.enqueue(_call("get_goal", {}, "c3"))
    scripted_model.enqueue(_call("get_goal", {}, "c4"))
    scripted_model.enqueue(text_response("Out of budget.", response_id="r_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("Port the parser, 25 tokens at most.")

    created = json.loads(_output(scripted_model, "c1"))["goal"]
    assert created["status"] == "active" and created["tokensUsed"] == 0
    # The response that asked for a tool is counted before the tool runs.
    second = json.loads(_output(scripted_model, "c2"))
    assert second["goal"]["tokensUsed"] == 10 and second["remainingTokens"] == 15
    third = json.loads(_output(scripted_model, "c3"))["goal"]
    assert (third["tokensUsed"], third["status"]) == (20, "active")
    limited = json.loads(_output(scripted_model, "c4"))
    assert limited["goal"]["status"] == "budgetLimited" and limited["remainingTokens"] == 0
    # Once limited, responses count no more.
    updates = engine.of_type("thread_goal_updated", events)
    assert [(u.goal["status"], u.goal["tokensUsed"]) for u in updates] == [
        ("active", 0),
        ("active", 10),
        ("active", 20),
        ("budgetLimited", 30),
    ]


async def test_a_resumed_thread_keeps_its_goal_and_a_client_resumes_or_clears_it(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(_call("create_goal", {"objective": "Ship the parser"}, "c1"))
    scripted_model.enqueue(_call("update_goal", {"status": "paused"}, "c2"))
    scripted_model.enqueue(text_response("Paused.", response_id="r1"))
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn("Set a goal to ship the parser, then pause it.")
    rollout = configured.msg.rollout_path

    scripted_model.enqueue(_call("get_goal", {}, "c3"))
    scripted_model.enqueue(text_response("Still paused.", response_id="r2"))
    scripted_model.enqueue(_call("get_goal", {}, "c4"))
    scripted_model.enqueue(text_response("Cleared.", response_id="r3"))
    async with running_engine(home) as engine:
        await engine.configure(resume_path=rollout)
        await engine.run_turn("How is the goal?")
        resumed = json.loads(_output(scripted_model, "c3"))["goal"]
        assert (resumed["objective"], resumed["status"]) == ("Ship the parser", "paused")
        assert "tokenBudget" not in resumed  # no budget: left out, as the tool shows it

        # The user resumes it: only a client may.
        sub_id = await engine.codex.submit(SetThreadGoal(status="active"))
        update = await engine.until("thread_goal_updated", sub_id=sub_id)
        assert update.msg.goal["status"] == "active" and update.msg.turn_id is None
        sub_id = await engine.codex.submit(ClearThreadGoal())
        cleared = await engine.until("thread_goal_cleared", sub_id=sub_id)
        assert cleared.msg.cleared is True
        sub_id = await engine.codex.submit(ClearThreadGoal())
        again = await engine.until("thread_goal_cleared", sub_id=sub_id)
        assert again.msg.cleared is False

    async with running_engine(home) as engine:
        await engine.configure(resume_path=rollout)
        await engine.run_turn("And now?")
    assert json.loads(_output(scripted_model, "c4"))["goal"] is None


async def test_goals_off_offer_no_goal_tools(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra="[features]\ngoals = false\n")
    scripted_model.enqueue(text_response("Hi.", response_id="r1"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("Hello")
    names = {tool.get("name") for tool in scripted_model.requests[0].body["tools"]}
    assert not names & {"get_goal", "create_goal", "update_goal"}
