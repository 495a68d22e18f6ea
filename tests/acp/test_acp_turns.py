"""Turns through `codex-lsp acp`, as an ACP client sees them: a streamed answer with its
reasoning, commands with each permission option, a patch shown as a diff and written through
the client, and a prompt cancelled mid-stream.

The agent is the real subprocess; the model is the scripted server; commands really run.
"""

from __future__ import annotations

import asyncio

import pytest
from acp import text_block

from tests.support.acp_client import WAIT_S, RecordingClient, acp_agent
from tests.support.appserver import make_home
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    message_item,
    multi_item_response,
    reasoning_step,
    slow_text_response,
    text_response,
    usage,
)

ANSWER = "Hello! Here is a streamed answer in several pieces."


async def test_a_streamed_answer_comes_as_chunks_and_ends_the_turn(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(
        multi_item_response(
            [reasoning_step("Thinking it over", index=0), message_item(ANSWER, index=1)],
            usage_=usage(100, 20),
        )
    )
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        caps = conn.initialize_response.agent_capabilities
        assert caps.load_session and caps.session_capabilities.list is not None
        assert caps.session_capabilities.resume is not None
        assert caps.session_capabilities.close is not None
        assert caps.prompt_capabilities.image and caps.prompt_capabilities.embedded_context
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        assert session.modes.current_mode_id in {"read-only", "agent", "full-access"}
        assert {m.id for m in session.modes.available_modes} >= {"read-only", "plan"}
        assert [o.id for o in session.config_options] == ["mode", "model", "reasoning_effort"]
        answer = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Say hello.")]), WAIT_S
        )
    assert answer.stop_reason == "end_turn"
    sid = session.session_id
    assert client.text("agent_message_chunk", sid) == ANSWER
    assert len(client.of_kind("agent_message_chunk", sid)) >= 2
    assert client.text("agent_thought_chunk", sid) == "Thinking it over"
    kinds = client.kinds(sid)
    assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
    commands = client.of_kind("available_commands_update", sid)[0]["availableCommands"]
    assert {c["name"] for c in commands} == {"review", "compact"}
    # The client typed the prompt: it is not echoed back.
    assert "user_message_chunk" not in kinds
    sent = scripted_model.requests[0].body["input"]
    assert "Say hello." in str(sent)


def _command_turn(scripted_model, ws, call_id: str, script: str = "echo ran >> log.txt") -> None:
    args = {"cmd": script, "workdir": str(ws), "sandbox_permissions": "require_escalated"}
    scripted_model.enqueue(function_call_response("exec_command", args, call_id=call_id))
    scripted_model.enqueue(text_response("Finished.", response_id=f"resp_{call_id}"))


def _runs(ws) -> int:
    log = ws / "log.txt"
    return len(log.read_text().splitlines()) if log.exists() else 0


