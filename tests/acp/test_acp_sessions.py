"""Sessions of `codex-lsp acp`: listed, loaded with their history replayed, resumed, closed;
Plan mode and the config options; one history shared with the language server's door.

The agent is the real subprocess (started again where a test needs a new process); the
model is the scripted server.
"""

from __future__ import annotations

import asyncio
import json

from acp import RequestError, text_block

from tests.support.acp_client import WAIT_S, RecordingClient, acp_agent
from tests.support.appserver import make_home
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    slow_text_response,
    text_response,
)


async def _prompt(conn, session_id: str, text: str) -> str:
    answer = await asyncio.wait_for(
        conn.prompt(session_id=session_id, prompt=[text_block(text)]), WAIT_S
    )
    return str(answer.stop_reason)


async def test_a_session_is_listed_loaded_with_its_history_and_resumed(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    command = {"cmd": "echo listed", "workdir": str(ws)}
    scripted_model.enqueue(function_call_response("exec_command", command, call_id="call_echo"))
    scripted_model.enqueue(text_response("The capital is Paris.", response_id="resp_2"))
    scripted_model.enqueue(text_response("About two million.", response_id="resp_3"))
    scripted_model.enqueue(text_response("Still Paris.", response_id="resp_4"))
    first = RecordingClient()
    async with acp_agent(home, ws, first) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="full-access")
        assert await _prompt(conn, sid, "What is the capital of France?") == "end_turn"

    loaded = RecordingClient()
    async with acp_agent(home, ws, loaded) as conn:
        listed = await conn.list_sessions(cwd=str(ws))
        assert [s.session_id for s in listed.sessions] == [sid]
        assert listed.sessions[0].cwd == str(ws)
        assert "capital of France" in (listed.sessions[0].title or "")
        assert listed.sessions[0].updated_at
        answer = await conn.load_session(cwd=str(ws), session_id=sid, mcp_servers=[])
        # The history came before the answer, in order.
        # (The thread's token count, restored with it, comes as a usage update.)
        replayed = [kind for kind in loaded.kinds(sid) if kind != "usage_update"]
        assert replayed[:2] == ["user_message_chunk", "tool_call"]
        assert replayed.index("agent_message_chunk") > replayed.index("tool_call")
        assert loaded.text("user_message_chunk", sid) == "What is the capital of France?"
        assert loaded.text("agent_message_chunk", sid) == "The capital is Paris."
        tool = loaded.of_kind("tool_call", sid)[0]
        assert (tool["toolCallId"], tool["kind"], tool["status"]) == (
            "call_echo",
            "execute",
            "completed",
        )
        assert "listed" in tool["content"][0]["content"]["text"]
        assert answer.modes.current_mode_id == "full-access"
        assert await _prompt(conn, sid, "And its population?") == "end_turn"
        assert await conn.close_session(session_id=sid) is not None
        try:
            await _prompt(conn, sid, "Closed?")
        except RequestError as err:
            assert "not found" in str(err).lower() or err.code == -32002
        else:
            raise AssertionError("a closed session took a prompt")

    resumed = RecordingClient()
    async with acp_agent(home, ws, resumed) as conn:
        answer = await conn.resume_session(cwd=str(ws), session_id=sid, mcp_servers=[])
        assert answer.modes.current_mode_id == "full-access"
        # No replay on resume.
        assert "user_message_chunk" not in resumed.kinds(sid)
        assert await _prompt(conn, sid, "Sure?") == "end_turn"
    body = str(scripted_model.requests[-1].body["input"])
    assert "What is the capital of France?" in body and "About two million." in body
    assert "Sure?" in body


PATCH = "*** Begin Patch\n*** Add File: planned.txt\n+from the plan\n*** End Patch\n"
PLAN_ANSWER = "I looked.\n\n<proposed_plan>\n# Add planned.txt\n\n1. Create it.\n</proposed_plan>"


async def test_plan_mode_refuses_writes_and_answers_with_a_plan(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="on-request")
    steps = [{"step": "Read the code", "status": "in_progress"}]
    scripted_model.enqueue(
        function_call_response("update_plan", {"plan": steps}, call_id="plan", response_id="r1")
    )
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="patch"))
    scripted_model.enqueue(text_response(PLAN_ANSWER, response_id="r3"))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="patch2"))
    scripted_model.enqueue(text_response("Done as planned.", response_id="r5"))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        assert client.of_kind("current_mode_update", sid)[-1]["currentModeId"] == "plan"
        assert await _prompt(conn, sid, "plan adding a file") == "end_turn"
        assert not (ws / "planned.txt").exists()
        assert "Plan mode is read-only" in str(scripted_model.requests[2].body["input"])
        assert not client.permission_requests
        plans = client.of_kind("plan", sid)
        assert plans[0]["entries"] == [
            {"content": "Read the code", "priority": "medium", "status": "in_progress"}
        ]
        assert "# Add planned.txt" in client.text("agent_message_chunk", sid)
        # The refused patch shows as an edit that failed, and nothing was written.
        edits = {u["toolCallId"] for u in client.of_kind("tool_call", sid) if u["kind"] == "edit"}
        assert edits
        ended = {
            u["toolCallId"]: u.get("status")
            for u in client.of_kind("tool_call_update", sid)
            if u["toolCallId"] in edits and u.get("status") is not None
        }
        assert ended and set(ended.values()) == {"failed"}

        await conn.set_session_mode(session_id=sid, mode_id="agent")
        assert await _prompt(conn, sid, "go ahead") == "end_turn"
    assert (ws / "planned.txt").read_text() == "from the plan\n"


