"""The scenarios run through both ACP agents (`sides.py`): each scripts the model, drives one
session through an agent and returns what the comparison needs.

They script the model only with what both engines offer it: a shell call goes to whichever
shell tool the request offers. Each agent is put in the same preset first (workspace writes,
approval asked for more), under its own name for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from acp import text_block

from tests.acp.sides import AGENT_MODE, Run
from tests.support.acp_client import WAIT_S, RecordingClient
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    message_item,
    multi_item_response,
    reasoning_step,
    slow_text_response,
    text_response,
)


@dataclass
class Outcome:
    """What a scenario saw: the session's updates and the prompts' stop reasons."""

    updates: list[dict[str, Any]]
    stop_reasons: list[str]
    permission_requests: list[dict[str, Any]] = field(default_factory=list)


async def _prompt(conn: Any, session_id: str, text: str) -> str:
    answer = await asyncio.wait_for(
        conn.prompt(session_id=session_id, prompt=[text_block(text)]), WAIT_S
    )
    return str(answer.stop_reason)


def _shell(run: Run, command: str, call_id: str, **extra: Any) -> None:
    run.model.enqueue_by_tool(
        {
            "exec_command": function_call_response(
                "exec_command", {"cmd": command, "workdir": str(run.ws), **extra}, call_id=call_id
            ),
            "shell_command": function_call_response(
                "shell_command",
                {"command": command, "workdir": str(run.ws), **extra},
                call_id=call_id,
            ),
        }
    )


async def _session(run: Run, conn: Any) -> str:
    session = await conn.new_session(cwd=str(run.ws), mcp_servers=[])
    await conn.set_session_mode(session_id=session.session_id, mode_id=AGENT_MODE[run.side])
    return str(session.session_id)


def _own(client: RecordingClient, session_id: str) -> list[dict[str, Any]]:
    return [update for sid, update in client.updates if sid == session_id]


async def streamed_answer(run: Run) -> Outcome:
    run.model.enqueue(
        multi_item_response(
            [reasoning_step("Thinking it over", index=0), message_item("Hello there.", index=1)]
        )
    )
    client = RecordingClient()
    async with run.agent(client) as conn:
        sid = await _session(run, conn)
        stops = [await _prompt(conn, sid, "Say hello.")]
    return Outcome(_own(client, sid), stops)


async def command_with_permission(run: Run) -> Outcome:
    _shell(run, "echo ran >> log.txt", "call_cmd", sandbox_permissions="require_escalated")
    run.model.enqueue(text_response("Logged.", response_id="resp_2"))
    client = RecordingClient()
    client.answers = ["allow_once"]
    async with run.agent(client) as conn:
        sid = await _session(run, conn)
        stops = [await _prompt(conn, sid, "Log a line, outside the sandbox.")]
    assert (run.ws / "log.txt").read_text() == "ran\n"
    return Outcome(_own(client, sid), stops, client.permission_requests)


PATCH = """*** Begin Patch
*** Add File: hello.txt
+Hello from apply_patch
*** Update File: app.py
@@
-print("hi")
+print("hello")
*** End Patch"""


async def patch_as_diff(run: Run) -> Outcome:
    (run.ws / "app.py").write_text('print("hi")\n')
    run.model.enqueue_by_tool(
        {"apply_patch": custom_tool_call_response("apply_patch", PATCH, call_id="call_patch")}
    )
    run.model.enqueue(text_response("Edited.", response_id="resp_2"))
    client = RecordingClient()
    async with run.agent(client) as conn:
        sid = await _session(run, conn)
        stops = [await _prompt(conn, sid, "Edit the files.")]
    assert (run.ws / "app.py").read_text() == 'print("hello")\n'
    return Outcome(_own(client, sid), stops)


PLAN_ANSWER = "I looked.\n\n<proposed_plan>\n# Fix it\n\n1. Write the fix.\n</proposed_plan>"


async def plan_mode(run: Run) -> Outcome:
    run.model.enqueue(text_response(PLAN_ANSWER))
    client = RecordingClient()
    async with run.agent(client) as conn:
        sid = await _session(run, conn)
        if run.side == "ours":
            await conn.set_session_mode(session_id=sid, mode_id="plan")
        else:
            await conn.set_config_option(
                config_id="collaboration_mode", session_id=sid, value="plan"
            )
        stops = [await _prompt(conn, sid, "Plan the fix.")]
    return Outcome(_own(client, sid), stops, client.permission_requests)


async def cancel_mid_stream(run: Run) -> Outcome:
    run.model.enqueue(slow_text_response(deltas=400, pause_s=0.05))
    client = RecordingClient()
    async with run.agent(client) as conn:
        sid = await _session(run, conn)
        prompt = asyncio.create_task(_prompt(conn, sid, "Go on and on."))
        await client.wait_for(
            lambda: sum(u["sessionUpdate"] == "agent_message_chunk" for u in _own(client, sid)) >= 3
        )
        await conn.cancel(session_id=sid)
        stops = [await asyncio.wait_for(prompt, WAIT_S)]
    return Outcome(_own(client, sid), stops)


async def load_replays_history(run: Run) -> Outcome:
    _shell(run, "echo listed", "call_echo")
    run.model.enqueue(text_response("The capital is Paris.", response_id="resp_2"))
    first = RecordingClient()
    async with run.agent(first) as conn:
        sid = await _session(run, conn)
        stops = [await _prompt(conn, sid, "What is the capital of France?")]
    loaded = RecordingClient()
    async with run.agent(loaded) as conn:
        listed = await conn.list_sessions(cwd=str(run.ws))
        assert sid in [s.session_id for s in listed.sessions]
        await asyncio.wait_for(
            conn.load_session(cwd=str(run.ws), session_id=sid, mcp_servers=[]), WAIT_S
        )
    return Outcome(_own(loaded, sid), stops)


Scenario = Callable[[Run], Awaitable[Outcome]]

SCENARIOS: dict[str, Scenario] = {
    "streamed_answer": streamed_answer,
    "command_with_permission": command_with_permission,
    "patch_as_diff": patch_as_diff,
    "plan_mode": plan_mode,
    "cancel_mid_stream": cancel_mid_stream,
    "load_replays_history": load_replays_history,
}