@pytest.mark.parametrize(
    ("option", "asked", "runs"),
    [
        # The second request, when there is one, is allowed once.
        ("allow_once", 2, 2),
        ("allow_always", 1, 2),
        ("reject_once", 2, 1),
        ("reject_always", 1, 0),
    ],
)
async def test_a_command_asks_permission_and_each_option_is_the_engines_decision(
    scripted_model, tmp_path, option, asked, runs
):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="on-request")
    _command_turn(scripted_model, ws, "call_1")
    _command_turn(scripted_model, ws, "call_2")
    client = RecordingClient()
    client.answers = [option, "allow_once"]
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("Log a line")]), WAIT_S
        )
        assert answer.stop_reason == "end_turn"
        assert _runs(ws) == (1 if option.startswith("allow") else 0)
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("Log another")]), WAIT_S
        )
        assert answer.stop_reason == "end_turn"
    request = client.permission_requests[0]
    assert request["sessionId"] == sid
    assert request["toolCall"]["toolCallId"] == "call_1"
    assert request["toolCall"]["kind"] == "execute"
    # Approving lets it past the sandbox (it asked to escalate), and the prompt says so.
    assert request["toolCall"]["title"] == "Run OUTSIDE the sandbox: echo ran >> log.txt"
    assert [o["kind"] for o in request["options"]] == [
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    # The request names a tool call the client was already told about.
    starts = client.of_kind("tool_call", sid)
    assert starts[0]["toolCallId"] == "call_1" and starts[0]["kind"] == "execute"
    assert starts[0]["title"] == "echo ran >> log.txt"
    assert len(client.permission_requests) == asked
    assert _runs(ws) == runs
    ends = {u["toolCallId"]: u for u in client.of_kind("tool_call_update", sid) if u.get("status")}
    assert ends["call_1"]["status"] == ("completed" if option.startswith("allow") else "failed")
    if option.startswith("allow"):
        assert ends["call_1"]["rawOutput"]["exitCode"] == 0
    if option.startswith("reject"):
        assert "rejected by user" in str(scripted_model.requests[1].body["input"])


async def test_always_allowing_a_command_prefix_saves_the_rule_and_asks_no_more(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    for call_id, script in (("call_1", "touch one.flag"), ("call_2", "touch one.flag two.flag")):
        args = {"cmd": script, "workdir": str(ws)}
        scripted_model.enqueue(function_call_response("exec_command", args, call_id=call_id))
        scripted_model.enqueue(text_response("Finished.", response_id=f"resp_{call_id}"))
    client = RecordingClient()
    client.answers = ["allow_command_prefix"]
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        for text in ("Touch one", "Touch two"):
            answer = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[text_block(text)]), WAIT_S
            )
            assert answer.stop_reason == "end_turn"
    [request] = client.permission_requests
    assert [(o["optionId"], o["kind"]) for o in request["options"]] == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("allow_command_prefix", "allow_always"),
        ("reject_once", "reject_once"),
        ("reject_always", "reject_always"),
    ]
    assert request["options"][2]["name"] == "Always allow commands starting with `touch one.flag`"
    assert (home / "rules" / "default.rules").read_text() == (
        'prefix_rule(pattern=["touch", "one.flag"], decision="allow")\n'
    )
    assert (ws / "one.flag").exists() and (ws / "two.flag").exists()


async def test_a_cancelled_permission_request_cancels_the_prompt(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="on-request")
    _command_turn(scripted_model, ws, "call_never", "touch never.txt")
    client = RecordingClient()
    client.answers = [None]
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        answer = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Touch it")]), WAIT_S
        )
    assert answer.stop_reason == "cancelled"
    assert not (ws / "never.txt").exists()


async def test_cancel_mid_stream_answers_the_prompt_with_cancelled(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(slow_text_response(deltas=400, pause_s=0.05))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("Go on")]))
        await client.wait_for(lambda: len(client.of_kind("agent_message_chunk", sid)) >= 3)
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(prompt, WAIT_S)
        streamed = len(client.of_kind("agent_message_chunk", sid))
    assert answer.stop_reason == "cancelled"
    assert 3 <= streamed < 400


PATCH = """*** Begin Patch
*** Add File: hello.txt
+Hello from apply_patch
*** Update File: app.py
@@
-print("hi")
+print("hello")
*** End Patch"""


@pytest.mark.parametrize("fs", [True, False])
async def test_a_patch_is_a_diff_and_is_written_through_the_client_when_it_can(
    scripted_model, tmp_path, fs
):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="on-request")
    (ws / "app.py").write_text('print("hi")\nprint("two")\n')
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    check = {"cmd": "cat app.py hello.txt", "workdir": str(ws)}
    scripted_model.enqueue(function_call_response("exec_command", check, call_id="call_cat"))
    scripted_model.enqueue(text_response("Done.", response_id="resp_3"))
    client = RecordingClient()
    # What the editor shows, not saved: the patch is made against it when the client can say.
    unsaved = 'print("hi")\nprint("unsaved")\n'
    client.buffers[str(ws / "app.py")] = unsaved
    before = unsaved if fs else 'print("hi")\nprint("two")\n'
    after = before.replace("hi", "hello")
    async with acp_agent(home, ws, client, fs=fs) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="agent")
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("Edit it")]), WAIT_S
        )
    assert answer.stop_reason == "end_turn"
    start = next(u for u in client.of_kind("tool_call", sid) if u["toolCallId"] == "call_patch")
    assert start["kind"] == "edit"
    assert sorted(loc["path"] for loc in start["locations"]) == sorted(
        [str(ws / "hello.txt"), str(ws / "app.py")]
    )
    diffs = {c["path"]: c for c in start["content"] if c["type"] == "diff"}
    assert diffs[str(ws / "hello.txt")].get("oldText") is None
    assert diffs[str(ws / "hello.txt")]["newText"] == "Hello from apply_patch\n"
    assert diffs[str(ws / "app.py")]["oldText"] == before
    assert diffs[str(ws / "app.py")]["newText"] == after
    if fs:
        written = {path: (content, disk) for path, content, disk in client.writes}
        # Written through the client first, the disk still holding what it held.
        assert written[str(ws / "app.py")] == (after, 'print("hi")\nprint("two")\n')
        assert written[str(ws / "hello.txt")] == ("Hello from apply_patch\n", None)
        assert str(ws / "app.py") in client.reads
    else:
        assert client.writes == [] and client.reads == []
    # The disk held the change before the next command ran: that command read it.
    cat = next(
        i
        for i in scripted_model.requests[2].body["input"]
        if i.get("call_id") == "call_cat" and "output" in i
    )
    assert after.splitlines()[1] in cat["output"] and "Hello from apply_patch" in cat["output"]
    assert (ws / "app.py").read_text() == after


