"""What an ACP client gives `codex-lsp acp` beyond text: images, links to files and embedded
file contents in a prompt; MCP servers for a session; a refusal to write a file.

The agent is the real subprocess; the model is the scripted server; the MCP server is the
test server of `tests/support/mcp_server.py`, started by the engine.
"""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from acp import (
    RequestError,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)
from acp.schema import EnvVariable, HttpMcpServer, McpServerStdio

from tests.support.acp_client import WAIT_S, RecordingClient, acp_agent, agent_env
from tests.support.appserver import make_home
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_server.py"
# A valid one-pixel PNG: the server decodes every image it sends.
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "2mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


async def test_images_links_and_embedded_files_become_the_turn_input(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "notes.md").write_text("# Notes\n")
    scripted_model.enqueue(text_response("Seen."))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        prompt = [
            text_block("Look at these."),
            image_block(PIXEL, "image/png"),
            resource_link_block("notes.md", f"file://{ws / 'notes.md'}"),
            resource_block(
                embedded_text_resource(f"file://{ws / 'draft.py'}", "print(42)  # unsaved draft")
            ),
        ]
        answer = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=prompt), WAIT_S
        )
    assert answer.stop_reason == "end_turn"
    sent = str(scripted_model.requests[0].body["input"])
    assert "Look at these." in sent
    assert f"data:image/png;base64,{PIXEL}" in sent
    assert "notes.md" in sent
    assert "print(42)  # unsaved draft" in sent and str(ws / "draft.py") in sent


async def test_mcp_servers_the_client_passes_serve_the_session(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(
        function_call_response("mcp__client_tests__add", {"a": 5, "b": 6}, call_id="call_add")
    )
    scripted_model.enqueue(text_response("Eleven.", response_id="resp_2"))
    client = RecordingClient()
    server = McpServerStdio(
        name="client tests",
        command=sys.executable,
        args=[str(MCP_SERVER)],
        env=[EnvVariable(name="MCP_TEST_MARK", value="from-acp")],
    )
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[server])
        sid = session.session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("Add 5 and 6.")]), WAIT_S
        )
        assert answer.stop_reason == "end_turn"
        # Another session without it does not get the client's server.
        other = await conn.new_session(cwd=str(ws), mcp_servers=[])
        scripted_model.enqueue(text_response("No tools.", response_id="resp_3"))
        await asyncio.wait_for(
            conn.prompt(session_id=other.session_id, prompt=[text_block("Tools?")]), WAIT_S
        )
    tools = {t.get("name") for t in scripted_model.requests[0].body["tools"]}
    assert "mcp__client_tests__add" in tools
    later = {t.get("name") for t in scripted_model.requests[-1].body["tools"]}
    assert "mcp__client_tests__add" not in later
    call = next(u for u in client.of_kind("tool_call", sid) if u["toolCallId"] == "call_add")
    assert call["kind"] == "other" and call["title"] == "client_tests: add"
    done = [u for u in client.of_kind("tool_call_update", sid) if u["toolCallId"] == "call_add"]
    assert done[-1]["status"] == "completed"
    assert "11" in str(done[-1]["content"])


async def test_an_http_mcp_server_the_client_passes_serves_the_session(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(
        function_call_response("mcp__web__echo", {"text": "over http"}, call_id="call_echo")
    )
    scripted_model.enqueue(text_response("Echoed.", response_id="resp_2"))
    server = subprocess.Popen(
        [sys.executable, str(MCP_SERVER), "--http"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()
        assert ready.startswith("READY "), ready
        client = RecordingClient()
        web = HttpMcpServer(type="http", name="web", url=ready.split()[1], headers=[])
        async with acp_agent(home, ws, client) as conn:
            session = await conn.new_session(cwd=str(ws), mcp_servers=[web])
            answer = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[text_block("Echo")]), WAIT_S
            )
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert answer.stop_reason == "end_turn"
    done = [u for u in client.of_kind("tool_call_update") if u["toolCallId"] == "call_echo"]
    assert done[-1]["status"] == "completed" and "over http" in str(done[-1]["content"])


PATCH = "*** Begin Patch\n*** Update File: app.py\n@@\n-a = 1\n+a = 2\n*** End Patch"


async def test_a_write_the_client_refuses_fails_the_patch_and_leaves_the_disk(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="never")
    (ws / "app.py").write_text("a = 1\n")
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    scripted_model.enqueue(text_response("It failed.", response_id="resp_2"))
    client = RecordingClient()
    client.refuse_writes = True
    async with acp_agent(home, ws, client, fs=True) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="agent")
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("Edit it")]), WAIT_S
        )
    assert answer.stop_reason == "end_turn"
    assert (ws / "app.py").read_text() == "a = 1\n"
    ends = [u for u in client.of_kind("tool_call_update", sid) if u["toolCallId"] == "call_patch"]
    assert ends[-1]["status"] == "failed"
    output = next(
        i
        for i in scripted_model.requests[1].body["input"]
        if i.get("call_id") == "call_patch" and "output" in i
    )
    assert "refused to write" in output["output"]


async def test_authenticate_signs_in_with_the_key_in_the_environment(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        methods = [m.id for m in conn.initialize_response.auth_methods]
        assert methods == ["openai-api-key", "codex-sign-in"]
        with pytest.raises(RequestError) as refused:
            await conn.authenticate(method_id="openai-api-key")
        assert refused.value.code == -32000  # auth required: no key in the environment
    assert not (home / "auth.json").exists()

    env = agent_env(home, OPENAI_API_KEY="sk-test-acp-key")
    async with acp_agent(home, ws, client, env=env) as conn:
        await conn.authenticate(method_id="openai-api-key")
    auth = home / "auth.json"
    assert "sk-test-acp-key" in auth.read_text()
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    async with acp_agent(home, ws, client) as conn:
        await conn.authenticate(method_id="codex-sign-in")


QUESTIONS = {
    "questions": [
        {
            "id": "target_branch",
            "header": "Branch",
            "question": "Which branch should I target?",
            "options": [
                {"label": "main (Recommended)", "description": "The default branch."},
                {"label": "develop", "description": "The integration branch."},
            ],
        }
    ]
}


async def test_a_question_to_the_user_gets_no_answer_and_the_turn_goes_on(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response("request_user_input", QUESTIONS, call_id="call_ask")
    )
    scripted_model.enqueue(text_response("Using main.", response_id="resp_2"))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        answer = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Which branch?")]),
            WAIT_S,
        )
    assert answer.stop_reason == "end_turn"
    assert client.text("agent_message_chunk", session.session_id) == "Using main."
    output = next(
        i
        for i in scripted_model.requests[1].body["input"]
        if i.get("call_id") == "call_ask" and "output" in i
    )
    # Nothing was chosen on the user's behalf.
    assert json.loads(output["output"])["answers"]["target_branch"]["selected"] == []
