"""Keys of a Codex user's config.toml acted on as codex 0.171 does, seen where a user sees
them: the request the scripted model server receives, and what a real MCP server gets."""

from __future__ import annotations

import json
import sys

import anyio

from tests.engine.test_mcp_tools import _outputs, _setup, _tool, http_mcp_server, mcp_table
from tests.support.engine import running_engine
from tests.support.scripted_builders import function_call_response, text_response

__all__ = ["http_mcp_server"]  # the fixture, used by name


def _offered(body: dict) -> list[str]:
    return sorted(tool["name"] for tool in body.get("tools", []) if "mcp__" in tool["name"])


async def test_only_enabled_tools_less_disabled_ones_are_offered(scripted_model, tmp_path):
    table = mcp_table(enabled_tools=["add", "echo", "peek"], disabled_tools=["echo"])
    home, ws = _setup(tmp_path, scripted_model.base_url, table)
    scripted_model.enqueue(function_call_response("mcp__tests__echo", {"text": "x"}, call_id="c1"))
    scripted_model.enqueue(text_response("done", response_id="resp_2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("go")

    first, second = (request.body for request in scripted_model.requests)
    assert _offered(first) == ["mcp__tests__add", "mcp__tests__peek"]
    assert _tool(first, "mcp__tests__fail") is None
    # A disabled tool the model names anyway is not run.
    assert _outputs(second)["c1"] != "x"


async def test_model_verbosity_is_sent_as_text_verbosity(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, "", model="gpt-5.4")
    config = home / "config.toml"
    config.write_text('model_verbosity = "low"\n' + config.read_text())
    scripted_model.enqueue(text_response("short", response_id="resp_1"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hi")

    (request,) = scripted_model.requests
    assert request.body["text"]["verbosity"] == "low"


async def test_a_provider_auth_command_supplies_the_bearer_token(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, "")
    config = home / "config.toml"
    script = "print('  tok-from-command  ')"
    config.write_text(
        config.read_text()
        + "\n[model_providers.scripted.auth]\n"
        + f"command = {json.dumps(sys.executable)}\nargs = {json.dumps(['-c', script])}\n"
    )
    scripted_model.enqueue(text_response("one", response_id="resp_1"))
    scripted_model.enqueue(text_response("two", response_id="resp_2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hi")
        await engine.run_turn("again")

    assert [r.headers.get("authorization") for r in scripted_model.requests] == [
        "Bearer tok-from-command",
        "Bearer tok-from-command",
    ]


async def test_a_failing_provider_auth_command_fails_the_turn_by_name(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, "")
    config = home / "config.toml"
    config.write_text(config.read_text() + '\n[model_providers.scripted.auth]\ncommand = "false"\n')
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("hi")

    errors = [event.msg.message for event in events if event.msg.type == "error"]
    assert errors and "provider auth command `false` exited with status 1" in errors[-1]
    assert not scripted_model.requests


async def test_mcp_http_headers_and_env_http_headers_reach_the_server(
    scripted_model, tmp_path, http_mcp_server, monkeypatch
):
    monkeypatch.setenv("CODEX_LSP_TEST_MCP_HEADER", "Bearer from-env")
    monkeypatch.delenv("CODEX_LSP_TEST_MCP_UNSET", raising=False)
    tables = (
        f"[mcp_servers.static]\nurl = {json.dumps(http_mcp_server)}\n"
        'http_headers = { Authorization = "Bearer static" }\n'
        f"[mcp_servers.fromenv]\nurl = {json.dumps(http_mcp_server)}\n"
        'env_http_headers = { Authorization = "CODEX_LSP_TEST_MCP_HEADER" }\n'
        f"[mcp_servers.unset]\nurl = {json.dumps(http_mcp_server)}\n"
        'env_http_headers = { Authorization = "CODEX_LSP_TEST_MCP_UNSET" }\n'
    )
    home, ws = _setup(tmp_path, scripted_model.base_url, tables)
    for index, server in enumerate(("static", "fromenv", "unset")):
        scripted_model.enqueue(
            function_call_response(f"mcp__{server}__whoami", {}, call_id=f"c{index}")
        )
    scripted_model.enqueue(text_response("done", response_id="resp_9"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("who am I")

    assert _outputs(scripted_model.requests[-1].body) == {
        "c0": "Bearer static",
        "c1": "Bearer from-env",
        "c2": "anonymous",  # a header whose variable is unset is left out
    }


async def test_instructions_file_fallback_docs_and_cached_web_search(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, "")
    config = home / "config.toml"
    config.write_text(
        'model_instructions_file = "mine.md"\n'
        'project_doc_fallback_filenames = ["CLAUDE.md"]\n'
        'web_search = "cached"\n' + config.read_text()
    )
    (home / "mine.md").write_text("You are the house style checker.")
    (ws / "CLAUDE.md").write_text("Run make check before answering.")
    scripted_model.enqueue(text_response("ok", response_id="resp_1"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hi")

    (request,) = scripted_model.requests
    body = request.body
    assert body["instructions"] == "You are the house style checker."
    texts = [
        part["text"] for item in body["input"] for part in item.get("content", []) if "text" in part
    ]
    assert any("Run make check before answering." in text for text in texts)
    assert {"type": "web_search", "external_web_access": False} in body["tools"]


async def test_notify_runs_the_program_with_codex_json_after_a_turn(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model.base_url, "")
    out = tmp_path / "notified.json"
    script = f"import sys; open({str(out)!r}, 'w').write(sys.argv[-1])"
    config = home / "config.toml"
    config.write_text(
        f"notify = {json.dumps([sys.executable, '-c', script])}\n" + config.read_text()
    )
    scripted_model.enqueue(text_response("All done.", response_id="resp_1"))

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn("tidy up")

    for _ in range(100):
        if out.exists() and out.read_text():
            break
        await anyio.sleep(0.05)
    payload = json.loads(out.read_text())
    assert payload == {
        "type": "agent-turn-complete",
        "thread-id": configured.msg.session_id,
        "turn-id": payload["turn-id"],
        "cwd": str(ws.resolve()),
        "input-messages": ["tidy up"],
        "last-assistant-message": "All done.",
    }


async def test_pre_and_post_tool_use_hooks_run_as_in_codex(scripted_model, tmp_path):
    log = tmp_path / "post.jsonl"
    hooks = (
        "[[hooks.PreToolUse]]\n"
        'matcher = "Bash"\n'
        "[[hooks.PreToolUse.hooks]]\n"
        'type = "command"\n'
        "command = \"grep -q forbidden && { echo 'no forbidden files' >&2; exit 2; } || exit 0\"\n"
        "[[hooks.PostToolUse]]\n"
        "[[hooks.PostToolUse.hooks]]\n"
        'type = "command"\n'
        f"command = {json.dumps(f'cat >> {log}; echo >> {log}')}\n"
    )
    home, ws = _setup(tmp_path, scripted_model.base_url, hooks)
    for index, name in enumerate(("forbidden", "allowed")):
        scripted_model.enqueue(
            function_call_response(
                "exec_command", {"cmd": f"touch {name}", "workdir": str(ws)}, call_id=f"c{index}"
            )
        )
    scripted_model.enqueue(text_response("done", response_id="resp_9"))

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn("make two files")

    outputs = _outputs(scripted_model.requests[-1].body)
    assert outputs["c0"] == "Blocked by a PreToolUse hook: no forbidden files"
    assert not (ws / "forbidden").exists()
    assert (ws / "allowed").exists()
    (seen,) = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert seen["hook_event_name"] == "PostToolUse"
    assert seen["tool_name"] == "Bash"
    assert seen["tool_input"] == {"command": "touch allowed"}
    assert seen["tool_use_id"] == "c1"
    assert seen["session_id"] == configured.msg.session_id
    assert seen["cwd"] == str(ws.resolve())
    assert isinstance(seen["tool_response"], str)
