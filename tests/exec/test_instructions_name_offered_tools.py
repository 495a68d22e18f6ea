"""The base instructions sent with a request name only tools that request offers.

A model follows its instructions: told to use `shell_command` or `update_plan` in a request
that offers neither, it calls tools that answer "unsupported call". Every model in the catalog,
and one it does not know, is run through the real engine against the scripted model server
under each tool configuration, and the request it sends is read as the server received it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.engine.models import CATALOGUE
from tests.support.engine import running_engine, write_config
from tests.support.scripted_builders import chat_text_response, text_response

BUILT_IN = {"exec_command", "write_stdin", "shell_command", "apply_patch", "update_plan"}
MODELS = [info.slug for info in CATALOGUE] + ["my-local-model"]
CONFIGS = {
    "default": ("", "responses"),
    "no-unified-exec": ("[features]\nunified_exec = false\n", "responses"),
    "no-shell": ("[features]\nshell_tool = false\n", "responses"),
    "plan-tool": ("[tools.update_plan]\nenabled = true\n", "responses"),
    "chat-wire": ("", "chat"),
}


def _name(tool: dict[str, Any]) -> str:
    return str(tool.get("name") or tool.get("function", {}).get("name"))


async def _request(scripted_model: Any, tmp_path: Path, model: str, config: str) -> Any:
    extra, wire_api = CONFIGS[config]
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    write_config(home, scripted_model.base_url, model=model, extra=extra, wire_api=wire_api)
    if wire_api == "chat":
        scripted_model.enqueue(chat_text_response("hello"))
    else:
        scripted_model.enqueue(text_response("hello"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hi")
    return scripted_model.requests[-1]


def _instructions_and_tools(request: Any) -> tuple[str, set[str]]:
    body = request.body
    tools = {_name(tool) for tool in body.get("tools", [])}
    if "instructions" in body:
        return str(body["instructions"]), tools
    # Chat Completions carries the instructions as the first system message.
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"]), tools


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("model", MODELS)
async def test_every_tool_the_instructions_name_is_offered(
    scripted_model: Any, tmp_path: Path, model: str, config: str
) -> None:
    instructions, offered = _instructions_and_tools(
        await _request(scripted_model, tmp_path, model, config)
    )
    named = set(re.findall(r"`([a-z_]+)`", instructions)) & BUILT_IN
    assert named <= offered, f"named but not offered: {sorted(named - offered)}"
    # The shell the request offers is the one the instructions tell the model to use.
    shell = {"exec_command", "shell_command"} & offered
    assert shell <= named
    if "apply_patch" in offered:
        assert "apply_patch" in named
    if "update_plan" in offered:
        assert "update_plan" in named
    else:
        assert "plan" in instructions  # still asked to plan, in words, with no tool named
