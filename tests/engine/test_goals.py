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
    scripted_model.enqueue(text_response("Out of budget.", response_id="r_end", usage=usage(10, 0)))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("Port the parser, 25 tokens at most.")

    created = json.loads(_output(scripted_model, "c1"))["goal"]
    assert created["status"] == "active" and created["tokensUsed"] == 0
    # As Codex counts: a response once its tools are done, so a tool reads the goal as it was
    # when the response began.
    second = json.loads(_output(scripted_model, "c2"))
    assert second["goal"]["tokensUsed"] == 0 and second["remainingTokens"] == 25
    third = json.loads(_output(scripted_model, "c3"))["goal"]
    assert (third["tokensUsed"], third["status"]) == (10, "active")
    fourth = json.loads(_output(scripted_model, "c4"))
    assert fourth["goal"]["status"] == "active" and fourth["remainingTokens"] == 5
    # The turn that used the budget up still counts to its end; the model is told to wrap up.
    updates = engine.of_type("thread_goal_updated", events)
    assert [(u.goal["status"], u.goal["tokensUsed"]) for u in updates] == [
        ("active", 0),
        ("active", 10),
        ("active", 20),
        ("budgetLimited", 30),
        ("budgetLimited", 40),
    ]
    last = scripted_model.requests[-1].body["input"][-1]
    assert "This thread's goal has used up its token budget." in json.dumps(last)
    assert len(scripted_model.requests) == 5  # a limited goal starts no turn of its own


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
    async with running_engine(home) as engine:
        await engine.configure(resume_path=rollout)
        await engine.run_turn("How is the goal?")
        resumed = json.loads(_output(scripted_model, "c3"))["goal"]
        assert (resumed["objective"], resumed["status"]) == ("Ship the parser", "paused")
        assert "tokenBudget" not in resumed  # no budget: left out, as the tool shows it

        # The user resumes it (only a client may), and the thread takes it up at once.
        scripted_model.enqueue(_call("update_goal", {"status": "paused"}, "c5"))
        scripted_model.enqueue(text_response("Paused again.", response_id="r5"))
        sub_id = await engine.codex.submit(SetThreadGoal(status="active"))
        update = await engine.until("thread_goal_updated", sub_id=sub_id)
        assert update.msg.goal["status"] == "active" and update.msg.turn_id is None
        await engine.until("task_complete", sub_id=sub_id)
        sub_id = await engine.codex.submit(ClearThreadGoal())
        cleared = await engine.until("thread_goal_cleared", sub_id=sub_id)
        assert cleared.msg.cleared is True
        sub_id = await engine.codex.submit(ClearThreadGoal())
        again = await engine.until("thread_goal_cleared", sub_id=sub_id)
        assert again.msg.cleared is False

    scripted_model.enqueue(_call("get_goal", {}, "c4"))
    scripted_model.enqueue(text_response("Cleared.", response_id="r3"))
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


async def test_an_active_goal_keeps_the_thread_working_until_it_is_complete(
    scripted_model, tmp_path
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(_call("create_goal", {"objective": "Port <it> & test"}, "c1"))
    scripted_model.enqueue(text_response("Started.", response_id="r1"))
    scripted_model.enqueue(text_response("Halfway.", response_id="r2"))
    scripted_model.enqueue(_call("update_goal", {"status": "complete"}, "c2"))
    scripted_model.enqueue(text_response("Done.", response_id="r3"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("Set a goal: port it.")
        for _ in range(2):  # two turns of the engine's own, the last one completing the goal
            started = await engine.until("task_started")
            await engine.until("task_complete", sub_id=started.id)
        await engine.codex.wait_idle()
    assert len(scripted_model.requests) == 5
    # The objective is given once, right after the goal is made; each turn of the engine's
    # own opens with the continuation prompt and how much of the goal's budget is used.
    first_own = scripted_model.requests[2].body["input"]
    objective = [i for i in first_own if i.get("name") == "goal_objective"]
    assert objective == [
        {
            "type": "function_call_output",
            "name": "goal_objective",
            "namespace": "agent",
            "output": "Port <it> & test",
        }
    ]
    prompt = first_own[-1]["content"][0]["text"]
    assert first_own[-1]["role"] == "user"
    assert prompt.startswith('<codex_internal_context source="goal">\nKeep working on this')
    assert "- Tokens used: 19\n- Token budget: none\n- Tokens remaining: unbounded" in prompt
    assert prompt.endswith("mark the goal complete.\n\n</codex_internal_context>")
    second_own = scripted_model.requests[3].body["input"]
    assert sum(i.get("name") == "goal_objective" for i in second_own) == 1
    # Nothing of it reaches the transcript as the user's words.
    messages = [e.msg.message for e in engine.events if e.msg.type == "user_message"]
    assert messages == ["Set a goal: port it."]


async def test_goals_off_leave_an_active_goal_alone(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra="[features]\ngoals = false\n")
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        sub_id = await engine.codex.submit(SetThreadGoal(objective="Port it"))
        update = await engine.until("thread_goal_updated", sub_id=sub_id)
        assert update.msg.goal["status"] == "active"
        await engine.codex.wait_idle()
        assert engine.codex.session is not None and engine.codex.session.running_task is None
    assert scripted_model.requests == []