ALIAS_PATCH = """*** Begin Patch
*** Update File: alias/a.txt
@@
-one
+two
*** End Patch"""


async def test_a_path_through_a_symbolic_link_is_written_to_disk_only(scripted_model, tmp_path):
    # The client would follow the link wherever it leads by the time it writes; the confined
    # writer resolves it once, at the check, and refuses one that moved.
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="on-request")
    (ws / "real").mkdir()
    (ws / "real" / "a.txt").write_text("one\n")
    (ws / "alias").symlink_to(ws / "real")
    scripted_model.enqueue(
        custom_tool_call_response("apply_patch", ALIAS_PATCH, call_id="call_alias")
    )
    scripted_model.enqueue(text_response("Done.", response_id="resp_2"))
    client = RecordingClient()
    async with acp_agent(home, ws, client, fs=True) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="agent")
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("Edit it")]), WAIT_S
        )
    assert answer.stop_reason == "end_turn"
    assert client.writes == []
    assert (ws / "real" / "a.txt").read_text() == "two\n"


async def test_a_vanished_client_ends_the_agent_mid_turn(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(slow_text_response(deltas=400, pause_s=0.05))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("Go on")]))
        await client.wait_for(lambda: len(client.of_kind("agent_message_chunk", sid)) >= 3)
        conn.process.stdin.close()
        code = await asyncio.wait_for(conn.process.wait(), WAIT_S)
        prompt.cancel()
    assert code == 0
    # The thread was saved on the way out: its rollout holds the prompt.
    rollouts = list((home / "sessions").rglob("*.jsonl"))
    assert any("Go on" in path.read_text() for path in rollouts)


async def test_reading_and_searching_commands_are_read_and_search_tool_calls(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "notes.md").write_text("# Notes\nTODO: more\n")
    read = {"cmd": "cat notes.md", "workdir": str(ws)}
    scripted_model.enqueue(function_call_response("exec_command", read, call_id="call_read"))
    search = {"cmd": "grep -n TODO notes.md", "workdir": str(ws)}
    scripted_model.enqueue(function_call_response("exec_command", search, call_id="call_grep"))
    scripted_model.enqueue(text_response("Read and searched.", response_id="resp_3"))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="agent")
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("Look")]), WAIT_S
        )
    assert answer.stop_reason == "end_turn"
    calls = {u["toolCallId"]: u for u in client.of_kind("tool_call", sid)}
    assert calls["call_read"]["kind"] == "read"
    assert calls["call_read"]["locations"] == [{"path": str(ws / "notes.md")}]
    assert calls["call_grep"]["kind"] == "search"
    ends = {u["toolCallId"]: u for u in client.of_kind("tool_call_update", sid) if "status" in u}
    assert "TODO: more" in ends["call_read"]["content"][0]["content"]["text"]
    assert "2:TODO: more" in ends["call_grep"]["content"][0]["content"]["text"]


async def test_a_cancel_sent_right_after_the_prompt_cancels_it(scripted_model, tmp_path):
    # The cancel may arrive before the turn has even started: it still stops that turn.
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(slow_text_response(deltas=400, pause_s=0.05))
    client = RecordingClient()
    async with acp_agent(home, ws, client) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("Go on")]))
        await asyncio.sleep(0)
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(prompt, 10)
    assert answer.stop_reason == "cancelled"
