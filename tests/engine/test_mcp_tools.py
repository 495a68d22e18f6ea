"""MCP servers' tools end to end: the engine, the scripted model and a real MCP server.

The server is `tests/support/mcp_server.py`, run over stdio from config.toml as a user would
configure it (or over streamable HTTP for the `url` tests).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.protocol.core.ops import Interrupt
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_server.py"


def _toml(value: Any) -> str:
    # JSON strings, numbers, booleans and arrays of them are valid TOML as they are.
    return json.dumps(value)


def mcp_table(name: str = "tests", *, flags: tuple[str, ...] = (), **keys: Any) -> str:
    """`[mcp_servers.<name>]` running the test server over stdio, plus `keys`.

    `tools={"add": {"approval_mode": "prompt"}}` becomes `[mcp_servers.<name>.tools.add]`.
    """
    tools = keys.pop("tools", {})
    keys.setdefault("command", sys.executable)
    keys.setdefault("args", [str(MCP_SERVER), *flags])
    lines = [f"[mcp_servers.{name}]", *(f"{k} = {_toml(v)}" for k, v in keys.items())]
    for tool, settings in tools.items():
        lines.append(f"[mcp_servers.{name}.tools.{tool}]")
        lines += [f"{k} = {_toml(v)}" for k, v in settings.items()]
    return "\n".join(lines) + "\n"


def _is_dead(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def _outputs(body: dict[str, Any]) -> dict[str, str]:
    return {
        item["call_id"]: item["output"]
        for item in body["input"]
        if item.get("type") == "function_call_output"
    }


def _tool(body: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((tool for tool in body.get("tools", []) if tool.get("name") == name), None)


def _setup(tmp_path: Path, base_url: str, tables: str, **config: Any) -> tuple[Path, Path]:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, base_url, extra=tables, **config)
    return home, ws


async def test_model_calls_an_mcp_tool_and_reads_its_result(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, mcp_table())
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 2, "b": 40}, call_id="call_add")
    )
    scripted_model.enqueue(text_response("The sum is 42.", response_id="resp_2"))

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        assert configured.msg.type == "session_configured"
        events = await engine.run_turn("add 2 and 40")

    first, second = (request.body for request in scripted_model.requests)
    add = _tool(first, "mcp__tests__add")
    assert add is not None, [tool.get("name") for tool in first["tools"]]
    assert add["type"] == "function"
    assert add["description"] == "Add two integers."
    assert add["parameters"]["type"] == "object"
    assert add["parameters"]["required"] == ["a", "b"]
    assert add["parameters"]["properties"]["a"]["type"] == "integer"
    assert _tool(first, "mcp__tests__echo") is not None
    assert _outputs(second) == {"call_add": "42"}

    kinds = [event.msg.type for event in events]
    assert "exec_approval_request" not in kinds  # `auto` under on-request runs without asking
    assert kinds.index("mcp_tool_call_begin") < kinds.index("mcp_tool_call_end")
    assert kinds.index("mcp_tool_call_end") < kinds.index("task_complete")
    (begin,) = engine.of_type("mcp_tool_call_begin", events)
    (end,) = engine.of_type("mcp_tool_call_end", events)
    invocation = {"server": "tests", "tool": "add", "arguments": {"a": 2, "b": 40}}
    assert begin.call_id == end.call_id == "call_add"
    assert begin.invocation == end.invocation == invocation
    assert end.error is None
    assert end.result["content"] == [{"type": "text", "text": "42"}]
    assert end.result["structuredContent"] == {"result": 42}
    assert end.result["isError"] is False
    assert end.duration is not None
    assert not engine.of_type("warning")


async def test_a_failing_tool_is_an_error_event_and_a_tool_error(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, mcp_table())
    scripted_model.enqueue(
        function_call_response("mcp__tests__fail", {"message": "disk on fire"}, call_id="c1")
    )
    scripted_model.enqueue(text_response("It failed.", response_id="resp_2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("try it")

    (end,) = engine.of_type("mcp_tool_call_end", events)
    assert "disk on fire" in end.error
    assert end.result["isError"] is True
    output = _outputs(scripted_model.requests[1].body)["c1"]
    assert "`fail` of the MCP server `tests` returned an error" in output
    assert "disk on fire" in output


async def test_bad_arguments_and_unknown_tools_are_tool_errors(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, mcp_table())
    scripted_model.enqueue(function_call_response("mcp__tests__add", "[1, 2]", call_id="c1"))
    scripted_model.enqueue(function_call_response("mcp__tests__nope", {}, call_id="c2"))
    scripted_model.enqueue(text_response("Giving up.", response_id="resp_3"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("misuse the tools")

    assert not engine.of_type("mcp_tool_call_begin", events)
    outputs = {**_outputs(scripted_model.requests[1].body)}
    outputs.update(_outputs(scripted_model.requests[2].body))
    assert outputs["c1"] == "failed to parse function arguments: expected a JSON object"
    assert outputs["c2"] == "unknown MCP tool: mcp__tests__nope"


async def test_a_server_that_cannot_start_is_a_warning_not_a_dead_session(scripted_model, tmp_path):
    tables = (
        mcp_table("ghost", command="/nonexistent/mcp-server", args=[])
        + mcp_table("crashy", flags=("--crash",))
        + mcp_table("off", command="/nonexistent/disabled", args=[], enabled=False)
        + mcp_table()
    )
    home, ws = _setup(tmp_path, scripted_model.base_url, tables)
    scripted_model.enqueue(text_response("Still here."))

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        assert configured.msg.type == "session_configured"
        warnings = [msg.message for msg in engine.of_type("warning")]
        events = await engine.run_turn("hello")

    assert sorted(warnings) == [
        "MCP server `crashy` failed to start: the server closed the connection "
        "(stderr: mcp test server: refusing to start (--crash))",
        "MCP server `ghost` failed to start: command `/nonexistent/mcp-server` not found",
    ]
    assert engine.of_type("task_complete", events)[0].last_agent_message == "Still here."
    names = [tool.get("name") for tool in scripted_model.requests[0].body["tools"]]
    assert "mcp__tests__add" in names
    assert not [name for name in names if name.startswith(("mcp__ghost", "mcp__crashy"))]
    assert not [name for name in names if name.startswith("mcp__off")]


async def test_a_server_that_does_not_answer_in_time_is_a_warning(scripted_model, tmp_path):
    tables = mcp_table("slowpoke", flags=("--hang",), startup_timeout_sec=0.5)
    home, ws = _setup(tmp_path, scripted_model.base_url, tables)

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))

    assert configured.msg.type == "session_configured"
    assert [msg.message for msg in engine.of_type("warning")] == [
        "MCP server `slowpoke` failed to start: did not start within 0.5s"
    ]


async def test_servers_stop_when_the_session_ends(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, mcp_table())
    scripted_model.enqueue(function_call_response("mcp__tests__pid", {}, call_id="c1"))
    scripted_model.enqueue(text_response("Noted.", response_id="resp_2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("what is your pid")
        pid = int(_outputs(scripted_model.requests[1].body)["c1"])
        assert not _is_dead(pid)

    assert _is_dead(pid)


async def test_a_server_that_dies_mid_session_is_a_warning_and_its_tools_go(
    scripted_model, tmp_path
):
    home, ws = _setup(tmp_path, scripted_model.base_url, mcp_table())
    scripted_model.enqueue(function_call_response("mcp__tests__die", {}, call_id="c1"))
    scripted_model.enqueue(text_response("It died.", response_id="resp_2"))
    scripted_model.enqueue(text_response("Still here.", response_id="resp_3"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        first = await engine.run_turn("crash it")
        second = await engine.run_turn("and now?")

    (end,) = engine.of_type("mcp_tool_call_end", first)
    assert end.error == "the server closed the connection"
    assert [msg.message for msg in engine.of_type("warning", first)] == [
        "MCP server `tests` stopped: the server closed the connection"
    ]
    output = _outputs(scripted_model.requests[1].body)["c1"]
    assert output == "tool `die` of the MCP server `tests` failed: the server closed the connection"
    assert _tool(scripted_model.requests[0].body, "mcp__tests__add") is not None
    assert _tool(scripted_model.requests[2].body, "mcp__tests__add") is None
    assert engine.of_type("task_complete", second)[0].last_agent_message == "Still here."


async def test_a_slow_tool_times_out(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, mcp_table(tool_timeout_sec=0.5))
    scripted_model.enqueue(function_call_response("mcp__tests__slow", {"seconds": 5}, call_id="c1"))
    scripted_model.enqueue(text_response("Too slow.", response_id="resp_2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("be slow")

    (end,) = engine.of_type("mcp_tool_call_end", events)
    assert end.error == "timed out after 0.5s"
    output = _outputs(scripted_model.requests[1].body)["c1"]
    assert output == "tool `slow` of the MCP server `tests` failed: timed out after 0.5s"


async def test_an_interrupt_ends_the_call_and_the_server_still_serves(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, mcp_table())
    scripted_model.enqueue(
        function_call_response("mcp__tests__slow", {"seconds": 60}, call_id="c1")
    )
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 1, "b": 1}, call_id="c2")
    )
    scripted_model.enqueue(text_response("Two.", response_id="resp_3"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.send("be slow")
        await engine.until("mcp_tool_call_begin")
        await engine.codex.submit(Interrupt())
        interrupted = await engine.until("mcp_tool_call_end")
        await engine.until("turn_aborted")
        events = await engine.run_turn("add 1 and 1")

    assert interrupted.msg.call_id == "c1" and interrupted.msg.error == "interrupted"
    assert _outputs(scripted_model.requests[2].body)["c2"] == "2"
    assert engine.of_type("mcp_tool_call_end", events)[0].result["isError"] is False


async def test_prompt_mode_asks_and_remembers_approved_for_session_per_tool(
    scripted_model, tmp_path
):
    table = mcp_table(default_tools_approval_mode="prompt")
    home, ws = _setup(tmp_path, scripted_model.base_url, table)
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 1, "b": 2}, call_id="c1")
    )
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 3, "b": 4}, call_id="c2")
    )
    scripted_model.enqueue(function_call_response("mcp__tests__echo", {"text": "hi"}, call_id="c3"))
    scripted_model.enqueue(text_response("Done.", response_id="resp_4"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("go", approvals=["approved_for_session", "denied"])

    asked = engine.of_type("exec_approval_request", events)
    assert [request.call_id for request in asked] == ["c1", "c3"]
    assert asked[0].reason == "Allow the MCP server `tests` to run its tool `add`?"
    assert asked[0].command[:3] == ["mcp", "tests", "add"]
    assert "approved_for_session" in asked[0].available_decisions
    outputs = _outputs(scripted_model.requests[3].body)
    assert (outputs["c1"], outputs["c2"]) == ("3", "7")
    assert outputs["c3"] == "MCP tool call rejected by user"
    ends = {end.call_id: end for end in engine.of_type("mcp_tool_call_end", events)}
    assert ends["c3"].error == "MCP tool call rejected by user" and ends["c3"].result is None


async def test_auto_mode_follows_the_approval_policy(scripted_model, tmp_path):
    tables = mcp_table(tools={"echo": {"approval_mode": "approve"}})
    home, ws = _setup(tmp_path, scripted_model.base_url, tables, approval_policy="untrusted")
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 1, "b": 2}, call_id="c1")
    )
    scripted_model.enqueue(function_call_response("mcp__tests__peek", {}, call_id="c2"))
    scripted_model.enqueue(function_call_response("mcp__tests__echo", {"text": "x"}, call_id="c3"))
    scripted_model.enqueue(text_response("Done.", response_id="resp_4"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("go", approvals=["approved"])

    # Untrusted asks for `add`; `peek` is marked read-only and `echo` is pre-approved.
    assert [request.call_id for request in engine.of_type("exec_approval_request", events)] == [
        "c1"
    ]
    outputs = _outputs(scripted_model.requests[3].body)
    assert outputs == {"c1": "3", "c2": "nothing changed", "c3": "x"}


async def test_prompt_mode_under_policy_never_declines_without_asking(scripted_model, tmp_path):
    tables = mcp_table(tools={"add": {"approval_mode": "prompt"}})
    home, ws = _setup(tmp_path, scripted_model.base_url, tables, approval_policy="never")
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 1, "b": 2}, call_id="c1")
    )
    scripted_model.enqueue(text_response("Cannot.", response_id="resp_2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("go")

    assert not engine.of_type("exec_approval_request", events)
    output = _outputs(scripted_model.requests[1].body)["c1"]
    assert output.startswith("MCP tool call not run: this tool needs the user's approval")
    assert engine.of_type("mcp_tool_call_end", events)[0].error == output


@pytest.fixture
def http_mcp_server() -> Iterator[str]:
    """The test server over streamable HTTP; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, str(MCP_SERVER), "--http"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("READY "), line
        yield line.split()[1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_streamable_http_server_with_a_bearer_token(
    scripted_model, tmp_path, http_mcp_server, monkeypatch
):
    monkeypatch.setenv("CODEX_LSP_TEST_MCP_TOKEN", "s3cret")
    tables = (
        f"[mcp_servers.web]\nurl = {_toml(http_mcp_server)}\n"
        'bearer_token_env_var = "CODEX_LSP_TEST_MCP_TOKEN"\n'
        f"[mcp_servers.locked]\nurl = {_toml(http_mcp_server)}\n"
        'bearer_token_env_var = "CODEX_LSP_TEST_MCP_UNSET"\n'
    )
    monkeypatch.delenv("CODEX_LSP_TEST_MCP_UNSET", raising=False)
    home, ws = _setup(tmp_path, scripted_model.base_url, tables)
    scripted_model.enqueue(function_call_response("mcp__web__whoami", {}, call_id="c1"))
    scripted_model.enqueue(text_response("Authenticated.", response_id="resp_2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("who am I")

    assert [msg.message for msg in engine.of_type("warning")] == [
        "MCP server `locked` failed to start: the environment variable "
        "CODEX_LSP_TEST_MCP_UNSET (bearer token) is not set"
    ]
    assert _outputs(scripted_model.requests[1].body) == {"c1": "Bearer s3cret"}
