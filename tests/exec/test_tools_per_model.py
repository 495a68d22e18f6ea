"""The built-in tools each model is offered, and the approval rule under each policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.engine import running_engine, write_config
from tests.support.scripted_builders import (
    chat_text_response,
    function_call_response,
    text_response,
)

BUILT_IN = {"exec_command", "write_stdin", "shell_command", "apply_patch", "update_plan"}


def _tools(request: Any) -> list[dict[str, Any]]:
    return [t for t in request.body["tools"] if _name(t) in BUILT_IN]


def _name(tool: dict[str, Any]) -> str:
    return str(tool.get("name") or tool.get("function", {}).get("name"))


async def _first_request(scripted_model, tmp_path: Path, model: str, extra: str = "", **kw):
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    write_config(home, scripted_model.base_url, model=model, extra=extra, **kw)
    if kw.get("wire_api") == "chat":
        scripted_model.enqueue(chat_text_response("hello"))
    else:
        scripted_model.enqueue(text_response("hello"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hi")
    return scripted_model.requests[-1]


@pytest.mark.parametrize("model", ["gpt-5.5", "gpt-5.4", "gpt-5.2"])
async def test_catalogued_models_get_unified_exec_and_freeform_apply_patch(
    scripted_model, tmp_path, model
):
    request = await _first_request(scripted_model, tmp_path, model)
    tools = _tools(request)
    assert [_name(t) for t in tools] == ["exec_command", "write_stdin", "apply_patch"]
    exec_command, write_stdin, apply_patch = tools
    params = exec_command["parameters"]
    assert params["required"] == ["cmd"] and params["additionalProperties"] is False
    assert {k: v["type"] for k, v in params["properties"].items()} == {
        "cmd": "string",
        "justification": "string",
        "login": "boolean",
        "max_output_tokens": "number",
        "prefix_rule": "array",
        "sandbox_permissions": "string",
        "shell": "string",
        "tty": "boolean",
        "workdir": "string",
        "yield_time_ms": "number",
    }
    assert params["properties"]["sandbox_permissions"]["enum"] == [
        "use_default",
        "require_escalated",
    ]
    assert write_stdin["parameters"]["required"] == ["session_id"]
    assert set(write_stdin["parameters"]["properties"]) == {
        "chars",
        "max_output_tokens",
        "session_id",
        "yield_time_ms",
    }
    assert apply_patch["type"] == "custom" and apply_patch["format"]["syntax"] == "lark"


async def test_a_model_the_catalogue_does_not_know_gets_no_apply_patch(scripted_model, tmp_path):
    request = await _first_request(scripted_model, tmp_path, "my-local-model")
    assert [_name(t) for t in _tools(request)] == ["exec_command", "write_stdin"]


async def test_apply_patch_freeform_feature_gives_unknown_models_the_tool(scripted_model, tmp_path):
    extra = "[features]\napply_patch_freeform = true\n"
    request = await _first_request(scripted_model, tmp_path, "my-local-model", extra)
    assert [_name(t) for t in _tools(request)] == ["exec_command", "write_stdin", "apply_patch"]


async def test_without_unified_exec_models_get_their_catalogue_shell(scripted_model, tmp_path):
    extra = "[features]\nunified_exec = false\n"
    request = await _first_request(scripted_model, tmp_path, "gpt-5.5", extra)
    assert [_name(t) for t in _tools(request)] == ["shell_command", "apply_patch"]


async def test_the_shell_tool_feature_turns_every_shell_off(scripted_model, tmp_path):
    extra = "[features]\nshell_tool = false\n"
    request = await _first_request(scripted_model, tmp_path, "gpt-5.5", extra)
    assert [_name(t) for t in _tools(request)] == ["apply_patch"]


async def test_update_plan_is_offered_when_enabled(scripted_model, tmp_path):
    extra = "[tools.update_plan]\nenabled = true\n"
    request = await _first_request(scripted_model, tmp_path, "gpt-5.5", extra)
    assert [_name(t) for t in _tools(request)] == [
        "exec_command",
        "write_stdin",
        "update_plan",
        "apply_patch",
    ]


async def test_chat_completions_servers_get_apply_patch_as_json(scripted_model, tmp_path):
    request = await _first_request(scripted_model, tmp_path, "gpt-5.4", wire_api="chat")
    tools = _tools(request)
    assert [_name(t) for t in tools] == ["exec_command", "write_stdin", "apply_patch"]
    assert all(t["type"] == "function" for t in tools)


@pytest.mark.parametrize(
    ("tool", "args"),
    [("shell_command", {"command": "touch made.txt"}), ("update_plan", {"plan": []})],
)
async def test_a_tool_the_turn_did_not_offer_is_unsupported(scripted_model, tmp_path, tool, args):
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir()
    write_config(home, scripted_model.base_url, model="gpt-5.5", approval_policy="never")
    scripted_model.enqueue(function_call_response(tool, args))
    scripted_model.enqueue(text_response("ok", response_id="resp_2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("go")
    output = scripted_model.requests[1].body["input"][-1]
    assert output["output"] == f"unsupported call: {tool}"
    assert not (ws / "made.txt").exists()


# -- approvals -------------------------------------------------------------------------------


async def _asked(scripted_model, tmp_path: Path, policy: str, sandbox: str, args: dict[str, Any]):
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    write_config(
        home, scripted_model.base_url, model="gpt-5.5", approval_policy=policy, sandbox_mode=sandbox
    )
    scripted_model.enqueue(function_call_response("exec_command", args))
    scripted_model.enqueue(text_response("ok", response_id="resp_2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("go", approvals=["approved"])
    output = scripted_model.requests[1].body["input"][-1]["output"]
    return engine.of_type("exec_approval_request", events), output


@pytest.mark.parametrize("cmd", ["echo hi", "ls", "pwd"])
@pytest.mark.parametrize("sandbox", ["workspace-write", "danger-full-access"])
async def test_untrusted_asks_before_read_only_commands(scripted_model, tmp_path, cmd, sandbox):
    asked, output = await _asked(scripted_model, tmp_path, "untrusted", sandbox, {"cmd": cmd})
    assert len(asked) == 1
    assert asked[0].reason is None
    assert asked[0].command[-1] == cmd
    assert "Process exited with code 0" in output


@pytest.mark.parametrize("cmd", ["echo hi", "touch made.txt"])
async def test_on_request_runs_plain_commands_unasked(scripted_model, tmp_path, cmd):
    asked, output = await _asked(
        scripted_model, tmp_path, "on-request", "workspace-write", {"cmd": cmd}
    )
    assert asked == []
    assert "Process exited with code 0" in output


async def test_on_request_asks_for_escalation_with_the_justification(scripted_model, tmp_path):
    args = {"cmd": "ls", "sandbox_permissions": "require_escalated", "justification": "List?"}
    asked, _ = await _asked(scripted_model, tmp_path, "on-request", "workspace-write", args)
    assert [a.reason for a in asked] == ["List?"]


async def test_on_request_asks_before_a_dangerous_command(scripted_model, tmp_path):
    asked, _ = await _asked(
        scripted_model, tmp_path, "on-request", "danger-full-access", {"cmd": "rm -rf x"}
    )
    assert len(asked) == 1 and asked[0].reason is None


async def test_never_refuses_escalation_and_dangerous_commands(scripted_model, tmp_path):
    args = {"cmd": "ls", "sandbox_permissions": "require_escalated"}
    asked, output = await _asked(scripted_model, tmp_path, "never", "workspace-write", args)
    assert asked == []
    assert output == (
        "approval policy is Never; reject command — you cannot ask for escalated permissions "
        "if the approval policy is Never"
    )


async def test_never_refuses_a_dangerous_command_in_the_reference_words(scripted_model, tmp_path):
    asked, output = await _asked(
        scripted_model, tmp_path, "never", "danger-full-access", {"cmd": "rm -rf x"}
    )
    assert asked == []
    assert output.startswith('exec_command failed: CreateProcess { message: "Rejected(\\"`')
    assert "-lc 'rm -rf x'` rejected: rm -f style commands are not permitted." in output