async def test_the_model_and_effort_are_config_options(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Picked."))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        options = {o.id: o for o in session.config_options}
        assert options["model"].category == "model"
        models = [choice.value for choice in options["model"].options]
        other = next(m for m in models if m != options["model"].current_value)
        efforts = [choice.value for choice in options["reasoning_effort"].options]
        answer = await conn.set_config_option(
            config_id="model", session_id=session.session_id, value=other
        )
        assert {o.id: o for o in answer.config_options}["model"].current_value == other
        effort = efforts[0]
        answer = await conn.set_config_option(
            config_id="reasoning_effort", session_id=session.session_id, value=effort
        )
        updated = {o.id: o for o in answer.config_options}
        assert updated["reasoning_effort"].current_value == effort
        assert await _prompt(conn, session.session_id, "Which model?") == "end_turn"
    body = scripted_model.requests[-1].body
    assert body["model"] == other
    assert body["reasoning"]["effort"] == effort


async def test_a_session_goes_on_over_the_language_server_and_back(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("The capital is Paris.", response_id="resp_1"))
    scripted_model.enqueue(text_response("About two million.", response_id="resp_2"))
    scripted_model.enqueue(text_response("Yes, Paris.", response_id="resp_3"))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        assert await _prompt(conn, sid, "What is the capital of France?") == "end_turn"

    async with EditorSession(home, ws) as editor:
        resumed = await editor.codex("thread/resume", {"threadId": sid})
        assert resumed["thread"]["id"] == sid and len(resumed["thread"]["turns"]) == 1
        done = await editor.run_turn(sid, "And its population?")
        assert done["turn"]["status"] == "completed"

    again = RecordingClient()
    async with acp_agent(home, ws, again) as conn:
        await conn.load_session(cwd=str(ws), session_id=sid, mcp_servers=[])
        assert again.text("user_message_chunk", sid) == (
            "What is the capital of France?And its population?"
        )
        assert await _prompt(conn, sid, "Sure?") == "end_turn"
    body = str(scripted_model.requests[-1].body["input"])
    assert "About two million." in body and "The capital is Paris." in body


async def test_closing_a_session_mid_turn_answers_its_prompt_cancelled(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(slow_text_response(deltas=400, pause_s=0.05))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("Go on")]))
        await client.wait_for(lambda: len(client.of_kind("agent_message_chunk", sid)) >= 3)
        await asyncio.wait_for(conn.close_session(session_id=sid), WAIT_S)
        answer = await asyncio.wait_for(prompt, WAIT_S)
        assert answer.stop_reason == "cancelled"
        listed = await conn.list_sessions(cwd=str(ws))
        assert [s.session_id for s in listed.sessions] == [sid]


async def test_the_review_and_compact_commands_run_as_turns(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("hello", response_id="resp_1"))
    scripted_model.enqueue(text_response("SUMMARY OF WORK", response_id="resp_c"))
    review = {
        "findings": [],
        "overall_correctness": "patch is correct",
        "overall_explanation": "Nothing to fix in the error handling.",
        "overall_confidence_score": 0.9,
    }
    scripted_model.enqueue(text_response(json.dumps(review), response_id="resp_r"))
    scripted_model.enqueue(text_response("after", response_id="resp_2"))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        assert await _prompt(conn, sid, "say hello") == "end_turn"
        assert await _prompt(conn, sid, "/compact") == "end_turn"
        compaction = [u for u in client.of_kind("tool_call", sid) if u["kind"] == "think"]
        assert compaction[0]["title"] == "Compact conversation"
        assert await _prompt(conn, sid, "/review Look only at error handling.") == "end_turn"
        assert "Nothing to fix in the error handling." in client.text("agent_message_chunk", sid)
        assert await _prompt(conn, sid, "go on") == "end_turn"
    assert "Look only at error handling." in str(scripted_model.requests[2].body["input"])
    assert "SUMMARY OF WORK" in str(scripted_model.requests[-1].body["input"])
